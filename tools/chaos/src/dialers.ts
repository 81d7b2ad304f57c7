import type { ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Child } from '@hold-dialer/bench/child'
import { type DialerSource, startDialer } from '@hold-dialer/bench/fleet'
import { fakeClockEnv, middayZone } from '@hold-dialer/db/testing'
import type { PbxSim } from '@hold-dialer/pbx-sim'
import { fromDbTime } from '@hold-dialer/rules'
import type { DialMode } from './options.js'

/** Each dialer releases expired reservations this often (the dialer's `staleMs`, not configurable). */
export const RELEASE_ROUND_MS = 30_000

/**
 * RING_TIMEOUT_SECONDS of the dialers: a customer who never answers rings 1 s at 10x. Shorter than
 * the default 30 because a call whose Originate got no reply (sent as the PBX went away) holds its
 * lead until RING_TIMEOUT_SECONDS + 30 s, which bounds how long the settling at the end can take.
 */
export const RING_TIMEOUT_SECONDS = 10

/** HOLD_TIMEOUT_SECONDS of the dialers: customers answered while every agent is paused are let go soon. */
export const HOLD_TIMEOUT_SECONDS = 8

/** How long a dialer has to exit after SIGTERM: its own grace for calls in progress is 15 s. */
export const TERM_GRACE_MS = 30_000

export type DialerState = 'running' | 'stopped' | 'killed'

const LEVELS: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' }

/** Every dialer process of this run not yet exited. */
const live = new Set<ChildProcess>()

/**
 * Wakes and kills every dialer process still there, at once (a signal to the run, a crash of it): a
 * dialer left stopped would outlive the run, holding its database connections.
 */
export function killEveryDialer(): void {
  for (const p of live) {
    p.kill('SIGCONT')
    p.kill('SIGKILL')
  }
}

/** One dialer process, with the same DIALER_ID across its restarts. */
export class ChaosDialer {
  state: DialerState = 'running'
  child: Child
  /** When its release rounds are counted from: its first heartbeat after a start, its resume after a pause. */
  releaseBase: number | undefined
  #basePid: number | undefined
  #stoppedAt = 0
  /** Processes of this DIALER_ID that exited without being told to, with their last lines. */
  readonly exits: string[] = []
  #expectExit = false

  constructor(
    readonly id: string,
    private readonly spawn: () => Child,
    private readonly onExit: (d: ChaosDialer, tail: string) => void,
  ) {
    this.child = this.#start()
  }

  #start(): Child {
    const child = this.spawn()
    this.#expectExit = false
    live.add(child.process)
    child.process.once('exit', () => live.delete(child.process))
    child.process.once('exit', (code, signal) => {
      if (this.#expectExit || child !== this.child) return
      this.state = 'killed'
      this.onExit(this, `exit code ${code}, signal ${signal}:\n${child.tail()}`)
    })
    return child
  }

  get pid(): number {
    return this.child.pid
  }

  /** kill -9, as a crash or an OOM kill does: nothing written, calls left to the PBX. */
  async kill(): Promise<void> {
    this.#expectExit = true
    this.state = 'killed'
    await this.child.stop('SIGKILL')
  }

  /** Starts it again with the same DIALER_ID (and so the same reservations to recognise). */
  restart(): void {
    this.releaseBase = undefined
    this.child = this.#start()
    this.state = 'running'
  }

  pause(): void {
    this.#stoppedAt = Date.now()
    this.child.process.kill('SIGSTOP')
    this.state = 'stopped'
  }

  resume(): void {
    this.child.process.kill('SIGCONT')
    this.state = 'running'
    // A release round that fell due while it was stopped runs as it wakes, and the next 30 s after.
    const due = this.nextReleaseRound(this.#stoppedAt)
    if (due !== undefined && due <= Date.now()) this.releaseBase = Date.now()
  }

  /**
   * SIGTERM, a graceful stop (woken first if paused, or it would never end), and waits for the exit:
   * the dialer lets calls in progress end for up to 15 s, so after `graceMs` it is killed. Returns
   * whether it exited by itself, and in how many seconds.
   */
  async terminate(graceMs = TERM_GRACE_MS): Promise<{ exited: boolean; seconds: number }> {
    this.#expectExit = true
    if (this.state === 'killed') return { exited: true, seconds: 0 }
    const started = Date.now()
    this.child.process.kill('SIGCONT')
    const exited = await this.child.stop('SIGTERM', graceMs)
    this.state = 'killed'
    return { exited, seconds: Math.round((Date.now() - started) / 100) / 10 }
  }

  /** Its heartbeat: the first of each process starts its release rounds. */
  sawHeartbeat(pid: number, seenAt: string): void {
    if (pid !== this.child.pid || this.#basePid === pid) return
    this.#basePid = pid
    this.releaseBase = fromDbTime(seenAt).getTime()
  }

  /** The first of its release rounds at or after `after` (ms), if its rounds are known. */
  nextReleaseRound(after: number): number | undefined {
    if (this.releaseBase === undefined) return undefined
    const rounds = Math.max(1, Math.ceil((after - this.releaseBase) / RELEASE_ROUND_MS))
    return this.releaseBase + rounds * RELEASE_ROUND_MS
  }
}

/** The dialers' settings: the run's mode and timeout, a short heartbeat, the log read for warnings. */
export function dialerEnv(o: {
  mode: DialMode
  reservationTimeout: number
  now: Date
}): Record<string, string> {
  return {
    ...fakeClockEnv(),
    DIAL_MODE: o.mode,
    RESERVATION_TIMEOUT_SECONDS: String(o.reservationTimeout),
    // Reservations of a running dialer are at most a second old, so only a paused or dead one's expire.
    HEARTBEAT_SECONDS: '1',
    // A zone in which the run is around midday, so a run near midnight UTC is not cut by WORK_END.
    TIMEZONE: middayZone(o.now),
    RING_TIMEOUT_SECONDS: String(RING_TIMEOUT_SECONDS),
    HOLD_TIMEOUT_SECONDS: String(HOLD_TIMEOUT_SECONDS),
    ABANDON_RETRY_SECONDS: '0',
    LOG_FORMAT: 'json',
  }
}

/** The run's dialers: `chaos-1`, `chaos-2`, ... on one database and one PBX port. */
export class ChaosFleet {
  readonly dialers: ChaosDialer[]
  /** Warnings and errors the dialers logged, by level and message. */
  readonly messages = new Map<string, number>()

  constructor(o: {
    count: number
    databaseUrl: string
    sim: () => PbxSim
    env: Record<string, string>
    source: DialerSource
    logLevel: string
    onExit: (d: ChaosDialer, tail: string) => void
    /** Each dialer's lines are appended to `<logs>/<DIALER_ID>.log`. */
    logs?: string
  }) {
    if (o.logs) mkdirSync(o.logs, { recursive: true })
    this.dialers = Array.from({ length: o.count }, (_, i) => {
      const id = `chaos-${i + 1}`
      return new ChaosDialer(
        id,
        () =>
          startDialer({
            id,
            databaseUrl: o.databaseUrl,
            sim: o.sim(),
            logLevel: o.logLevel,
            env: o.env,
            source: o.source,
            onLine: (line) => {
              this.#read(line)
              if (o.logs) appendFileSync(join(o.logs, `${id}.log`), `${line}\n`)
            },
          }),
        o.onExit,
      )
    })
  }

  get(id: string): ChaosDialer | undefined {
    return this.dialers.find((d) => d.id === id)
  }

  running(): ChaosDialer[] {
    return this.dialers.filter((d) => d.state === 'running')
  }

  /** SIGTERM to every dialer; those not gone within `TERM_GRACE_MS`, with how long the others took. */
  async terminateAll(): Promise<{ stuck: string[]; seconds: Record<string, number> }> {
    const ends = await Promise.all(this.dialers.map(async (d) => ({ id: d.id, ...(await d.terminate()) })))
    return {
      stuck: ends
        .filter((e) => !e.exited)
        .map((e) => `${e.id} still running ${TERM_GRACE_MS / 1000} s after SIGTERM`),
      seconds: Object.fromEntries(ends.map((e) => [e.id, e.seconds])),
    }
  }

  /** Whatever happened: none is left running or stopped (a stopped one is woken to die). */
  async killAll(): Promise<void> {
    await Promise.all(
      this.dialers.map(async (d) => {
        d.child.process.kill('SIGCONT')
        await d.kill()
      }),
    )
  }

  #read(line: string): void {
    let entry: { level?: number; msg?: string }
    try {
      entry = JSON.parse(line) as { level?: number; msg?: string }
    } catch {
      entry = { level: 50, msg: line.slice(0, 120) }
    }
    const level = LEVELS[entry.level ?? 0]
    if (!level) return
    const key = `${level}: ${entry.msg ?? ''}`
    this.messages.set(key, (this.messages.get(key) ?? 0) + 1)
  }
}
