import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net'

/**
 * A TCP relay between the API and the real MariaDB, so a test can take the database away and give
 * it back as a network would (connections cut, new ones refused), with nothing mocked.
 */
export class TcpProxy {
  #server: Server | undefined
  readonly #sockets = new Set<Socket>()

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** A relay on a free port to `target`, not yet accepting: call `up()`. */
  static async create(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = createServer()
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    )
    await new Promise((resolve) => probe.close(resolve))
    return new TcpProxy(port, target)
  }

  /** Accepts connections and relays them. */
  async up(): Promise<void> {
    if (this.#server) return
    const server = createServer((client) => {
      const upstream = tcpConnect(this.target.port, this.target.host)
      for (const s of [client, upstream]) {
        this.#sockets.add(s)
        s.on('close', () => this.#sockets.delete(s))
        s.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream)
      upstream.pipe(client)
    })
    this.#server = server
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
  }

  /** Cuts every open connection and refuses new ones (ECONNREFUSED). */
  async down(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    for (const s of this.#sockets) s.destroy()
    if (server) await new Promise((resolve) => server.close(resolve))
  }
}
