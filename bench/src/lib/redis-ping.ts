import { connect } from 'node:net'

/** True when a Redis server answers PING at `url` within two seconds. */
export function redisAnswers(url: string): Promise<boolean> {
  const u = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port || 6379) })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(2000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (chunk) => done(chunk.toString().startsWith('+PONG')))
  })
}
