import { Cause, ChannelState, type DialStatus, Reason } from '../causes.js'
import type { Channel } from '../model/channel.js'
import type { CustomerPlan } from '../model/customerPlan.js'
import type { CallOutcome, HangupParty } from '../types.js'
import type { PbxCore } from './engine.js'

/** Network delay before a busy, congestion or unreachable answer comes back. */
export const FAST_FAILURE_SECONDS = 0.2

/** How an outbound leg ends when it is not answered. */
export interface LegFailure {
  cause: number
  reason: number
  dialStatus: DialStatus
  by: HangupParty
  outcome: CallOutcome
}

export type LegResult = { answered: true } | { answered: false; failure: LegFailure }

export type RingPlan =
  | { kind: 'answer'; ringSeconds: number }
  | { kind: 'noanswer'; ringSeconds: number }
  | { kind: 'reject'; ringSeconds: number }
  | { kind: 'busy' }
  | { kind: 'congestion' }
  | { kind: 'fail' }

/**
 * Causes, OriginateResponse reasons and DialEnd statuses per failure. DialEnd for a rejected call
 * (an Originate's own caller-less one too) is NOANSWER: app_dial reports a hangup through ast_hangup_cause_to_dial_status(), which has no
 * case for cause 21; the Hangup's Cause 21 is what tells a reject apart.
 */
export const FAILURES = {
  busy: { cause: Cause.UserBusy, reason: Reason.Busy, dialStatus: 'BUSY', by: 'customer', outcome: 'busy' },
  congestion: {
    cause: Cause.Congestion,
    reason: Reason.Congestion,
    dialStatus: 'CONGESTION',
    by: 'system',
    outcome: 'congestion',
  },
  // The far end hung up with cause 21 and no control frame: an Originate reports Reason 0 (as the
  // test bed's Hangup(21) shows on Asterisk 22).
  reject: {
    cause: Cause.CallRejected,
    reason: Reason.Failure,
    dialStatus: 'NOANSWER',
    by: 'customer',
    outcome: 'rejected',
  },
  noanswer: {
    cause: Cause.NoAnswer,
    reason: Reason.RingTimeout,
    dialStatus: 'NOANSWER',
    by: 'system',
    outcome: 'noanswer',
  },
  fail: {
    cause: Cause.NotDefined,
    reason: Reason.Failure,
    dialStatus: 'CHANUNAVAIL',
    by: 'system',
    outcome: 'failed',
  },
} as const satisfies Record<string, LegFailure>

export function ringPlanOf(plan: CustomerPlan): RingPlan {
  switch (plan.result) {
    case 'answer':
    case 'noanswer':
    case 'reject':
      return { kind: plan.result, ringSeconds: plan.ringSeconds }
    default:
      return { kind: plan.result }
  }
}

/**
 * Rings an outbound leg and reports how it ended. Emits Newstate Ringing where the far end rings;
 * the caller emits the final events (Newstate Up or Hangup) so it can order them against
 * OriginateResponse or DialEnd. A hangup from outside (AMI Hangup) ends the attempt as CANCEL.
 */
export function ringLeg(
  core: PbxCore,
  ch: Channel,
  plan: RingPlan,
  timeoutSeconds: number,
  done: (result: LegResult) => void,
): void {
  let settled = false
  const settle = (result: LegResult): void => {
    if (settled) return
    settled = true
    ch.onHangup = null
    done(result)
  }
  const fail = (failure: LegFailure): void => settle({ answered: false, failure })
  ch.onHangup = (cause, by) =>
    fail({ cause, reason: Reason.Hangup, dialStatus: 'CANCEL', by, outcome: 'cancelled' })

  if (plan.kind === 'busy' || plan.kind === 'congestion' || plan.kind === 'fail') {
    const failure = FAILURES[plan.kind]
    core.after(ch, FAST_FAILURE_SECONDS, () => fail(failure))
    return
  }
  if (plan.kind !== 'reject' || plan.ringSeconds > 0) core.setState(ch, ChannelState.Ringing)
  if (plan.ringSeconds >= timeoutSeconds) {
    core.after(ch, timeoutSeconds, () => fail(FAILURES.noanswer))
    return
  }
  core.after(ch, plan.ringSeconds, () => {
    if (plan.kind === 'answer') settle({ answered: true })
    else fail(FAILURES[plan.kind])
  })
}
