import { randomBytes } from 'node:crypto'
import { type AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import type { Db } from '@hold-dialer/db'
import { type Config, deskStateSource, isWithinWorkingHours, toDbTime } from '@hold-dialer/rules'
import type { Logger } from 'pino'
import { AgentTracker } from './agents/agent-tracker.js'
import { DeskStates } from './agents/desk-states.js'
import { type CallResult, CallTracker, type TrackedCall } from './calls/call-tracker.js'
import { agentChannel, progressiveOriginate } from './calls/originate.js'
import { PredictiveEngine } from './predictive.js'
import { type SettleContext, settleCall } from './settle.js'
import { loadDialablePriorities, loadRoster } from './sql/agents.js'
import { type ClaimedLead, claimLead } from './sql/claim.js'
import { refreshReservations, writeHeartbeat } from './sql/heartbeat.js'
import {
  expiredReservations,
  ownReservations,
  releaseReservation,
  releaseStaleAgents,
} from './sql/release-stale.js'

export interface DialerDeps {
  config: Config
  db: Db
  ami: AmiClient
  logger: Logger
  dialerId: string
  hostname: string
  now?: () => Date
  /** Loop periods, ms (tests shorten them). */
  timing?: Partial<DialerTiming>
}

export interface DialerTiming {
  claimIdleMs: number
  rosterMs: number
  staleMs: number
  expireMs: number
  settleRetryMs: number
}

const DEFAULT_TIMING: DialerTiming = {
  claimIdleMs: 500,
  rosterMs: 1000,
  staleMs: 30_000,
  expireMs: 1000,
  settleRetryMs: 2000,
}

/** Delay before a failed AMI sync (device states, live channels, own reservations) is tried again. */
const SYNC_RETRY_MS = 1000

/** A lead whose originate failed is not claimed again by this dialer for this long. */
const FAILED_ORIGINATE_COOLDOWN_MS = 60_000

interface PendingSettle {
  call: TrackedCall
  result: CallResult
}

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
  readonly #d: DialerDeps
  readonly #now: () => Date
  readonly #timing: DialerTiming
  readonly #agents: AgentTracker
  readonly #desks: DeskStates
  readonly #calls: CallTracker
  readonly #settle: SettleContext
  readonly #pending: PendingSettle[] = []
  readonly #cooldown = new Map<number, number>()
  readonly #timers: NodeJS.Timeout[] = []
  #dialable: number[] = []
  readonly #predictive: PredictiveEngine | undefined
  #synced = false
  #stopping = false
  #claiming: Promise<void> | undefined
  #startedAt: Date
  #settling = new Set<Promise<unknown>>()
  /** The last AMI failure logged, so a failing login is logged once, and again only when it changes. */
  #amiFailure: string | null = null

  constructor(deps: DialerDeps) {
    this.#d = deps
    this.#now = deps.now ?? (() => new Date())
    this.#startedAt = this.#now()
    this.#timing = { ...DEFAULT_TIMING, ...deps.timing }
    this.#desks = new DeskStates(
      deskStateSource(deps.config.agentChannelTemplate, deps.config.agentDeviceTemplate),
      deps.logger,
    )
    this.#agents = new AgentTracker((ext) => this.#desks.state(ext))
    this.#calls = new CallTracker(this.#now, (call, result) => this.#onFinished(call, result), {
      onAnswered: (call) => this.#predictive?.onAnswered(call),
      onAgentLegFailed: (call) => this.#predictive?.onAgentLegFailed(call),
    })
    if (deps.config.dialMode === 'predictive') {
      this.#predictive = new PredictiveEngine({
        config: deps.config,
        db: deps.db.db,
        conn: deps.db,
        ami: deps.ami,
        agents: this.#agents,
        calls: this.#calls,
        logger: deps.logger,
        now: this.#now,
        dialerId: deps.dialerId,
        dialable: () => this.#dialable,
        cooldown: () => [...this.#cooldown.keys()],
        busyHere: () => this.#calls.busyAgentIds(),
        onClaimed: () => {
          this.stats.claims += 1
        },
      })
    }
    this.#settle = {
      db: deps.db.db,
      dialerId: deps.dialerId,
      mode: deps.config.callbackMode,
      dialMode: deps.config.dialMode,
      policy: deps.config.retryPolicy,
      abandonRetrySeconds: deps.config.abandonRetrySeconds,
      wrapSeconds: deps.config.wrapSeconds,
      rnrMailTo: deps.config.smtp.to,
      now: this.#now,
    }
  }

  /** Predictive mode's governor state (dial level, window, budget); undefined in progressive mode. */
  governor() {
    return this.#predictive?.snapshot()
  }

  get activeCalls(): number {
    return this.#calls.size
  }

  async start(): Promise<void> {
    const { ami } = this.#d
    ami.on('event', (e: AmiMessage) => this.#onEvent(e))
    ami.on('state', (s: string) => this.#onAmiState(s))
    await this.#refreshRoster()
    await this.#heartbeat()
    if (ami.state === 'connected') await this.#sync()
    this.#every(this.#timing.rosterMs, () => this.#refreshRoster())
    this.#every(this.#d.config.heartbeatSeconds * 1000, () => this.#heartbeat())
    this.#every(this.#timing.staleMs, () => this.#releaseExpired())
    this.#every(this.#timing.expireMs, async () => this.#expireCalls())
    this.#every(this.#timing.settleRetryMs, () => this.#retryPendingSettles())
    this.#scheduleClaim(0)
  }

  #onAmiState(state: string): void {
    if (state === 'connected') {
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
    await this.#claiming
    const deadline = Date.now() + graceMs
    while ((this.#calls.size > 0 || this.#settling.size > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
    }
    await Promise.allSettled([...this.#settling])
    await this.#retryPendingSettles()
    await this.#heartbeat('stopped').catch((err) =>
      this.#d.logger.warn({ err }, 'last heartbeat not written'),
    )
  }

  #every(ms: number, fn: () => Promise<unknown>): void {
    const run = async () => {
      if (this.#stopping) return
      try {
        await fn()
      } catch (err) {
        this.#d.logger.warn({ err }, 'periodic task failed')
      }
      if (!this.#stopping) this.#timers.push(setTimeout(run, ms))
    }
    this.#timers.push(setTimeout(run, ms))
  }

  #scheduleClaim(ms: number): void {
    if (this.#stopping) return
    this.#timers.push(
      setTimeout(() => {
        this.#claiming = this.#claimRound()
          .catch((err: Error) => {
            this.#d.logger.warn({ err }, 'claim round failed')
            return 0
          })
          .then((claimed) => this.#scheduleClaim(claimed > 0 ? 0 : this.#timing.claimIdleMs))
      }, ms),
    )
  }

  /** One pass over the available agents; returns how many calls it started. */
  async #claimRound(): Promise<number> {
    if (!this.#synced || this.#d.ami.state !== 'connected' || this.#stopping) return 0
    const cutoffMs = this.#now().getTime() - FAILED_ORIGINATE_COOLDOWN_MS
    for (const [id, at] of this.#cooldown) if (at < cutoffMs) this.#cooldown.delete(id)
    if (this.#predictive) return this.#predictive.round()
    const now = this.#now()
    const inHours = isWithinWorkingHours(now, this.#d.config.hours)
    const agents = [...this.#agents.available(now, this.#calls.busyAgentIds())]
    const excludeIds = [...this.#cooldown.keys()]
    const claimFor = (agent: (typeof agents)[number]) =>
      claimLead(this.#d.db, {
        agentId: agent.id,
        dialerId: this.#d.dialerId,
        now,
        inHours,
        dialablePriorities: this.#dialable,
        pinnedAgentId: this.#d.config.callbackMode === 'pinned' ? agent.id : null,
        excludeIds,
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
    // A claimed lead is reserved: it is dialed even if a stop began meanwhile.
    await this.#originate(agent, lead, now)
    return 1
  }

  async #originate(
    agent: NonNullable<ReturnType<AgentTracker['byId']>>,
    lead: ClaimedLead,
    now: Date,
  ): Promise<void> {
    const key = `hd-${lead.id}-${randomBytes(4).toString('hex')}`
    const actionId = this.#d.ami.nextActionId()
    const cfg = this.#d.config
    this.#calls.add({
      key,
      actionId,
      leadId: lead.id,
      oliId: lead.oli_id,
      phone: lead.phone_number,
      agent,
      startedAt: now,
      deadline: new Date(now.getTime() + (cfg.ringTimeoutSeconds + cfg.callTimeoutSeconds) * 1000),
      originateDeadline: new Date(now.getTime() + (cfg.ringTimeoutSeconds + 30) * 1000),
    })
    const action = progressiveOriginate(
      {
        agentChannelTemplate: cfg.agentChannelTemplate,
        customerContext: cfg.customerContext,
        ringTimeoutSeconds: cfg.ringTimeoutSeconds,
        dialerId: this.#d.dialerId,
      },
      agent,
      lead,
      key,
      actionId,
    )
    this.#d.logger.info({ lead: lead.id, oli_id: lead.oli_id, agent: agent.extension, key }, 'calling')
    try {
      await this.#d.ami.action(action)
    } catch (err) {
      const refused = (err as { reply?: unknown }).reply !== undefined
      this.stats.originateFailures += 1
      this.#d.logger.warn({ lead: lead.id, err, refused }, 'originate not accepted')
      // A refusal is final. A timeout may still have placed the call: wait for its events until the
      // originate deadline before treating it as never placed.
      if (refused) this.#calls.originateRefused(key)
    }
  }

  #onEvent(event: AmiMessage): void {
    this.#desks.onEvent(event)
    this.#calls.handle(event)
  }

  #onFinished(call: TrackedCall, result: CallResult): void {
    // A lead whose call was never placed is not offered again at once: a PBX that refuses every
    // originate must not turn into a tight claim/restore loop.
    if (result.outcome === 'Failed') this.#cooldown.set(call.leadId, this.#now().getTime())
    if (call.mode === 'predictive' && this.#predictive) {
      this.#predictive.onFinished(call, result).catch((err: Error) => {
        this.#d.logger.warn({ err }, 'governor count not written')
      })
    }
    this.#d.logger.info(
      {
        lead: call.leadId,
        oli_id: call.oliId,
        outcome: result.outcome,
        why: result.why,
        dialStatus: result.dialStatus,
      },
      'call finished',
    )
    this.#writeSettle({ call, result })
  }

  #writeSettle(p: PendingSettle): void {
    const job = settleCall(this.#settle, p.call, p.result)
      .then((outcome) => {
        if (outcome === 'restored') this.stats.restored += 1
        else if (outcome === 'settled') this.stats.settled += 1
        else
          this.#d.logger.warn(
            { lead: p.call.leadId },
            'settle skipped: the reservation is no longer this dialer’s',
          )
      })
      .catch((err: Error) => {
        this.stats.settleErrors += 1
        this.#d.logger.error({ lead: p.call.leadId, err }, 'settle failed; kept to write again')
        this.#pending.push(p)
      })
      .finally(() => this.#settling.delete(job))
    this.#settling.add(job)
  }

  async #retryPendingSettles(): Promise<void> {
    const batch = this.#pending.splice(0)
    for (const p of batch) this.#writeSettle(p)
    await Promise.allSettled([...this.#settling])
  }

  async #refreshRoster(): Promise<void> {
    this.#agents.setRoster(await loadRoster(this.#d.db.db))
    this.#dialable = await loadDialablePriorities(this.#d.db.db)
    // A desk that joined the roster since the login: ask Asterisk for its state (DeskStates).
    if (this.#synced && this.#d.ami.state === 'connected') {
      await this.#desks.askMissing(this.#d.ami, this.#extensions())
    }
  }

  #extensions(): string[] {
    return this.#agents.activeExtensions()
  }

  async #heartbeat(state?: string): Promise<void> {
    const now = this.#now()
    const active = this.#calls.active()
    await refreshReservations(
      this.#d.db.db,
      this.#d.dialerId,
      active.map((c) => c.leadId),
      active.flatMap((c) => (c.agent ? [c.agent.id] : [])),
      now,
    )
    await writeHeartbeat(this.#d.db.db, {
      dialer_id: this.#d.dialerId,
      hostname: this.#d.hostname,
      pid: process.pid,
      dial_mode: this.#d.config.dialMode,
      started_at: toDbTime(this.#startedAt),
      seen_at: toDbTime(now),
      ami_state: state ?? this.#d.ami.state,
      active_calls: active.length,
      details: JSON.stringify({
        ...this.stats,
        pendingSettles: this.#pending.length,
        ...(this.#predictive ? { governor: this.#predictive.snapshot() } : {}),
      }),
    })
  }

  /**
   * At each AMI login: learn the desks' device states, settle calls that ended while events were lost,
   * and release this dialer's reservations that have no live channel (a restart after a crash).
   */
  async #sync(): Promise<void> {
    try {
      await this.#desks.sync(this.#d.ami, this.#extensions())
      const channels = await this.#d.ami.listAction({ action: 'CoreShowChannels' })
      const live = new Set(
        channels.flatMap((c) =>
          [header(c, 'linkedid'), header(c, 'uniqueid')].filter((x): x is string => !!x),
        ),
      )
      this.#calls.reconcile(live)
      // Calls just finished by reconcile (or before) are being written: let them land first, so
      // their leads are not mistaken for reservations without a call.
      await Promise.allSettled([...this.#settling])
      const pendingLeads = new Set(this.#pending.map((p) => p.call.leadId))
      const mine = await ownReservations(this.#d.db.db, this.#d.dialerId)
      const tracked = new Set(this.#calls.active().map((c) => c.leadId))
      let released = 0
      for (const row of mine) {
        if (tracked.has(row.id) || pendingLeads.has(row.id)) continue
        const prefix = `hd-${row.id}-`
        const legs = channels.filter((c) => header(c, 'linkedid')?.startsWith(prefix))
        if (legs.length > 0) {
          this.#adopt(row.id, row.oli_id, legs)
          continue
        }
        if (await releaseReservation(this.#d.db.db, row.id, this.#d.dialerId)) released += 1
      }
      await releaseStaleAgents(this.#d.db.db, {
        heldBy: this.#d.dialerId,
        except: [...this.#calls.busyAgentIds()],
      })
      if (released > 0)
        this.#d.logger.info({ released }, 'released reservations of a previous run with no live channel')
      this.#synced = true
    } catch (err) {
      // A PBX still starting can accept the login and fail the lists; the connection then stays up,
      // so waiting for the next login would leave calls unsettled and agents unclaimed: try again.
      this.#d.logger.warn({ err }, 'AMI sync failed; trying again in a second')
      if (!this.#stopping) {
        this.#timers.push(
          setTimeout(() => {
            if (this.#d.ami.state === 'connected' && !this.#synced) void this.#sync()
          }, SYNC_RETRY_MS),
        )
      }
    }
  }

  /**
   * A call this dialer placed before a restart is still up: follow it again (its legs from
   * CoreShowChannels, its end from their Hangup events) and settle it when it ends, so a customer who
   * is talking is not released and dialed again.
   */
  #adopt(leadId: number, oliId: string, legs: AmiMessage[]): void {
    const key = header(legs[0]!, 'linkedid')!
    const channels = legs.map((l) => ({
      uniqueid: header(l, 'uniqueid') ?? '',
      name: header(l, 'channel') ?? '',
      up: header(l, 'channelstate') === '6' || header(l, 'channelstatedesc') === 'Up',
    }))
    // Progressive: the originated channel is the agent's desk (`PJSIP/1001-0000002a`,
    // `Local/1001@agents-00000003;1`). Predictive: the agent is found when the call settles.
    const template = this.#d.config.agentChannelTemplate
    const desk = channels.find((c) => c.uniqueid === key)?.name.toLowerCase()
    const agent =
      this.#d.config.dialMode === 'progressive'
        ? this.#agents
            .all()
            .find((a) => desk?.startsWith(`${agentChannel(template, a.extension).toLowerCase()}-`))
        : undefined
    const now = this.#now()
    this.#calls.adopt(
      {
        key,
        mode: this.#d.config.dialMode,
        actionId: `adopted-${key}`,
        leadId,
        oliId,
        phone: '',
        agent: agent ?? null,
        startedAt: now,
        deadline: new Date(now.getTime() + this.#d.config.callTimeoutSeconds * 1000),
        originateDeadline: new Date(now.getTime() + this.#d.config.callTimeoutSeconds * 1000),
      },
      channels,
    )
    this.#d.logger.warn(
      { lead: leadId, legs: legs.length },
      'a call of a previous run is still live: following it to its end',
    )
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

  /** Any dialer releases reservations whose holder stopped refreshing them (DECISIONS section 8). */
  async #releaseExpired(): Promise<void> {
    const timeout = this.#d.config.reservationTimeoutSeconds
    const { cutoff, rows } = await expiredReservations(this.#d.db.db, this.#now(), timeout)
    let released = 0
    for (const r of rows)
      if (await releaseReservation(this.#d.db.db, r.id, r.reservedBy, cutoff)) released += 1
    const agents = await releaseStaleAgents(this.#d.db.db, { olderThan: cutoff })
    if (released + agents > 0)
      this.#d.logger.warn({ released, agents, timeout }, 'released expired reservations')
  }
}
