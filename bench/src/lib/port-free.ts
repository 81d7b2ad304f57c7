import { createServer } from 'node:net'

/**
 * Fails if something already listens on 127.0.0.1:`port`. Without this, an API started on a port
 * another bench's API holds exits at once, but the health check is answered by the other one, and
 * the load then runs against the other run's database: every push is then "wrong" (seen as two
 * failed runs on a machine where another checkout ran `pnpm bench` at the same time).
 */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${port} is in use (another bench running?): pick another with --port`)
          : error,
      )
    })
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()))
  })
}
