import type { AmiClient, AmiMessage } from '@hold-dialer/ami'
import { DatabaseAvailability, type Db } from '@hold-dialer/db'
import {
  type Config,
  deskStateSource,
  isCallable,
  isWithinWorkingHours,
  nextCallableMoment,
  phoneCountry,
  toDbTime,
  zonesOfColumn,
} from '@hold-dialer/rules'
import type { Logger } from 'pino'
import { AGENT_REST_MS, AgentTracker } from './agents/agent-tracker.js'
import { DeskStates } from './agents/desk-states.js'
import { noteAmdVerdict } from './calls/amd.js'
import { IssuedClaims, tokenOfKey } from './calls/call-key.js'
import { callDurations, logCallPhase } from './calls/call-progress.js'
import { type CallResult, CallTracker, type TrackedCall } from './calls/call-tracker.js'
import { progressiveOriginate } from './calls/originate.js'
import { originateCall } from './calls/originate-call.js'
import { reconcileAfterLogin } from './calls/reconcile.js'
import { releaseExpired } from './calls/release-expired.js'
import { DialerTrunkBreaker } from './calls/trunk-breaker.js'
import { type ClaimedLead, claimLead, DueProbeMemo } from './claim/claim.js'
import { claimRules, type StoredZones } from './claim/rules.js'
import { type LiveState, liveState, SinceClock } from './http/live-state.js'
import { type DueLeads, IdleReport, type IdleSnapshot, idleReasons } from './idle/idle-report.js'
import { DialerMetrics } from './metrics.js'
import { PhoneFill } from './phone-fill.js'
import { PredictiveEngine } from './predictive.js'
import { type SettleContext, settleUnknown } from './settle.js'
import { SettleQueue } from './settle-queue.js'
import { loadDialablePriorities, loadRoster } from './sql/agents.js'
import { recordAnswered } from './sql/attempts.js'
import { readStoredZones } from './sql/customer-zones.js'
import { dueByZone } from './sql/due-by-zone.js'
import { refreshReservations, writeHeartbeat } from './sql/heartbeat.js'
import { holdsClaim } from './sql/lock-reserved-lead.js'
import { type QueueStats, queueStats } from './sql/queue-stats.js'
import type { CountUnknown } from './sql/release-stale.js'

export interface DialerDeps {
  config: Config
  db: Db
  ami: AmiClient
  logger: Logger
  dialerId: string
  hostname: string
  now?: () => Date
  /**
   * Watches the database for the process (main.ts). A database error that means it is unavailable is
   * reported there, which logs it once a minute, instead of at every tick of every loop.
   */
  availability?: DatabaseAvailability
  /** Loop periods, ms (tests shorten them). */
  timing?: Partial<DialerTiming>
  /** Where the counters and histograms go and the gauges are read (made here when not given). */
  metrics?: DialerMetrics
}

export interface DialerTiming {
  claimIdleMs: number
  rosterMs: number
  staleMs: number
  expireMs: number
  settleRetryMs: number
  /** How long an agent whose desk refused a call is offered none (AGENT_REST_MS). */
  agentRestMs: number
  /** Period of the read of the stored customer zones (CALLING_HOURS). */
  zonesMs: number
  /** How long a claim that found no callback or retry due stands for the next (claim/due-probe.ts). */
  dueProbeMs: number
  /** Period of the fill of international forms missing from stored rows (phone-fill.ts). */
  phoneFillMs: number
}

const DEFAULT_TIMING: DialerTiming = {
  claimIdleMs: 500,
  rosterMs: 1000,
  staleMs: 30_000,
  expireMs: 1000,
  settleRetryMs: 2000,
  agentRestMs: AGENT_REST_MS,
  zonesMs: 5000,
  dueProbeMs: 1000,
  phoneFillMs: 2000,
}

/** How long the count of due leads behind "why is nothing dialed" stands before it is read again. */
const DUE_LEADS_MS = 5000

/** Delay before a failed AMI sync (device states, live channels, own reservations) is tried again. */
const SYNC_RETRY_MS = 1000

/** A lead whose originate failed is not claimed again by this dialer for this long. */
const FAILED_ORIGINATE_COOLDOWN_MS = 60_000

/**
 * A metrics scrape waits this long for the lead-queue query; past it the queue gauges are left out
 * of that scrape (a database that does not answer must not hang the scrape).
 */
const QUEUE_QUERY_TIMEOUT_MS = 2000

export interface DialerStats {
  claims: number
  settled: number
  restored: number
  originateFailures: number
  settleErrors: number
}

/**
 * The progressive dialer: for each available agent it claims a lead (agent and lead taken in one
 * transaction), originates to the agent's desk, follows the call's AMI events and settles the result.
 * While AMI is down it claims nothing. Results that cannot be written (database down) are kept and
 * written again until they are: a finished call is never lost.
 */
export class Dialer {
  readonly stats: DialerStats = { claims: 0, settled: 0, restored: 0, originateFailures: 0, settleErrors: 0 }
  readonly metrics: DialerMetrics
  readonly #d: DialerDeps
  readonly #now: () => Date
  readonly #timing: DialerTiming
  readonly #agents: AgentTracker
  readonly #dueProbes: DueProbeMemo
  readonly #phoneFill: PhoneFill
  readonly #desks: DeskStates
  readonly #calls: CallTracker
  readonly #settles: SettleQueue
  readonly #cooldown = new Map<number, number>()
  /** Pending timers, each removed when it fires (a daemon runs for months: the set must not grow). */
  readonly #timers = new Set<NodeJS.Timeout>()
  #dialable: number[] = []
  /** The stored customer zones as last read; until the first read, none (no lead is in hours). */
  #zones: StoredZones = { values: [], hasUnzoned: false }
  /** Stored zone values already checked for a common calling moment. */
  readonly #zonesChecked = new Set<string>()
  readonly #predictive: PredictiveEngine | undefined
  readonly #trunk: DialerTrunkBreaker
  /** Claim tokens of this process whose calls have not finished (calls/call-key.ts). */
  readonly #issued = new IssuedClaims()
  /** Completes a released reservation's lost call as an attempt with result Unknown (settle.ts). */
  readonly #countUnknown: CountUnknown
  /** Checks a claim that aged before its call was placed (calls/originate-call.ts). */
  readonly #fence: { now(): Date; held(leadId: number, token: string): Promise<boolean> }
  #synced = false
  /** The sync under way; `#syncAgain`: a login came during it, so it runs once more after. */
  #syncRun: Promise<void> | undefined
  #syncAgain = false
  /** The last sync failure logged at warn: the same one again is logged at debug. */
  #syncFailure: string | null = null
  #stopping = false
  #claiming: Promise<void> | undefined
  #startedAt: Date
  readonly #availability: DatabaseAvailability
  readonly #roundWaiters: Array<{ left: number; resolve: () => void }> = []
  /** Why nothing is dialed, while nothing is (idle/idle-report.ts). */
  readonly #idle: IdleReport
  #explaining = false
  #dueLeads: { at: number; due: DueLeads } | undefined
  /** The last AMI failure logged, so a failing login is logged once, and again only when it changes. */
  #amiFailure: string | null = null
  /** When each agent's state and each call's phase began (the live state). */
  readonly #since = new SinceClock()
  /** AMI logins so far (the ones after the first are reconnects). */
  #amiLogins = 0
  /** The lead-queue query of a scrape still running: a scrape does not start another. */
  #queueQuery: Promise<QueueStats | undefined> | undefined

  constructor(deps: DialerDeps) {
    this.#d = deps
    this.#now = deps.now ?? (() => new Date())
    this.#startedAt = this.#now()
    this.#timing = { ...DEFAULT_TIMING, ...deps.timing }
    this.metrics = deps.metrics ?? new DialerMetrics()
    this.#idle = new IdleReport(deps.logger)
    this.#trunk = new DialerTrunkBreaker(
      { failures: deps.config.trunkBreakerFailures, probeSeconds: deps.config.trunkBreakerProbeSeconds },
      this.#now,
      deps.logger,
      this.metrics,
    )
    this.#fence = {
      now: this.#now,
      held: (leadId, token) => holdsClaim(deps.db.kysely, leadId, deps.dialerId, token),
    }
    this.#availability =
      deps.availability ?? DatabaseAvailability.alreadyReady({ db: deps.db, log: deps.logger })
    this.#desks = new DeskStates(
      deskStateSource(deps.config.agentChannelTemplate, deps.config.agentDeviceTemplate),
      deps.logger,
    )
    this.#agents = new AgentTracker((ext) => this.#desks.state(ext), this.#timing.agentRestMs)
    this.#dueProbes = new DueProbeMemo(this.#timing.dueProbeMs)
    this.#phoneFill = new PhoneFill(
      deps.db.kysely,
      {
        country: phoneCountry(deps.config.defaultCountry, deps.config.timezone),
        fallbackZone: deps.config.timezone,
      },
      deps.logger,
    )
    const settlesDueSoon =
      Math.min(deps.config.retryPolicy.retrySeconds, deps.config.abandonRetrySeconds) * 1000 <
      this.#timing.dueProbeMs
    this.#calls = new CallTracker(this.#now, (call, result) => this.#onFinished(call, result), {
      onAnswered: (call) => this.#predictive?.onAnswered(call),
      onAgentLegFailed: (call, status) => this.#predictive?.onAgentLegFailed(call, status),
      onAmd: (call) =>
        call.mode === 'predictive'
          ? this.#predictive?.onAmd(call)
          : noteAmdVerdict(call, deps.config.amd, this.metrics),
      onProgress: (call, phase) => {
        logCallPhase(deps.logger, call, phase, this.#now())
        if (phase === 'customer answered') this.#noteAnswer(call)
      },
    })
    if (deps.config.dialMode === 'predictive') {
      this.#predictive = new PredictiveEngine({
        config: deps.config,
        db: deps.db.kysely,
        conn: deps.db,
        ami: deps.ami,
        agents: this.#agents,
        calls: this.#calls,
        logger: deps.logger,
        now: this.#now,
        dialerId: deps.dialerId,
        dialable: () => this.#dialable,
        rules: (now) => claimRules(deps.config, now, this.#zones),
        cooldown: () => [...this.#cooldown.keys()],
        dueProbes: this.#dueProbes,
        busyHere: () => this.#calls.busyAgentIds(),
        trunk: this.#trunk,
        fence: this.#fence,
        issued: this.#issued,
        onClaimed: () => {
          this.stats.claims += 1
          this.metrics.claims.inc({ mode: 'predictive' })
        },
        metrics: this.metrics,
      })
    }
    const settleContext: SettleContext = {
      db: deps.db.kysely,
      dialerId: deps.dialerId,
      mode: deps.config.callbackMode,
      dialMode: deps.config.dialMode,
      policy: deps.config.retryPolicy,
      abandonRetrySeconds: deps.config.abandonRetrySeconds,
      amdRetrySeconds: deps.config.amd.retrySeconds,
      wrapSeconds: deps.config.wrapSeconds,
      rnrMailTo: deps.config.smtp.to,
      now: this.#now,
      callingHours: deps.config.customerHours,
      hours: deps.config.hours,
    }
    this.#countUnknown = (trx, leadId, key) => settleUnknown(settleContext, trx, leadId, key)
    this.#settles = new SettleQueue(
      settleContext,
      deps.logger,
      (err) => this.#availability.report(err) !== undefined,
      (outcome, result, call) => {
        // The call's claim is this process's until its result is written (a result kept to write
        // again included): the expiry sweep must not take it for a paused dialer's.
        if (outcome !== 'error') this.#issued.drop(tokenOfKey(call.key))
        // A restored lead is due again at once; a settled one when its retry comes sooner than the
        // memo's time (RETRY_SECONDS or ABANDON_RETRY_SECONDS under it; a new day's first retry is
        // hours away).
        if (outcome === 'restored' || (outcome === 'settled' && settlesDueSoon)) this.#dueProbes.forget()
        if (outcome === 'restored') {
          this.stats.restored += 1
          this.metrics.restores.inc()
        } else if (outcome === 'settled') {
          this.stats.settled += 1
          this.metrics.outcomes.inc({ status: result.outcome })
        } else if (outcome === 'superseded') this.metrics.lateResults.inc()
        else if (outcome === 'error') this.stats.settleErrors += 1
      },
      () => this.metrics.settleRetries.inc(),
    )
    this.metrics.watch(
      {
        liveState: () => this.liveState(),
        queue: () => this.#queueForScrape(),
        databaseAvailable: () => this.#availability.available,
      },
      { predictive: this.#predictive !== undefined, pbx: deps.config.pbxName },
    )
  }

  /**
   * The lead queue for a scrape, or undefined when the database does not answer within
   * QUEUE_QUERY_TIMEOUT_MS (or a query of an earlier scrape is still running).
   */
  #queueForScrape(): Promise<QueueStats | undefined> {
    if (this.#queueQuery) return Promise.resolve(undefined)
    const query = queueStats(this.#d.db.kysely, this.#now()).catch((err) => {
      this.#d.logger.debug({ err }, 'lead-queue metrics query failed')
      return undefined
    })
    this.#queueQuery = query
    void query.finally(() => {
      this.#queueQuery = undefined
    })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, QUEUE_QUERY_TIMEOUT_MS, undefined)
    })
    return Promise.race([query, timeout]).finally(() => clearTimeout(timer))
  }

  /** Predictive mode's governor state (dial level, window, budget); undefined in progressive mode. */
  governor() {
    return this.#predictive?.snapshot()
  }

  /** The trunk breaker's state (/healthz, the heartbeat). */
  trunk() {
    return this.#trunk.snapshot()
  }

  get activeCalls(): number {
    return this.#calls.size
  }

  /** The dialer's id (reserved_by, heartbeat). */
  get dialerId(): string {
    return this.#d.dialerId
  }

  /** Whether the database answered the last thing tried on it. */
  get databaseAvailable(): boolean {
    return this.#availability.available
  }

  /**
   * What the dialer is doing now (agents, calls, governor), as plain data: read by the metrics and the
   * supervisor console. Reads memory only.
   */
  liveState(): LiveState {
    return liveState({
      dialerId: this.#d.dialerId,
      dialMode: this.#d.config.dialMode,
      now: this.#now(),
      roster: this.#agents.roster(),
      deskState: (ext) => this.#desks.state(ext),
      resting: (id) => this.#agents.resting(id),
      calls: this.#calls.active(),
      ami: this.#d.ami.status(),
      governor: this.#predictive?.snapshot(),
      abandonRateMax: this.#d.config.abandonRateMax,
      trunk: this.#trunk.snapshot(),
      idle: this.#idle.snapshot(),
      clock: this.#since,
    })
  }

  async start(): Promise<void> {
    const { ami } = this.#d
    ami.on('event', (e: AmiMessage) => this.#onEvent(e))
    ami.on('state', (s: string) => this.#onAmiState(s))
    await this.#refreshRoster()
    await this.#phoneFill.tick()
    await this.#refreshZones()
    await this.#heartbeat()
    if (ami.state === 'connected') await this.#sync()
    this.#every(this.#timing.rosterMs, () => this.#refreshRoster())
    this.#every(this.#timing.phoneFillMs, () => this.#phoneFill.tick())
    if (this.#d.config.customerHours) this.#every(this.#timing.zonesMs, () => this.#refreshZones())
    this.#every(this.#d.config.heartbeatSeconds * 1000, () => this.#heartbeat())
    this.#every(this.#timing.staleMs, () => this.#releaseExpired())
    this.#every(this.#timing.expireMs, async () => this.#expireCalls())
    this.#every(this.#timing.settleRetryMs, () => this.#settles.retry())
    this.#scheduleClaim(0)
  }

  /** Logs a failed task, unless the database is unavailable (then the availability logs it). */
  #failed(err: unknown, msg: string): void {
    if (this.#availability.report(err) === undefined) this.#d.logger.warn({ err }, msg)
  }

  #onAmiState(state: string): void {
    if (state === 'connected') {
      this.#amiLogins += 1
      if (this.#amiLogins > 1) this.metrics.amiReconnects.inc()
      this.#amiFailure = null
      this.#d.logger.info({ ami: state }, 'AMI connected')
      void this.#sync()
      return
    }
    this.#synced = false
    if (state !== 'down') return
    // Every reconnect attempt goes connecting -> down: log the reason once (a wrong secret gives
    // "login failed: Authentication failed"), and again only when it changes.
    const reason = this.#d.ami.status().lastError ?? 'connection lost'
    if (reason === this.#amiFailure) return
    this.#amiFailure = reason
    this.#d.logger.error({ ami: state, reason }, 'AMI unavailable; reconnecting')
  }

  /** Stops claiming, waits up to `graceMs` for calls in progress to finish and be settled. */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true
    for (const t of this.#timers) clearTimeout(t)
    this.#timers.clear()
    await this.#claiming
    const deadline = Date.now() + graceMs
    while ((this.#calls.size > 0 || this.#settles.busy) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
    }
    await this.#settles.retry()
    // The watch made here (none given) stops with the dialer; main.ts closes its own.
    if (!this.#d.availability) this.#availability.close()
    await this.#heartbeat('stopped').catch((err) =>
      this.#d.logger.warn({ err }, 'last heartbeat not written'),
    )
  }

  /** Runs `fn` after `ms`, unless the dialer stops first. */
  #after(ms: number, fn: () => void): void {
    if (this.#stopping) return
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      fn()
    }, ms)
    this.#timers.add(timer)
  }

  #every(ms: number, fn: () => Promise<unknown>): void {
    const run = async () => {
      if (this.#stopping) return
      try {
        await fn()
      } catch (err) {
        this.#failed(err, 'periodic task failed')
      }
      this.#after(ms, run)
    }
    this.#after(ms, run)
  }

  #scheduleClaim(ms: number): void {
    this.#after(ms, () => {
      this.#claiming = this.#claimRound()
        .catch((err: Error) => {
          this.#failed(err, 'claim round failed')
          return 0
        })
        .then((claimed) => {
          if (this.#synced) this.#roundDone()
          this.#afterRound(claimed)
          this.#scheduleClaim(claimed > 0 ? 0 : this.#timing.claimIdleMs)
        })
    })
  }

  /**
   * Resolves once `count` claim rounds have run from start to end after the call (a round under way
   * counts as the first; the default 2 guarantees a whole round saw what was true at the call). What a
   * round can claim and bridge it has then done: tests wait on this instead of a clock before checking
   * that something was not dialed.
   */
  claimRounds(count = 2): Promise<void> {
    return new Promise((resolve) => this.#roundWaiters.push({ left: count, resolve }))
  }

  #roundDone(): void {
    for (const w of [...this.#roundWaiters]) {
      w.left -= 1
      if (w.left > 0) continue
      this.#roundWaiters.splice(this.#roundWaiters.indexOf(w), 1)
      w.resolve()
    }
  }

  /** After a claim round: the dialer works, or it says why nothing is dialed. */
  #afterRound(claimed: number): void {
    if (claimed > 0 || this.#calls.size > 0) {
      this.#idle.working()
      return
    }
    if (this.#explaining || this.#stopping) return
    this.#explaining = true
    this.#explainIdle()
      .catch((err: unknown) => this.#d.logger.debug({ err }, 'why nothing is dialed: not worked out'))
      .finally(() => {
        this.#explaining = false
      })
  }

  async #explainIdle(): Promise<void> {
    const now = this.#now()
    const busy = this.#calls.busyAgentIds()
    const cfg = this.#d.config
    const unavailableAgents = this.#agents.unavailable(now, busy)
    const inputs = {
      amiConnected: this.#d.ami.state === 'connected',
      databaseAvailable: this.#availability.available,
      synced: this.#synced,
      trunkOpen: this.#trunk.snapshot().state === 'open',
      inHours: isWithinWorkingHours(now, cfg.hours),
      hours: `${cfg.hours.start}-${cfg.hours.end} ${cfg.hours.zone}`,
      unavailableAgents,
      // Every agent on the roster is either offered calls or has a reason not to be.
      anyAgentAvailable: unavailableAgents.length < this.#agents.roster().length,
    }
    const askDue =
      inputs.amiConnected &&
      inputs.databaseAvailable &&
      inputs.synced &&
      inputs.anyAgentAvailable &&
      inputs.inHours
    const due = askDue ? await this.#dueNow(now) : undefined
    // A call placed meanwhile: the dialer works after all.
    if (this.#calls.size > 0 || this.#stopping) return
    this.#idle.idle(now, idleReasons({ ...inputs, ...(due ? { due } : {}) }))
  }

  /** Leads due now, within and outside their customers' calling hours (read at most every DUE_LEADS_MS). */
  async #dueNow(now: Date): Promise<DueLeads> {
    if (this.#dueLeads && now.getTime() - this.#dueLeads.at < DUE_LEADS_MS) return this.#dueLeads.due
    const cfg = this.#d.config
    const window = cfg.customerHours
    const due: DueLeads = { callable: 0, waiting: 0, nextAt: null }
    for (const { zone, leads } of await dueByZone(
      this.#d.db.kysely,
      now,
      this.#dialable,
      this.#d.config.pbxName,
    )) {
      // As the claim reads them: no zone (pushed before zones were stored) is TIMEZONE's clock.
      const zones = zone === null ? [cfg.timezone] : zonesOfColumn(zone)
      if (!window || isCallable(now, zones, window)) {
        due.callable += leads
        continue
      }
      due.waiting += leads
      const next = nextCallableMoment(now, zones, window, cfg.hours)
      if (next && (due.nextAt === null || next < due.nextAt)) due.nextAt = next
    }
    this.#dueLeads = { at: now.getTime(), due }
    return due
  }

  /** Since when nothing is dialed and why (/healthz, the console); null while the dialer works. */
  idle(): IdleSnapshot | null {
    return this.#idle.snapshot()
  }

  /** One pass over the available agents; returns how many calls it started. */
  async #claimRound(): Promise<number> {
    if (!this.#synced || this.#d.ami.state !== 'connected' || this.#stopping) return 0
    const cutoffMs = this.#now().getTime() - FAILED_ORIGINATE_COOLDOWN_MS
    for (const [id, at] of this.#cooldown) if (at < cutoffMs) this.#cooldown.delete(id)
    if (this.#predictive) return this.#predictive.round()
    const now = this.#now()
    const inHours = isWithinWorkingHours(now, this.#d.config.hours)
    // The trunk breaker, while open, lets one call through now and then (calls/trunk-breaker.ts).
    const agents = [...this.#agents.available(now, this.#calls.busyAgentIds())].slice(
      0,
      this.#trunk.permits(),
    )
    const excludeIds = [...this.#cooldown.keys()]
    const rules = claimRules(this.#d.config, now, this.#zones)
    const claimFor = (agent: (typeof agents)[number]) =>
      this.#timedClaim('progressive', {
        agentId: agent.id,
        agentExtension: agent.extension,
        dialMode: 'progressive',
        dialerId: this.#d.dialerId,
        now,
        inHours,
        dialablePriorities: this.#dialable,
        pinnedAgentId: this.#d.config.callbackMode === 'pinned' ? agent.id : null,
        callbackMode: this.#d.config.callbackMode,
        excludeIds,
        ...rules,
      })
    // SQLite: every free agent's claim at once, so that they share one transaction and one fsync
    // (`claimLead`). MySQL: one after another. Dialers that share agents all see an agent free at
    // the same moment and race for it, and a losing claim holds a lead while it waits for the
    // winner's agent row. In the 3-minute scale-out run (3 dialers, 30 agents) claims made all at
    // once placed 87 calls/s with a dialer peaking at 165 MiB; in turn, 99 calls/s and 133 MiB.
    let started = 0
    if (this.#d.db.dialect === 'sqlite') {
      const claims = await Promise.allSettled(agents.map(claimFor))
      for (const [i, claim] of claims.entries()) {
        if (claim.status === 'fulfilled') started += await this.#dialClaimed(agents[i]!, claim.value, now)
      }
      // Leads claimed beside a failed claim are dialed first; then the round reports the failure.
      const failed = claims.find((c) => c.status === 'rejected')
      if (failed) throw failed.reason
    } else {
      for (const agent of agents) {
        if (this.#stopping) break
        started += await this.#dialClaimed(agent, await claimFor(agent), now)
      }
    }
    return started
  }

  /** Dials a claimed lead and returns 1; returns 0 when no lead was due. */
  async #dialClaimed(
    agent: NonNullable<ReturnType<AgentTracker['byId']>>,
    lead: ClaimedLead | undefined,
    now: Date,
  ): Promise<number> {
    if (!lead) return 0
    this.stats.claims += 1
    this.metrics.claims.inc({ mode: 'progressive' })
    // A claimed lead is reserved: it is dialed even if a stop began meanwhile.
    await this.#originate(agent, lead, now)
    return 1
  }

  /** A claim under a token of this process's (calls/call-key.ts), its time observed (claim latency). */
  async #timedClaim(
    mode: 'progressive',
    req: Parameters<typeof claimLead>[1],
  ): Promise<ClaimedLead | undefined> {
    const end = this.metrics.claimSeconds.startTimer({ mode })
    const token = this.#issued.issue()
    try {
      const lead = await claimLead(this.#d.db, { ...req, token }, this.#dueProbes)
      end({ result: lead ? 'claimed' : 'none' })
      if (!lead) this.#issued.drop(token)
      return lead
    } catch (err) {
      end({ result: 'error' })
      this.#issued.drop(token)
      throw err
    }
  }

  async #originate(
    agent: NonNullable<ReturnType<AgentTracker['byId']>>,
    lead: ClaimedLead,
    now: Date,
  ): Promise<void> {
    const cfg = this.#d.config
    const accepted = await originateCall(
      {
        ami: this.#d.ami,
        calls: this.#calls,
        logger: this.#d.logger,
        metrics: this.metrics,
        trunk: this.#trunk,
        fence: this.#fence,
      },
      {
        leadId: lead.id,
        oliId: lead.oli_id,
        phone: lead.phone_number,
        phoneE164: lead.phone_e164,
        claimToken: lead.claim_token,
        agent,
        startedAt: now,
        deadline: new Date(now.getTime() + (cfg.ringTimeoutSeconds + cfg.callTimeoutSeconds) * 1000),
        originateDeadline: new Date(now.getTime() + (cfg.ringTimeoutSeconds + 30) * 1000),
      },
      ({ key, actionId }) =>
        progressiveOriginate(
          {
            agentChannelTemplate: cfg.agentChannelTemplate,
            dialNumberFormat: cfg.dialNumberFormat,
            customerContext: cfg.customerContext,
            ringTimeoutSeconds: cfg.ringTimeoutSeconds,
            dialerId: this.#d.dialerId,
            outboundCallerId: cfg.outboundCallerId,
            amd: cfg.amd,
          },
          agent,
          lead,
          key,
          actionId,
        ),
      { agent: agent.extension },
    )
    if (!accepted) this.stats.originateFailures += 1
  }

  #onEvent(event: AmiMessage): void {
    this.#desks.onEvent(event)
    this.#calls.handle(event)
  }

  #onFinished(call: TrackedCall, result: CallResult): void {
    this.#observeTimes(call, result)
    this.#trunk.finished(call, result)
    // A lead whose call was never placed is not offered again at once: a PBX that refuses every
    // originate must not turn into a tight claim/restore loop.
    if (result.outcome === 'Failed') this.#cooldown.set(call.leadId, this.#now().getTime())
    if (call.mode !== 'predictive' && call.agent && call.originateResponse?.success === false) {
      this.#agents.rest(call.agent.id)
    }
    const count = call.mode === 'predictive' ? this.#predictive?.onFinished(call, result) : undefined
    this.#d.logger.info(
      {
        lead: call.leadId,
        oli_id: call.oliId,
        outcome: result.outcome,
        why: result.why,
        dialStatus: result.dialStatus,
        ...callDurations(call, result),
      },
      'call finished',
    )
    this.#settles.write(call, result, count)
  }

  /**
   * Notes the answer on the call's open attempt row, so that a call adopted after a crash keeps its
   * talk time. Not awaited: the settle writes the answer anyway; a failure is only logged.
   */
  #noteAnswer(call: TrackedCall): void {
    const at = call.answeredAt ?? this.#now()
    recordAnswered(this.#d.db.kysely, call.key, at).catch((err: unknown) =>
      this.#d.logger.debug({ err, lead: call.leadId }, 'answer not noted on the attempt row'),
    )
  }

  /** Ring, talk and hold times of a finished call (histograms). */
  #observeTimes(call: TrackedCall, result: CallResult): void {
    const mode = call.mode ?? 'progressive'
    const answered = call.answeredAt?.getTime()
    if (answered === undefined) return
    this.metrics.ringSeconds.observe({ mode }, Math.max(0, answered - call.startedAt.getTime()) / 1000)
    // Progressive: the agent was on the line when the customer answered.
    const connected = mode === 'predictive' ? call.bridgedAt?.getTime() : answered
    const ended = result.endedAt.getTime()
    if (connected !== undefined)
      this.metrics.talkSeconds.observe({ mode }, Math.max(0, ended - connected) / 1000)
    // A machine AMD hung up never waited for an agent.
    if (mode === 'predictive' && result.outcome !== 'Machine') {
      this.metrics.holdSeconds.observe(
        { result: connected === undefined ? 'abandoned' : 'connected' },
        Math.max(0, (connected ?? ended) - answered) / 1000,
      )
    }
  }

  async #refreshRoster(): Promise<void> {
    this.#agents.setRoster(await loadRoster(this.#d.db.kysely, this.#d.config.pbxName))
    this.#dialable = await loadDialablePriorities(this.#d.db.kysely)
    // Dates each agent's and call's state at every roster pass too, not only when it is read, so
    // "since when" is known to the roster period. Memory only: 2.8 ms at 500 agents and 300 calls.
    this.liveState()
    // A desk that joined the roster since the login: ask Asterisk for its state (DeskStates).
    if (this.#synced && this.#d.ami.state === 'connected') {
      await this.#desks.askMissing(this.#d.ami, this.#extensions())
    }
  }

  async #refreshZones(): Promise<void> {
    const window = this.#d.config.customerHours
    if (!window) return
    this.#zones = await readStoredZones(this.#d.db.kysely)
    // A number that maps to several zones is called only when it is inside CALLING_HOURS in all of
    // them; when their windows never meet, its leads wait for ever. Said once per stored value.
    for (const value of this.#zones.values) {
      if (this.#zonesChecked.has(value)) continue
      this.#zonesChecked.add(value)
      if (nextCallableMoment(this.#now(), zonesOfColumn(value), window, null) === null) {
        this.#d.logger.warn(
          { customerTz: value, callingHours: `${window.start}-${window.end}` },
          'leads of these customer zones are never called: their calling hours never overlap',
        )
      }
    }
  }

  #extensions(): string[] {
    return this.#agents.activeExtensions()
  }

  async #heartbeat(state?: string): Promise<void> {
    const now = this.#now()
    const active = this.#calls.active()
    await refreshReservations(
      this.#d.db.kysely,
      this.#d.dialerId,
      active.map((c) => c.leadId),
      active.flatMap((c) => (c.agent ? [c.agent.id] : [])),
      now,
    )
    await writeHeartbeat(this.#d.db.kysely, {
      dialer_id: this.#d.dialerId,
      hostname: this.#d.hostname,
      pid: process.pid,
      dial_mode: this.#d.config.dialMode,
      pbx: this.#d.config.pbxName,
      started_at: toDbTime(this.#startedAt),
      seen_at: toDbTime(now),
      ami_state: state ?? this.#d.ami.state,
      active_calls: active.length,
      details: JSON.stringify({
        ...this.stats,
        pendingSettles: this.#settles.pendingCount,
        trunk: this.#trunk.snapshot(),
        ...(this.#predictive ? { governor: this.#predictive.snapshot() } : {}),
      }),
    })
  }

  /**
   * At each AMI login: learn the desks' states, then settle, follow or release this dialer's calls and
   * reservations (calls/reconcile.ts).
   */
  /**
   * Runs a sync now, or once more after the one under way (a login came during it): never two at once,
   * which would adopt or release the same reservation twice.
   */
  #sync(): Promise<void> {
    if (this.#syncRun) {
      this.#syncAgain = true
      return this.#syncRun
    }
    this.#syncRun = (async () => {
      do {
        this.#syncAgain = false
        await this.#syncOnce()
      } while (this.#syncAgain && !this.#stopping && this.#d.ami.state === 'connected')
    })().finally(() => {
      this.#syncRun = undefined
    })
    return this.#syncRun
  }

  async #syncOnce(): Promise<void> {
    try {
      await this.#desks.sync(this.#d.ami, this.#extensions())
      await reconcileAfterLogin({
        config: this.#d.config,
        db: this.#d.db.kysely,
        ami: this.#d.ami,
        dialerId: this.#d.dialerId,
        agents: this.#agents,
        calls: this.#calls,
        settles: this.#settles,
        countUnknown: this.#countUnknown,
        issued: this.#issued,
        metrics: this.metrics,
        logger: this.#d.logger,
        now: this.#now,
      })
      this.#synced = true
      if (this.#syncFailure !== null) this.#d.logger.info('AMI sync succeeded after failing')
      this.#syncFailure = null
    } catch (err) {
      // A PBX still starting can accept the login and fail the lists; the connection then stays up,
      // so waiting for the next login would leave calls unsettled and agents unclaimed: try again.
      // The same failure every second is logged once at warn, then at debug.
      const why = err instanceof Error ? err.message : String(err)
      if (this.#availability.report(err) === undefined) {
        if (why === this.#syncFailure) this.#d.logger.debug({ err }, 'AMI sync failed again')
        else this.#d.logger.warn({ err }, 'AMI sync failed; trying again every second')
      }
      this.#syncFailure = why
      this.#after(SYNC_RETRY_MS, () => {
        if (this.#d.ami.state === 'connected' && !this.#synced) void this.#sync()
      })
    }
  }

  async #expireCalls(): Promise<void> {
    await this.#predictive?.expireHolds()
    if (this.#predictive) await this.#predictive.bridgeWaiting()
    for (const call of this.#calls.expire()) {
      for (const leg of call.legs.values()) {
        if (leg.hungUp) continue
        await this.#d.ami
          .action({ action: 'Hangup', channel: leg.name })
          .catch((err) =>
            this.#d.logger.debug({ err, channel: leg.name }, 'hangup of an expired call failed'),
          )
      }
    }
  }

  /** Any dialer releases reservations whose holder stopped refreshing them (calls/release-expired.ts). */
  async #releaseExpired(): Promise<void> {
    await releaseExpired({
      db: this.#d.db.kysely,
      ami: this.#d.ami,
      logger: this.#d.logger,
      metrics: this.metrics,
      now: this.#now(),
      timeoutSeconds: this.#d.config.reservationTimeoutSeconds,
      countUnknown: this.#countUnknown,
      issued: this.#issued,
      pbx: this.#d.config.pbxName,
    })
  }
}
