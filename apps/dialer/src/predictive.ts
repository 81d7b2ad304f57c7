import { AmiActionError, type AmiClient } from '@hold-dialer/ami'
import { type Database, type Db, withTransaction } from '@hold-dialer/db'
import {
  type AmdWindowTotals,
  type Config,
  governedWindow,
  isWithinWorkingHours,
  type PacingDecision,
  pacing,
} from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Agent, AgentTracker } from './agents/agent-tracker.js'
import { amdOn, noteAmdVerdict } from './calls/amd.js'
import type { IssuedClaims } from './calls/call-key.js'
import { logCallPhase } from './calls/call-progress.js'
import type { CallResult, CallTracker, TrackedCall } from './calls/call-tracker.js'
import { predictiveOriginate } from './calls/originate.js'
import { CLAIM_RECHECK_MS, type OriginateDeps, originateCall } from './calls/originate-call.js'
import type { DialerTrunkBreaker } from './calls/trunk-breaker.js'
import { type ClaimedLead, claimLead, type DueProbeMemo } from './claim/claim.js'
import type { ClaimRules } from './claim/rules.js'
import type { DialerMetrics } from './metrics.js'
import type { AnsweredCount } from './settle.js'
import { windowTotals } from './sql/abandon-stats.js'
import { holdsAgent, releaseAgent, takeAgent } from './sql/take-agent.js'

export interface PredictiveContext {
  config: Config
  db: Kysely<Database>
  /** The same database, for the claim's batch transaction. */
  conn: Db
  ami: AmiClient
  agents: AgentTracker
  calls: CallTracker
  logger: Logger
  now: () => Date
  dialerId: string
  dialable(): number[]
  /** The calling rules' part of a claim at `now` (claim/rules.ts). */
  rules(now: Date): ClaimRules
  cooldown(): number[]
  /** The dialer's memo of claims that found nothing due (claim/due-probe.ts). */
  dueProbes?: DueProbeMemo
  /** Agents held by this dialer's calls. */
  busyHere(): Set<number>
  onClaimed(): void
  /** The trunk breaker: how many calls may be placed now, and told of each one placed. */
  trunk?: DialerTrunkBreaker
  /** Checks a claim that aged before its call was placed (calls/originate-call.ts). */
  fence?: OriginateDeps['fence']
  /** Claim tokens of this process whose calls have not finished (calls/call-key.ts). */
  issued?: IssuedClaims
  /** Claim latency and originates. */
  metrics?: DialerMetrics
}

/**
 * Answer-rate samples kept (the last finished lines), and how many are needed before the dial level
 * leaves 1. 50 follows a sudden change within a few minutes of dialing; 200 lagged so long after the
 * answer rate doubled that the simulation's abandon rate after the shift went over the cap in 5 of 50
 * seeded runs (2 of 50 with 50).
 */
const ANSWER_SAMPLES = 50
const MIN_ANSWER_SAMPLES = 20
/** Dial-to-answer delays kept for the forecast, and how many are needed before it uses them. */
const DELAY_SAMPLES = 100
const MIN_DELAY_SAMPLES = 10
/** Wrap-ups ending within this are paced for now: about the time a dialed customer takes to answer. */
const SOON_FREE_MS = 15_000
/** Answered calls in the recent abandon rate that throttles the dial level. */
const RECENT_ANSWERED = 200
/** How long past AMD()'s own limit a verdict is waited for before the customer is taken as a person. */
const VERDICT_GRACE_MS = 2_000
/** How often the shared window totals are read back from the database. */
const WINDOW_REFRESH_MS = 5_000

export interface GovernorSnapshot {
  window: string
  answered: number
  abandoned: number
  /** Calls AMD hung up as machines in the window (a share of them is in `answered` and `abandoned`). */
  machines: number
  rate: number
  budget: number
  dialLevel: number
  answerRate: number | null
  waiting: number
  inFlight: number
}

/**
 * Predictive dialing: customers are dialed first into HOLD_CONTEXT; each one who answers is sent
 * (AMI Redirect to AGENT_CONTEXT / the agent's extension) to an idle ready agent, oldest answer first.
 * How many lines to dial comes from `pacing` (packages/rules) with the abandon-rate governor's window,
 * which lives in the database. A customer with no agent within HOLD_TIMEOUT_SECONDS is hung up:
 * Abandoned. Pinned mode's pinned leads are never in the pool: each is dialed only for its own idle
 * agent, who is held for it, and is bridged to that extension only.
 */
export class PredictiveEngine {
  readonly #c: PredictiveContext
  readonly #waiting: TrackedCall[] = []
  /** Answered customers AMD() is listening to, not yet queued. */
  readonly #detecting: TrackedCall[] = []
  readonly #samples: boolean[] = []
  /** Seconds from dialing to the answer, for recent answered calls. */
  readonly #delays: number[] = []
  /** Abandoned or not, for this dialer's most recent answered calls (the pacing's recent rate). */
  readonly #recent: boolean[] = []
  #window: AmdWindowTotals = { answered: 0, abandoned: 0, machines: 0 }
  #windowReadAt = 0
  #last: PacingDecision | undefined
  #bridging: Promise<void> = Promise.resolve()

  constructor(ctx: PredictiveContext) {
    this.#c = ctx
  }

  /** The window as the governor counts it: people, plus the configured share of machines hung up. */
  #governed(): { answered: number; abandoned: number } {
    return governedWindow(this.#window, this.#c.config.amd.machineAbandonShare)
  }

  snapshot(): GovernorSnapshot {
    const d = this.#last
    const w = this.#governed()
    return {
      window: this.#c.config.abandonWindow,
      answered: w.answered,
      abandoned: w.abandoned,
      machines: this.#window.machines,
      rate: w.answered === 0 ? 0 : w.abandoned / w.answered,
      budget: d?.budget ?? 0,
      dialLevel: d?.dialLevel ?? 1,
      answerRate: this.#answerRate(),
      waiting: this.#waiting.length,
      inFlight: this.#inFlight(),
    }
  }

  #answerRate(): number | null {
    if (this.#samples.length < MIN_ANSWER_SAMPLES) return null
    return this.#samples.filter(Boolean).length / this.#samples.length
  }

  #inFlight(): number {
    return this.#ringing().length
  }

  /** This dialer's customer lines whose originate failed, waiting for their last events. */
  #failing(): number {
    return this.#c.calls.active().filter((c) => c.mode === 'predictive' && c.failedAt).length
  }

  /** This dialer's customer lines dialing, not yet answered. */
  #ringing(): TrackedCall[] {
    return this.#c.calls.active().filter((c) => c.mode === 'predictive' && !c.answeredAt && !c.failedAt)
  }

  #windowStart(now: Date): Date {
    const ms = this.#c.config.abandonWindow === '24h' ? 24 * 3600_000 : 30 * 24 * 3600_000
    return new Date(now.getTime() - ms)
  }

  /** One pacing pass: pinned leads for their free agents, then the pool; returns the lines dialed. */
  async round(): Promise<number> {
    const now = this.#c.now()
    if (Date.now() - this.#windowReadAt >= WINDOW_REFRESH_MS) {
      this.#window = await windowTotals(this.#c.db, this.#windowStart(now))
      this.#windowReadAt = Date.now()
    }
    const inHours = isWithinWorkingHours(now, this.#c.config.hours)
    // Worked out once per pass, as the progressive round does: the zones in hours, the caps' limits.
    const rules = this.#c.rules(now)
    let dialed = 0
    // While the trunk breaker is open, at most one try now and then (asked before each line: it
    // may open during the round); customers on hold are still sent to agents below.
    const mayDial = () => (this.#c.trunk?.permits() ?? 1) > 0
    const busy = this.#c.busyHere()
    let idle = this.#c.agents.available(now, busy)
    if (this.#c.config.callbackMode === 'pinned') {
      for (const agent of idle) {
        if (!mayDial()) break
        const lead = await this.#claim(now, inHours, agent, rules)
        if (lead) {
          dialed += 1
          busy.add(agent.id)
          await this.#originate(lead, agent, now)
        }
      }
      idle = idle.filter((a) => !busy.has(a.id))
    }
    const decision = pacing({
      readyAgents: this.#c.agents.readyCount(now),
      idleAgents: idle.length,
      soonFree: this.#c.agents.soonFree(now, busy, SOON_FREE_MS),
      waiting: this.#waiting.length,
      // A line whose originate failed is still counted until its call ends (a moment later): else
      // a trunk that creates no channel is dialed again at every round meanwhile.
      inFlight: this.#inFlight() + this.#failing(),
      answerRate: this.#answerRate(),
      window: this.#governed(),
      recent: { answered: this.#recent.length, abandoned: this.#recent.filter(Boolean).length },
      abandonRateMax: this.#c.config.abandonRateMax,
      maxDialLevel: this.#c.config.maxDialLevel,
      forecast: {
        ringingSeconds: this.#ringing().map((c) => (now.getTime() - c.startedAt.getTime()) / 1000),
        wrapRemainingSeconds: this.#c.agents.wrapRemaining(now, busy).map((ms) => ms / 1000),
        answerDelayMean:
          this.#delays.length < MIN_DELAY_SAMPLES
            ? null
            : this.#delays.reduce((a, b) => a + b, 0) / this.#delays.length,
        ringTimeoutSeconds: this.#c.config.ringTimeoutSeconds,
        complianceSeconds: this.#c.config.complianceSeconds,
      },
    })
    this.#last = decision
    for (let i = 0; i < decision.lines && mayDial(); i++) {
      const lead = await this.#claim(now, inHours, null, rules)
      if (!lead) break
      dialed += 1
      await this.#originate(lead, null, now)
    }
    await this.bridgeWaiting()
    return dialed
  }

  async #claim(
    now: Date,
    inHours: boolean,
    agent: Agent | null,
    rules: ClaimRules,
  ): Promise<ClaimedLead | undefined> {
    const end = this.#c.metrics?.claimSeconds.startTimer({ mode: 'predictive' })
    const token = this.#c.issued?.issue()
    const lead = await claimLead(
      this.#c.conn,
      {
        agentId: agent?.id ?? null,
        agentExtension: agent?.extension ?? null,
        dialMode: 'predictive',
        dialerId: this.#c.dialerId,
        now,
        inHours,
        dialablePriorities: this.#c.dialable(),
        pinnedAgentId: agent?.id ?? null,
        onlyMine: agent !== null,
        unpinnedOnly: this.#c.config.callbackMode === 'pinned',
        callbackMode: this.#c.config.callbackMode,
        excludeIds: this.#c.cooldown(),
        ...rules,
        ...(token ? { token } : {}),
      },
      this.#c.dueProbes,
    ).catch((err: unknown) => {
      end?.({ result: 'error' })
      this.#c.issued?.drop(token)
      throw err
    })
    end?.({ result: lead ? 'claimed' : 'none' })
    if (!lead) this.#c.issued?.drop(token)
    if (lead) this.#c.onClaimed()
    return lead
  }

  async #originate(lead: ClaimedLead, pinnedAgent: Agent | null, now: Date): Promise<void> {
    const cfg = this.#c.config
    await originateCall(
      {
        ami: this.#c.ami,
        calls: this.#c.calls,
        logger: this.#c.logger,
        metrics: this.#c.metrics,
        trunk: this.#c.trunk,
        fence: this.#c.fence,
      },
      {
        mode: 'predictive',
        leadId: lead.id,
        oliId: lead.oli_id,
        phone: lead.phone_number,
        phoneE164: lead.phone_e164,
        claimToken: lead.claim_token,
        agent: pinnedAgent,
        pinned: pinnedAgent !== null,
        startedAt: now,
        deadline: new Date(
          now.getTime() + (cfg.ringTimeoutSeconds + cfg.holdTimeoutSeconds + cfg.callTimeoutSeconds) * 1000,
        ),
        originateDeadline: new Date(now.getTime() + (cfg.ringTimeoutSeconds + 30) * 1000),
      },
      ({ key, actionId }) => predictiveOriginate({ ...cfg, dialerId: this.#c.dialerId }, lead, key, actionId),
      { mode: 'predictive', pinned: pinnedAgent?.extension },
    )
  }

  /**
   * The customer answered: count the answer now (counting it when the call ends, minutes later, let
   * the quick no-answers outnumber it and halved the measured rate), and join the queue for an agent.
   */
  onAnswered(call: TrackedCall): void {
    // With AMD the customer is queued once the dialplan's verdict says a person (onAmd). A call of a
    // previous run is queued at once: its verdict, if any, was sent before this process listened.
    if (amdOn(this.#c.config.amd, 'predictive') && !call.amd && !call.adopted) {
      if (!this.#detecting.includes(call)) this.#detecting.push(call)
      logCallPhase(this.#c.logger, call, 'detecting', this.#c.now())
      return
    }
    this.#queueAnswered(call)
  }

  /**
   * A customer whose verdict has not come AMD_TOTAL_ANALYSIS_MS (Asterisk's 5 s when unset) plus
   * VERDICT_GRACE_MS after the answer is taken as a person and queued: AMD() never listens longer, so
   * the UserEvent was lost (an AMI user without `read = user`, a dialplan without the UserEvent).
   */
  #verdictsOverdue(): void {
    const limit = this.#c.now().getTime() - (this.#c.config.amd.totalAnalysisMs ?? 5000) - VERDICT_GRACE_MS
    for (const call of [...this.#detecting]) {
      if (!this.#c.calls.has(call.key) || call.amd) {
        this.#detecting.splice(this.#detecting.indexOf(call), 1)
      } else if (call.answeredAt && call.answeredAt.getTime() <= limit) {
        this.#detecting.splice(this.#detecting.indexOf(call), 1)
        call.amdOverdue = true
        this.#c.logger.warn(
          { lead: call.leadId },
          'no answering machine verdict in time: taken as a person (does the AMI user read user events?)',
        )
        this.#queueAnswered(call)
      }
    }
  }

  /**
   * AMD()'s verdict on an answered customer. A person (HUMAN, NOTSURE, or no verdict) is counted as an
   * answer and queued for an agent; a machine is left to the dialplan, which hangs it up, and counts
   * as a line nobody answered, so pacing learns the rate at which people answer. In record-only
   * mode every verdict goes on to an agent.
   */
  onAmd(call: TrackedCall): void {
    const i = this.#detecting.indexOf(call)
    if (i >= 0) this.#detecting.splice(i, 1)
    // A verdict after the call was taken as a person is only written on the attempt.
    if (!call.amd || !call.answeredAt || call.machine || call.amdOverdue) return
    if (noteAmdVerdict(call, this.#c.config.amd, this.#c.metrics)) {
      if (!this.#waiting.includes(call) && !call.redirected) this.#queueAnswered(call)
      return
    }
    this.#sample(false)
    logCallPhase(this.#c.logger, call, 'answering machine', this.#c.now(), { amdCause: call.amd.cause })
  }

  #queueAnswered(call: TrackedCall): void {
    if (call.answeredAt) {
      this.#sample(true)
      this.#delays.push(Math.max(0, call.answeredAt.getTime() - call.startedAt.getTime()) / 1000)
      if (this.#delays.length > DELAY_SAMPLES) this.#delays.shift()
    }
    if (!this.#waiting.includes(call)) this.#waiting.push(call)
    logCallPhase(this.#c.logger, call, 'on hold', this.#c.now(), { waiting: this.#waiting.length })
    void this.bridgeWaiting()
  }

  /** The agent's leg did not join (busy, no answer): the customer is on hold again, first in line. */
  onAgentLegFailed(call: TrackedCall, dialStatus?: string): void {
    const agent = call.agent
    if (agent) this.#c.agents.rest(agent.id)
    if (agent && !call.pinned) {
      call.agent = null
      void withTransaction(this.#c.db, (trx) => releaseAgent(trx, agent.id, this.#c.dialerId, null)).catch(
        (err) =>
          this.#c.logger.warn({ err, agent: agent.extension }, 'agent not released after a failed leg'),
      )
    }
    if (!this.#waiting.includes(call)) this.#waiting.unshift(call)
    call.redirected = false
    logCallPhase(this.#c.logger, call, 'on hold', this.#c.now(), {
      waiting: this.#waiting.length,
      agentDialStatus: dialStatus ?? null,
      refusedBy: agent?.extension ?? null,
    })
  }

  /** Sends waiting customers to free agents, oldest answer first; serialised so an agent is used once. */
  bridgeWaiting(): Promise<void> {
    this.#bridging = this.#bridging
      .then(() => this.#bridgeOnce())
      .catch((err: Error) => {
        this.#c.logger.warn({ err }, 'bridging failed')
      })
    return this.#bridging
  }

  async #bridgeOnce(): Promise<void> {
    const now = this.#c.now()
    for (const call of [...this.#waiting]) {
      // A customer who hung up (or whose call ended) is not sent anywhere: no agent is taken for them.
      if (!this.#c.calls.has(call.key) || !this.#c.calls.customerChannel(call)) {
        this.#drop(call)
        continue
      }
      let agent = call.agent
      // An agent taken in this pass is this dialer's; one taken before (a pinned lead's, or kept after
      // a Redirect that got no reply) is checked again below.
      let takenNow = false
      if (call.pinned) {
        // Only its own agent, and only when the desk is idle and has not just refused this customer.
        if (!agent || this.#c.agents.deviceState(agent.extension) !== 'NOT_INUSE') continue
        if (this.#c.agents.resting(agent.id)) continue
      } else if (!agent) {
        const busy = this.#c.busyHere()
        const free = this.#c.agents.available(now, busy)
        let taken: Agent | undefined
        for (const candidate of free) {
          if (
            await withTransaction(this.#c.db, (trx) => takeAgent(trx, candidate.id, this.#c.dialerId, now))
          ) {
            taken = candidate
            break
          }
        }
        if (!taken) return
        agent = taken
        call.agent = agent
        takenNow = true
      }
      // Checked again: the customer may have hung up while the agent was being taken.
      const customer = this.#c.calls.customerChannel(call)
      if (!customer) {
        this.#drop(call)
        if (!call.pinned) await this.#releaseTaken(call, agent)
        continue
      }
      // The agent may have been taken long enough ago (a pause, a slow database) for another dialer to
      // release the hold as stale and give the desk a call of its own: then it is not rung a second
      // time. The customer waits for another agent.
      const fresh = takenNow && this.#c.now().getTime() - now.getTime() <= CLAIM_RECHECK_MS
      if (!fresh && !(await this.#stillHeld(call, agent, now))) {
        this.#c.logger.warn(
          { lead: call.leadId, agent: agent.extension },
          'not sent to the agent: the agent was released and may be on a call of another dialer',
        )
        if (!call.pinned) call.agent = null
        continue
      }
      // Out of the queue before the Redirect is sent: a desk that is busy answers within
      // milliseconds, and its DialEnd (onAgentLegFailed, which queues the customer again) can arrive
      // before the Redirect's own reply.
      this.#drop(call)
      call.redirected = true
      logCallPhase(this.#c.logger, call, 'sent to agent', this.#c.now())
      try {
        await this.#c.ami.action({
          action: 'Redirect',
          channel: customer.name,
          context: this.#c.config.agentContext,
          exten: agent.extension,
          priority: 1,
        })
      } catch (err) {
        // Refused by Asterisk (the reply says why): the agent is free for others. No reply at all
        // (a timeout, the connection lost): the Redirect may have been carried out and the desk may
        // be ringing, so the agent stays with this customer, who is sent to the same desk again.
        const refused = err instanceof AmiActionError && err.reply !== undefined
        this.#c.logger.warn({ lead: call.leadId, err, refused }, 'redirect to agent failed')
        call.redirected = false
        if (this.#c.calls.has(call.key) && !this.#waiting.includes(call)) this.#waiting.unshift(call)
        if (!call.pinned && refused) await this.#releaseTaken(call, agent)
      }
    }
  }

  /** Whether this dialer still holds `agent`; a pinned lead's own agent, found free, is taken again. */
  async #stillHeld(call: TrackedCall, agent: Agent, now: Date): Promise<boolean> {
    if (await holdsAgent(this.#c.db, agent.id, this.#c.dialerId)) return true
    return (
      call.pinned === true &&
      (await withTransaction(this.#c.db, (trx) => takeAgent(trx, agent.id, this.#c.dialerId, now)))
    )
  }

  async #releaseTaken(call: TrackedCall, agent: Agent): Promise<void> {
    call.agent = null
    await withTransaction(this.#c.db, (trx) => releaseAgent(trx, agent.id, this.#c.dialerId, null))
  }

  #sample(answered: boolean): void {
    this.#samples.push(answered)
    if (this.#samples.length > ANSWER_SAMPLES) this.#samples.shift()
  }

  #drop(call: TrackedCall): void {
    const i = this.#waiting.indexOf(call)
    if (i >= 0) this.#waiting.splice(i, 1)
  }

  /** Customers on hold past HOLD_TIMEOUT_SECONDS are hung up: Abandoned. */
  async expireHolds(): Promise<void> {
    this.#verdictsOverdue()
    const limit = this.#c.now().getTime() - this.#c.config.holdTimeoutSeconds * 1000
    for (const call of [...this.#waiting]) {
      if (call.answeredAt && call.answeredAt.getTime() <= limit) {
        this.#drop(call)
        call.holdExpired = true
        const customer = this.#c.calls.customerChannel(call)
        if (!customer) continue
        await this.#c.ami
          .action({ action: 'Hangup', channel: customer.name })
          .catch((err) => this.#c.logger.debug({ err, lead: call.leadId }, 'hold-timeout hangup failed'))
      }
    }
  }

  /**
   * A predictive call ended: count it for the governor and the answer rate. Returns an answered
   * call's count for the abandon-rate window, which the settle writes in its own transaction (and
   * writes again, with the result, when the database was lost meanwhile).
   */
  onFinished(call: TrackedCall, result: CallResult): AnsweredCount | undefined {
    this.#drop(call)
    if (result.outcome === 'Failed') return undefined
    if (result.outcome === 'Machine' && call.answeredAt) {
      // Not an answered call: the governor counts AMD_MACHINE_ABANDON_SHARE of these when it reads.
      this.#window.machines += 1
      return { at: call.answeredAt, abandoned: false, machine: true }
    }
    if (!call.answeredAt) {
      if (result.answeredAt === null) this.#sample(false)
      return undefined
    }
    const limitMs = this.#c.config.complianceSeconds * 1000
    const connectedInTime =
      call.bridgedAt !== undefined && call.bridgedAt.getTime() - call.answeredAt.getTime() <= limitMs
    this.#window.answered += 1
    if (!connectedInTime) this.#window.abandoned += 1
    this.#recent.push(!connectedInTime)
    if (this.#recent.length > RECENT_ANSWERED) this.#recent.shift()
    return { at: call.answeredAt, abandoned: !connectedInTime }
  }
}
