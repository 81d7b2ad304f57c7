import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { childEntry, fakeClockEnv } from '@hold-dialer/db/testing'

/** Starting `src/server.ts` as its own process, as deployed. */

const serverTs = fileURLToPath(new URL('../src/server.ts', import.meta.url))

export interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

/** A port free right now (the config rejects PORT=0, as a daemon's port must be known). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

export function startServer(env: Record<string, string>): Started {
  const child = spawn(process.execPath, childEntry(serverTs), {
    env: { PATH: process.env.PATH ?? '', ...fakeClockEnv(), LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
  })
  let out = ''
  child.stdout?.on('data', (d) => (out += d))
  child.stderr?.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => out, exited }
}

export async function listeningPort(s: Started): Promise<number> {
  for (;;) {
    const m = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(s.output())
    if (m) return Number(m[1])
    if (s.child.exitCode !== null) throw new Error(`server exited: ${s.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
