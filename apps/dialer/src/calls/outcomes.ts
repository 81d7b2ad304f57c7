/**
 * How AMI results become the specification's outcomes. One table, read top to bottom, first match wins.
 *
 * Sources: Asterisk's include/asterisk/causes.h (Q.850 cause codes), main/pbx.c / main/manager.c for
 * OriginateResponse `Reason` (the control frame that ended the originate: 0 failure, 1 hangup,
 * 3 ringing/no answer, 4 answered, 5 busy, 8 congestion), and app_dial's DIALSTATUS values
 * (ANSWER, BUSY, NOANSWER, CANCEL, CONGESTION, CHANUNAVAIL, DONTCALL, TORTURE, INVALIDARGS).
 */

/**
 * What the dialer writes for a call that was placed (`Failed` = never placed: restore, no count).
 * `Machine`: answered by an answering machine, which AMD detected and the dialplan hung up; the lead
 * becomes Not Connected (settle-plan.ts).
 */
export type CallOutcome = 'Received' | 'Not Connected' | 'Rejected' | 'Abandoned' | 'Machine' | 'Failed'

export interface CustomerLegResult {
  /** app_dial DIALSTATUS of the customer leg, when a DialEnd arrived. */
  dialStatus?: string | undefined
  /** Q.850 cause of the customer channel's Hangup, when one arrived. */
  hangupCause?: number | undefined
  /** OriginateResponse Reason of the customer leg (predictive: the originated channel is the customer). */
  originateReason?: number | undefined
  /** The customer channel reached Up (answered). */
  answered: boolean
  /** Predictive: the answered customer hung up or timed out before being bridged to an agent. */
  abandoned?: boolean
}

/** Q.850 causes that mean the called party refused the call. */
const REJECT_CAUSES = new Set([21])
/** Q.850 causes of a busy or unreachable or congested network: try again later. */
const NOT_CONNECTED_CAUSES = new Set([1, 3, 17, 18, 19, 20, 27, 31, 34, 38, 41, 42, 44, 47, 58, 88, 102, 127])

interface Row {
  when: (r: CustomerLegResult) => boolean
  outcome: CallOutcome
  why: string
}

export const OUTCOME_TABLE: readonly Row[] = [
  {
    when: (r) => r.abandoned === true,
    outcome: 'Abandoned',
    why: 'answered, hung up or timed out waiting for an agent',
  },
  {
    when: (r) => r.answered || r.dialStatus === 'ANSWER' || r.originateReason === 4,
    outcome: 'Received',
    why: 'answered',
  },
  {
    when: (r) => r.hangupCause !== undefined && REJECT_CAUSES.has(r.hangupCause),
    outcome: 'Rejected',
    why: 'cause 21 call rejected',
  },
  {
    // CANCEL is the calling side hanging up while the customer rang (in progressive mode the agent):
    // the customer neither answered nor refused, so the lead is tried again. A customer who declines
    // sends cause 21 (SIP 603 Decline), the Rejected row above.
    when: (r) => r.dialStatus === 'CANCEL',
    outcome: 'Not Connected',
    why: 'DIALSTATUS CANCEL: hung up on our side while the customer rang',
  },
  {
    when: (r) => r.dialStatus === 'DONTCALL' || r.dialStatus === 'TORTURE',
    outcome: 'Rejected',
    why: 'privacy manager refused',
  },
  { when: (r) => r.dialStatus === 'BUSY', outcome: 'Not Connected', why: 'busy' },
  { when: (r) => r.dialStatus === 'NOANSWER', outcome: 'Not Connected', why: 'no answer' },
  { when: (r) => r.dialStatus === 'CONGESTION', outcome: 'Not Connected', why: 'congestion' },
  { when: (r) => r.dialStatus === 'CHANUNAVAIL', outcome: 'Not Connected', why: 'channel unavailable' },
  { when: (r) => r.originateReason === 5, outcome: 'Not Connected', why: 'Reason 5 busy' },
  { when: (r) => r.originateReason === 3, outcome: 'Not Connected', why: 'Reason 3 rang, not answered' },
  { when: (r) => r.originateReason === 8, outcome: 'Not Connected', why: 'Reason 8 congestion' },
  { when: (r) => r.originateReason === 1, outcome: 'Not Connected', why: 'Reason 1 hung up before answer' },
  {
    when: (r) => r.hangupCause !== undefined && NOT_CONNECTED_CAUSES.has(r.hangupCause),
    outcome: 'Not Connected',
    why: 'network cause',
  },
  {
    when: (r) => r.originateReason === 0,
    outcome: 'Failed',
    why: 'Reason 0: the channel could not be created',
  },
  {
    when: (r) => r.dialStatus === 'INVALIDARGS',
    outcome: 'Failed',
    why: 'dialplan error: nothing was dialed',
  },
]

/** The outcome of a customer leg, with the table row that decided it. Nothing known: Not Connected. */
export function customerOutcome(r: CustomerLegResult): { outcome: CallOutcome; why: string } {
  const row = OUTCOME_TABLE.find((x) => x.when(r))
  return row
    ? { outcome: row.outcome, why: row.why }
    : { outcome: 'Not Connected', why: 'no final result received' }
}

/**
 * OriginateResponse Reasons of a progressive Originate that failed at the agent's desk (the control
 * frame that ended it, main/pbx.c): the customer was never dialed, so the lead is restored.
 */
export const AGENT_FAILURE: Readonly<Record<number, string>> = {
  0: 'could not be reached (Reason 0)',
  1: 'hung up before answering (Reason 1)',
  3: 'rang, not answered (Reason 3)',
  5: 'busy (Reason 5)',
  8: 'congestion (Reason 8)',
}

/** Human text of the common Q.850 causes, for `hangup_cause` when the event carried none. */
export const CAUSE_TEXT: Readonly<Record<number, string>> = {
  0: 'Unknown',
  1: 'Unallocated (unassigned) number',
  16: 'Normal Clearing',
  17: 'User busy',
  18: 'No user responding',
  19: 'User alerting, no answer',
  21: 'Call Rejected',
  27: 'Destination out of order',
  34: 'Circuit/channel congestion',
  38: 'Network out of order',
  20: 'Subscriber absent',
  41: 'Temporary failure',
  42: 'Switching equipment congestion',
}
