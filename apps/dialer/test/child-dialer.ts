import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { childEntry, fakeClockEnv, type TestDatabase } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import type { Test } from 'tap'
import type { Harness } from './harness.js'

/** Where a dialer process logs in, and the zone it runs in (the rig's, open all day). */
export interface ChildTarget {
  amiPort: number
  username: string
  secret: string
  timezone: string
}

/** The harness's pbx-sim as a child dialer's target. */
export function simTarget(h: Harness): ChildTarget {
  return { amiPort: h.sim.port, username: 'dialer', secret: 'dialer-pass', timezone: h.config.timezone }
}

const mainTs = fileURLToPath(new URL('../src/main.ts', import.meta.url))

/** A dialer in a process of its own (`src/main.ts`), on the harness's database and pbx-sim. */
export interface ChildDialer {
  process: ChildProcess
  /** Everything it logged so far (JSON lines). */
  output(): string
  /** Stops it as a crash would (SIGKILL) and starts it again with the same DIALER_ID. */
  restart(): Promise<void>
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>
  /** SIGTERM (a graceful stop), and waits for the exit. */
  stop(): Promise<void>
  /**
   * Resolves once the process (started or restarted at `since`) has written a heartbeat logged in to
   * the PBX: a loaded machine can take tens of seconds to start one (TypeScript compiled on the fly).
   */
  ready(timeoutMs?: number): Promise<void>
}

/**
 * Starts the real dialer process against `target` (pbx-sim: `simTarget`, or a real Asterisk), killed
 * at teardown, so that it can be killed (SIGKILL) or paused (SIGSTOP/SIGCONT) as an operator's worst
 * day would.
 */
export function childDialer(
  t: Test,
  target: ChildTarget,
  database: TestDatabase,
  dialerId: string,
  env: Record<string, string> = {},
): ChildDialer {
  const fullEnv = {
    PATH: process.env.PATH ?? '',
    ...fakeClockEnv(),
    DATABASE_URL: database.url,
    DIALER_ID: dialerId,
    // Other dialers run on this host at the same time: this one does not listen (DIALER_HTTP_PORT).
    DIALER_HTTP_PORT: '0',
    AMI_HOST: '127.0.0.1',
    AMI_PORT: String(target.amiPort),
    AMI_USERNAME: target.username,
    AMI_SECRET: target.secret,
    // The rig's zone (middayZone): open all day, whatever the hour the test runs.
    TIMEZONE: target.timezone,
    WORK_START: '00:00',
    WORK_END: '23:59',
    // Numbers are dialed at any hour here: the customers' calling hours are off too.
    CALLING_HOURS: 'off',
    WRAP_SECONDS: '0',
    HEARTBEAT_SECONDS: '1',
    LOG_LEVEL: 'warn',
    ...env,
  }
  let output = ''
  const start = (): ChildProcess => {
    const c = spawn(process.execPath, childEntry(mainTs), {
      env: fullEnv,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    c.stdout?.on('data', (d: Buffer) => {
      output += d.toString()
    })
    return c
  }
  const end = async (signal: NodeJS.Signals) => {
    const c = child.process
    if (c.exitCode !== null || c.signalCode !== null) return
    const exited = new Promise((r) => c.once('exit', r))
    // A paused process is woken first, or SIGTERM would wait for ever.
    c.kill('SIGCONT')
    c.kill(signal)
    await exited
  }
  const kill = () => end('SIGKILL')
  let startedAt = new Date()
  const child: ChildDialer = {
    process: start(),
    output: () => output,
    async restart() {
      await kill()
      startedAt = new Date()
      child.process = start()
    },
    kill,
    stop: () => end('SIGTERM'),
    async ready(timeoutMs = 120_000) {
      const since = toDbTime(new Date(startedAt.getTime() - 1000))
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const beat = await database.handle.kysely
          .selectFrom('hold_dialer_heartbeat')
          .select(['ami_state', 'seen_at'])
          .where('dialer_id', '=', dialerId)
          .executeTakeFirst()
        if (beat?.ami_state === 'connected' && beat.seen_at >= since) return
        if (child.process.exitCode !== null) throw new Error(`dialer ${dialerId} exited: ${output}`)
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`dialer ${dialerId} not ready within ${timeoutMs} ms`)
    },
  }
  t.teardown(kill)
  return child
}
