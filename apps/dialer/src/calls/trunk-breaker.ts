import { type LegVerdict, TrunkBreaker } from '@hold-dialer/rules'
import type { Logger } from 'pino'
import type { DialerMetrics } from '../metrics.js'
import type { CallResult, TrackedCall } from './call-tracker.js'

/** The breaker as the live state, /healthz and the heartbeat show it. */
export interface TrunkState {
  /** `closed`: calls are placed; `open`: only one try every TRUNK_BREAKER_PROBE_SECONDS. */
  state: 'closed' | 'open'
  /** Customer legs not created in a row. */
  failures: number
  /** When it opened (ms since the epoch); null while closed. */
  since: number | null
  /** When the next try may be placed; null while closed. */
  nextProbeAt: number | null
  /** A try is under way (open only). */
  trying: boolean
}

/**
 * What a finished call says of the trunk: was the customer's channel created?
 *
 * - Predictive: the originated channel is the customer's. Any channel of the call seen: created.
 *   A failed OriginateResponse with no channel at all (Reason 0: NoSuchTech, a PJSIP endpoint with
 *   no reachable contact): not created.
 * - Progressive: the customer is dialed from the answered desk. Any channel beside the desk's
 *   (a DialBegin, or a Local channel the dial never classified): created. The desk answered and no
 *   other channel ever appeared (Dial found CHANUNAVAIL before any channel: no DialBegin): not
 *   created.
 * - Everything else (the desk failed, an originate refused or never answered, a call adopted after
 *   a restart) says nothing of the trunk.
 */
export function legVerdict(call: TrackedCall, result: CallResult): LegVerdict {
  const legs = [...call.legs.values()]
  if (call.mode === 'predictive') {
    if (legs.length > 0) return 'created'
    return result.outcome === 'Failed' && call.originateResponse?.success === false
      ? 'not-created'
      : 'neutral'
  }
  if (call.dialStatus !== undefined || legs.some((l) => l.side !== 'agent')) return 'created'
  return result.outcome === 'Failed' && call.originateResponse?.success === true ? 'not-created' : 'neutral'
}

/**
 * The trunk breaker of one dialer, both dial modes: TRUNK_BREAKER_FAILURES customer legs in a row
 * (across leads) whose channel could not be created stop the dialing, so agents are not rung for
 * calls that go nowhere, again and again. One error is logged; the metrics, the console and /healthz
 * show it. One call is tried every TRUNK_BREAKER_PROBE_SECONDS, and the first customer channel
 * created resumes the dialing. The state machine is `TrunkBreaker` (packages/rules).
 */
export class DialerTrunkBreaker {
  readonly #breaker: TrunkBreaker

  constructor(
    private readonly settings: { failures: number; probeSeconds: number },
    private readonly now: () => Date,
    private readonly logger: Logger,
    private readonly metrics?: DialerMetrics,
  ) {
    this.#breaker = new TrunkBreaker({ failures: settings.failures, probeMs: settings.probeSeconds * 1000 })
  }

  /** Calls that may be placed now: unlimited while closed, 0 or 1 (a try) while open. */
  permits(): number {
    return this.#breaker.permits(this.now().getTime())
  }

  /** A call is being placed (its ChannelId). */
  placed(key: string): void {
    this.#breaker.placed(key, this.now().getTime())
  }

  /** A call ended: what it says of the trunk moves the breaker. */
  finished(call: TrackedCall, result: CallResult): void {
    const verdict = legVerdict(call, result)
    if (verdict === 'not-created') this.metrics?.legsNotCreated.inc({ mode: call.mode ?? 'progressive' })
    const before = this.#breaker.state
    const openedAt = before.kind === 'open' ? before.since : undefined
    const change = this.#breaker.record(call.key, verdict, this.now().getTime())
    if (change === 'opened') {
      this.metrics?.trunkBreakerTrips.inc()
      this.logger.error(
        {
          failures: this.settings.failures,
          probeSeconds: this.settings.probeSeconds,
          lead: call.leadId,
          why: result.why,
        },
        'trunk breaker open: customer calls cannot be placed (no channel created); dialing stopped, one try every probe period',
      )
    } else if (change === 'closed') {
      this.logger.info(
        { lead: call.leadId, openMs: this.now().getTime() - (openedAt ?? this.now().getTime()) },
        'trunk breaker closed: a customer call got through; dialing resumed',
      )
    } else if (openedAt !== undefined) {
      this.logger.debug({ lead: call.leadId, verdict }, 'trunk breaker still open')
    }
  }

  get open(): boolean {
    return this.#breaker.open
  }

  snapshot(): TrunkState {
    const s = this.#breaker.state
    return s.kind === 'closed'
      ? { state: 'closed', failures: s.failures, since: null, nextProbeAt: null, trying: false }
      : {
          state: 'open',
          failures: s.failures,
          since: s.since,
          nextProbeAt: s.nextProbeAt,
          trying: s.probe !== null,
        }
  }
}
