import { waitFor } from '@hold-dialer/bench/child'
import { agentExtensions, keepPanelsAlive } from '@hold-dialer/bench/fleet'
import { phase, setProgressLabel, step } from '@hold-dialer/bench/progress'
import { connect, migrate } from '@hold-dialer/db'
import { ChaosDb, EXAMPLES, type Found, isDatabaseAway, leadNumber } from './checks.js'
import {
  type ChaosDialer,
  ChaosFleet,
  dialerEnv,
  HOLD_TIMEOUT_SECONDS,
  RELEASE_ROUND_MS,
  RING_TIMEOUT_SECONDS,
  TERM_GRACE_MS,
} from './dialers.js'
import { HeldCheck, leadIdsOf } from './held.js'
import type { ChaosOptions, FaultKind } from './options.js'
import { ChaosPbx } from './pbx.js'
import { customerScripts, mainFaults, pauseFaults, picked } from './plan.js'
import { Activity, Recoveries, type Recovery } from './recovery.js'

/** How often the invariants are checked while the run goes on. */
export const CHECK_EVERY_MS = 150
/** A live call whose lead is not held under its claim for this long is a failure, not a race. */
const HELD_GRACE_MS = 1000
/** A fault this soon after a call ended may have come before its result was written. */
const SETTLE_WINDOW_MS = 5000
/** How long a pause may wait for another dialer's release round before it is made without one. */
const ALIGN_WITHIN_MS = 12_000

export interface FaultRecord {
  kind: FaultKind
  /** The dialer hit, or `all`. */
  target: string
  /** Seconds from the start of the faults. */
  at: number
  seconds: number
  detail: string
}

export interface Invariant {
  id: string
  name: string
  count: number
  examples: string[]
}

export interface ChaosResult {
  options: ChaosOptions
  /** Real seconds: the faults, and the whole run with its settling. */
  faultSeconds: number
  totalSeconds: number
  calls: { originates: number; placed: number; settled: number; superseded: number; unknown: number }
  faults: FaultRecord[]
  faultCounts: Record<FaultKind, number>
  /** Pauses that spanned another dialer's release round (its reservations expired meanwhile). */
  pausesOverRelease: number
  invariants: Invariant[]
  /**
   * The invariants of a change under way (issue 26, item 4), shown apart: every call placed has an
   * attempt row, and none is left open once the dialers stopped.
   */
  attemptRows: Invariant[]
  recoveries: Recovery[]
  /** Leads still reserved past the reservation timeout once the agents were paused (released later). */
  slowToSettle: Found
  /** Seconds each dialer took to exit after SIGTERM. */
  sigtermSeconds: Record<string, number>
  dialerMessages: [string, number][]
  checkerErrors: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

/**
 * One chaos run on the database at `databaseUrl` (fresh, created by the caller): seeds it, starts
 * pbx-sim and the dialers, injects faults for `o.seconds` while checking the invariants, lets the
 * dialers settle, stops them with SIGTERM and checks again. Leaves no process behind.
 */
export async function runChaos(o: ChaosOptions, databaseUrl: string): Promise<ChaosResult> {
  setProgressLabel('chaos')
  const runStart = Date.now()
  const db = connect(databaseUrl, { poolSize: 1 })
  const checks = new ChaosDb(db)
  const activity = new Activity()
  const scripts = customerScripts(o.seed, o.leads)
  const pbx = new ChaosPbx({
    agents: o.agents,
    timeScale: o.timeScale,
    seed: o.seed,
    outcomes: Object.fromEntries(scripts.map((s, i) => [leadNumber(i), s])),
    onOriginate: (dialerId) => activity.saw(dialerId),
  })
  let stopPanels = () => {}
  let fleet: ChaosFleet | undefined
  let run: Run | undefined
  const exits: string[] = []
  try {
    await migrate(db)
    await checks.installFence()
    const pushed = await checks.seed(agentExtensions(o.agents), o.leads, new Date())
    await pbx.start()
    stopPanels = keepPanelsAlive(db.kysely)
    const started = new Date()
    fleet = new ChaosFleet({
      count: o.dialers,
      databaseUrl,
      sim: () => pbx.sim,
      env: dialerEnv({ mode: o.mode, reservationTimeout: o.reservationTimeout, now: started }),
      source: o.dialerSource,
      logLevel: o.logLevel,
      ...(o.logs ? { logs: o.logs } : {}),
      onExit: (d, tail) =>
        exits.push(`${d.id} exited on its own (${tail.split('\n').slice(0, 6).join(' | ')})`),
    })
    const f = fleet
    await waitFor(
      'every dialer to start (its first heartbeat)',
      async () => {
        for (const h of await checks.heartbeats()) f.get(h.dialerId)?.sawHeartbeat(h.pid, h.seenAt)
        return f.dialers.every((d) => d.releaseBase !== undefined)
      },
      120_000,
    )
    const r = new Run(o, checks, pbx, f, activity)
    run = r
    r.watch()
    const faultStart = Date.now()
    await phase(
      `${o.mode}, seed ${o.seed}, ${o.dialers} dialers, ${o.seconds} s of faults`,
      async () => {
        step(() => r.progress(faultStart))
        await Promise.all([
          r.mainLine(faultStart + o.seconds * 1000),
          r.pauseLine(faultStart + o.seconds * 1000),
        ])
        step(() => `faults over, waiting for the dialers they hit to work again; ${r.progress(faultStart)}`)
        await waitFor(
          'every dialer hit by a fault to work again',
          async () => !r.recoveries.pending(),
          600_000,
        )
      },
      10_000,
    )
    const faultSeconds = (Date.now() - faultStart) / 1000
    let terms: Awaited<ReturnType<ChaosFleet['terminateAll']>> = { stuck: [], seconds: {} }
    await phase('settling: agents paused, calls in progress left to end', async () => {
      await checks.pauseAgents()
      // How long a lead can rightly stay reserved now: a call whose Originate got no reply (sent just
      // before a PBX restart) is awaited until RING_TIMEOUT_SECONDS + 30 s after its claim, and a
      // reservation its holder lost track of is released by another dialer after the timeout, at its
      // next release round (every 30 s).
      const allowMs = (o.reservationTimeout + RING_TIMEOUT_SECONDS + 30 + RELEASE_ROUND_MS / 1000 + 5) * 1000
      step(() => `${r.reserved} leads still reserved`)
      // Leads still reserved once the longest call (90 simulated seconds of ringing and talk, then a
      // hold timeout in predictive mode) and the reservation timeout are over: their holder neither
      // settled nor released them, so they wait for another dialer's release round. Shown, not failed.
      const lateMs = (o.reservationTimeout + 90 / o.timeScale + HOLD_TIMEOUT_SECONDS + 2) * 1000
      const late = setTimeout(() => {
        void checks.leftReserved().then(
          (f) => {
            r.slowToSettle = f
          },
          () => {},
        )
      }, lateMs)
      await waitFor(
        'no lead reserved',
        async () => {
          r.reserved = await checks.reservedCount()
          return r.reserved === 0
        },
        allowMs,
      ).catch(() => {})
      clearTimeout(late)
      terms = await f.terminateAll()
    })
    r.stopWatching()
    await r.idle()
    pbx.check()
    pbx.checkLogs()
    return await r.result({ pushed, exits, faultSeconds, runStart, terms })
  } finally {
    run?.stopWatching()
    stopPanels()
    await fleet?.killAll()
    await pbx.close()
    await db.close()
  }
}

/** The run's moving parts: the lines of faults, the checks while they go on, the final figures. */
class Run {
  readonly recoveries: Recoveries
  readonly faults: FaultRecord[] = []
  readonly held = new HeldCheck(HELD_GRACE_MS)
  #lastAttemptId = 0
  #settled = 0
  #ticker: NodeJS.Timeout | undefined
  #ticking: Promise<void> = Promise.resolve()
  #faultStart = Date.now()
  /** What the main line of faults is doing, for the progress lines. */
  #mainState = 'starting'
  pausesOverRelease = 0
  checkerErrors = 0
  slowToSettle: Found = { count: 0, examples: [] }
  reserved = 0

  constructor(
    private readonly o: ChaosOptions,
    private readonly checks: ChaosDb,
    private readonly pbx: ChaosPbx,
    private readonly fleet: ChaosFleet,
    private readonly activity: Activity,
  ) {
    this.recoveries = new Recoveries(activity, o.recoverySeconds * 1000)
  }

  watch(): void {
    this.#faultStart = Date.now()
    this.#ticker = setInterval(() => {
      // One check at a time: a slow one (the database away) is not piled up behind.
      this.#ticking = this.#ticking.then(() => this.#tick())
    }, CHECK_EVERY_MS)
  }

  stopWatching(): void {
    clearInterval(this.#ticker)
  }

  idle(): Promise<void> {
    return this.#ticking
  }

  progress(faultStart: number): string {
    const count = (k: FaultKind) => this.faults.filter((f) => f.kind === k).length
    const broken =
      this.pbx.numberOverlaps.size +
      this.pbx.agentOverlaps.size +
      this.held.failures.size +
      this.recoveries.all.filter((r) => r.status === 'failed').length
    return `${Math.round((Date.now() - faultStart) / 1000)} of ${this.o.seconds} s: ${this.pbx.placed.size} calls placed, ${this.#settled} settled; faults: kill ${count('kill')}, stop ${count('stop')}, db ${count('db')}, pbx ${count('pbx')} (${this.#mainState}); invariants broken so far: ${broken}`
  }

  async #tick(): Promise<void> {
    try {
      this.pbx.check()
      for (const a of await this.checks.attemptsSince(this.#lastAttemptId)) {
        this.#lastAttemptId = a.id
        this.#settled += 1
        this.activity.saw(a.dialerId)
      }
      for (const h of await this.checks.heartbeats())
        this.fleet.get(h.dialerId)?.sawHeartbeat(h.pid, h.seenAt)
      await this.#checkHeld()
      await this.recoveries.update(
        (id) => this.fleet.get(id)?.state ?? 'killed',
        async () => (await this.checks.claimableLeads(new Date())) > 0,
      )
    } catch (error) {
      // The checker's own connection is spared by the KILL; anything else is counted and shown.
      if (!isDatabaseAway(error)) this.checkerErrors += 1
    }
  }

  /** The live calls' leads, read between two looks at the PBX (see HeldCheck). */
  async #checkHeld(): Promise<void> {
    const before = this.pbx.liveCallKeys()
    const claims = await this.checks.claims(leadIdsOf(before.keys))
    const after = this.pbx.liveCallKeys()
    if (after.generation === before.generation) this.held.judge(before.keys, after.keys, claims)
  }

  #record(kind: FaultKind, target: string, startedAt: number, detail: string): number {
    this.faults.push({
      kind,
      target,
      at: Math.round((startedAt - this.#faultStart) / 100) / 10,
      seconds: Math.round((Date.now() - startedAt) / 100) / 10,
      detail,
    })
    return this.faults.length
  }

  /** Every dialer a fault of all of them hits: the running and the stopped (their clocks wait). */
  #everyDialer(): string[] {
    return this.fleet.dialers.filter((d) => d.state !== 'killed').map((d) => d.id)
  }

  /** kill -9, database KILL and PBX restart, one after another, each once the last one's dialers work again. */
  async mainLine(until: number): Promise<void> {
    for (const f of mainFaults(this.o.seed, this.o.faults)) {
      this.#mainState = `next: ${f.kind} in ${(f.gapMs / 1000).toFixed(1)} s`
      await sleep(f.gapMs)
      if (Date.now() >= until) break
      const at = Date.now()
      this.#mainState = `injecting ${f.kind}`
      let fault: number
      if (f.kind === 'kill') {
        const target = picked(this.fleet.running(), f.pick)
        if (!target) continue
        await target.kill()
        await sleep(f.awayMs)
        target.restart()
        // The fault lasts until the new process is up (its first heartbeat): how long Node takes to
        // start on a loaded machine is not the dialer's recovery, which is counted from there.
        const restarted = Date.now()
        await waitFor(`${target.id} to start again`, async () => target.releaseBase !== undefined, 120_000)
        fault = this.#record(
          'kill',
          target.id,
          at,
          `kill -9, restarted after ${(f.awayMs / 1000).toFixed(1)} s, up ${((Date.now() - restarted) / 1000).toFixed(1)} s later`,
        )
        this.recoveries.expect(fault, [target.id])
      } else if (f.kind === 'db') {
        const killed = await this.checks.killDialerConnections()
        fault = this.#record('db', 'all', at, `${killed} connections killed`)
        this.recoveries.expect(fault, this.#everyDialer())
      } else {
        const live = this.pbx.liveCallKeys().keys.size
        await this.pbx.restart(f.awayMs)
        fault = this.#record(
          'pbx',
          'all',
          at,
          `${live} live channels dropped, back after ${(f.awayMs / 1000).toFixed(1)} s (pbx ${this.pbx.generation})`,
        )
        this.recoveries.expect(fault, this.#everyDialer())
      }
      this.#mainState = `waiting for the dialers ${f.kind} hit to work again`
      await waitFor(
        `the dialers hit by fault ${fault} to work again`,
        async () => !this.recoveries.pending(fault),
        600_000,
      )
    }
    this.#mainState = 'done'
  }

  /**
   * SIGSTOPs past the reservation timeout. Where another dialer's release round comes soon enough,
   * the pause is placed around it, so that round finds the paused dialer's reservations expired and
   * must keep those with a live call and may release the others (whose late results then come back
   * as superseded); otherwise the pause is made as it is.
   */
  async pauseLine(until: number): Promise<void> {
    if (!this.o.faults.includes('stop')) return
    const timeoutMs = this.o.reservationTimeout * 1000
    for (const p of pauseFaults(this.o.seed)) {
      await sleep(p.gapMs)
      if (Date.now() >= until) return
      const target = picked(this.fleet.running(), p.pick)
      if (!target) continue
      const earliest = Date.now() + timeoutMs + p.leadMs
      const round = this.#nextReleaseRound(target, earliest)
      const aligned = round !== undefined && round - earliest <= ALIGN_WITHIN_MS
      const startAt = aligned ? round - timeoutMs - p.leadMs : Date.now()
      const endAt = aligned ? round + p.tailMs : Date.now() + timeoutMs + p.leadMs + p.tailMs
      if (startAt >= until) return
      await sleep(startAt - Date.now())
      if (target.state !== 'running') continue
      const at = Date.now()
      target.pause()
      await sleep(endAt - Date.now())
      target.resume()
      if (aligned) this.pausesOverRelease += 1
      const fault = this.#record(
        'stop',
        target.id,
        at,
        aligned ? "SIGSTOP over another dialer's release round, then SIGCONT" : 'SIGSTOP, then SIGCONT',
      )
      this.recoveries.expect(fault, [target.id])
    }
  }

  /** The next release round of a dialer other than `paused` at or after `after`. */
  #nextReleaseRound(paused: ChaosDialer, after: number): number | undefined {
    const rounds = this.fleet
      .running()
      .filter((d) => d !== paused)
      .flatMap((d) => {
        const r = d.nextReleaseRound(after)
        return r === undefined ? [] : [r]
      })
    return rounds.length ? Math.min(...rounds) : undefined
  }

  async result(r: {
    pushed: string[]
    exits: string[]
    faultSeconds: number
    runStart: number
    terms: { stuck: string[]; seconds: Record<string, number> }
  }): Promise<ChaosResult> {
    const { checks, pbx } = this
    const found = (all: string[]): Found => ({ count: all.length, examples: all.slice(0, EXAMPLES) })
    const invariant = (id: string, name: string, f: Found): Invariant => ({ id, name, ...f })
    const atWrite = await checks.fenceAtWrite()
    const counts = await checks.attemptCounts()
    const failedRecoveries = this.recoveries.all.filter((x) => x.status === 'failed')
    const invariants = [
      invariant(
        'number',
        'no customer number with two live calls at once',
        found([...pbx.numberOverlaps.values()]),
      ),
      invariant('agent', 'no agent on two calls at once', found([...pbx.agentOverlaps.values()])),
      invariant(
        'lost',
        'no lead lost (every pushed oli_id on master or disposed)',
        await checks.lost(r.pushed),
      ),
      invariant('reserved', 'no lead left reserved at the end', await checks.leftReserved()),
      invariant('agents-held', 'no agent left held on a call at the end', await checks.agentsLeftOnCall()),
      invariant(
        'fence-write',
        'no result lands on a newer claim (each counted attempt, as its result was written)',
        atWrite.unrecorded > 0
          ? found([...atWrite.examples, `${atWrite.unrecorded} attempt rows without a fence record`])
          : atWrite,
      ),
      invariant(
        'fence-end',
        'no result lands on a newer claim (latest counted attempt, at the end)',
        await checks.fenceAtEnd(),
      ),
      invariant(
        'held',
        "a live call's lead is held under its claim",
        found([...this.held.failures.values()]),
      ),
      invariant(
        'recovery',
        `every dialer places or settles a call within ${this.o.recoverySeconds} s of each fault`,
        found(
          failedRecoveries.map(
            (x) => `${x.dialerId} after fault ${x.fault} (${this.faults[x.fault - 1]?.kind})`,
          ),
        ),
      ),
      invariant('exits', 'no dialer process exits on its own', found(r.exits)),
      invariant(
        'sigterm',
        `every dialer exits within ${TERM_GRACE_MS / 1000} s of SIGTERM`,
        found(r.terms.stuck),
      ),
    ]
    const faultCounts = { kill: 0, stop: 0, db: 0, pbx: 0 }
    for (const f of this.faults) faultCounts[f.kind] += 1
    return {
      options: this.o,
      faultSeconds: Math.round(r.faultSeconds),
      totalSeconds: Math.round((Date.now() - r.runStart) / 1000),
      calls: {
        originates: pbx.originates,
        placed: pbx.placed.size,
        settled: counts.all,
        superseded: counts.superseded,
        unknown: counts.unknown,
      },
      faults: this.faults,
      faultCounts,
      pausesOverRelease: this.pausesOverRelease,
      invariants,
      attemptRows: [
        invariant(
          'attempt-rows',
          'every call the PBX placed has an attempt row',
          this.#missingRows(await checks.attemptKeys()),
        ),
        invariant(
          'open-rows',
          "no attempt row left open ('Dialing') at the end",
          await checks.openAttempts(),
        ),
      ],
      recoveries: this.recoveries.all,
      slowToSettle: this.slowToSettle,
      sigtermSeconds: r.terms.seconds,
      dialerMessages: [...this.fleet.messages.entries()].sort((a, b) => b[1] - a[1]),
      checkerErrors: this.checkerErrors,
    }
  }

  /**
   * Calls placed with no attempt row, each with the faults that overlapped it or came within
   * `SETTLE_WINDOW_MS` of its end, before its result could be written (what it could be owed to), led
   * by how many overlapped a fault of each kind.
   */
  #missingRows(keys: Set<string>): Found {
    const byKind = new Map<string, number>()
    const all = [...this.pbx.placed.values()]
      .filter((c) => !keys.has(c.linkedid))
      .map((c) => {
        const during = this.faults.filter((f) => {
          const start = this.#faultStart + f.at * 1000
          const end = start + f.seconds * 1000
          const hit = f.target === 'all' || f.target === c.dialerId
          return hit && start <= (c.endedAt ?? Date.now()) + SETTLE_WINDOW_MS && end >= c.startedAt
        })
        const kinds = [...new Set(during.map((f) => f.kind))].join('+') || 'no fault'
        byKind.set(kinds, (byKind.get(kinds) ?? 0) + 1)
        return `${c.linkedid} (placed by ${c.dialerId ?? 'unknown'}${c.cut ? ', cut by a PBX restart' : ''}; during ${during.length ? during.map((f) => `${f.kind} at ${f.at} s`).join(', ') : 'no fault'})`
      })
    if (all.length === 0) return { count: 0, examples: [] }
    const summary = `by the faults each call overlapped: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`
    // The calls no fault explains first: they are the ones to look at.
    const unexplained = all.filter((e) => e.endsWith('during no fault)'))
    const examples = [...unexplained, ...all.filter((e) => !unexplained.includes(e))].slice(0, EXAMPLES)
    return { count: all.length, examples: [summary, ...examples] }
  }
}
