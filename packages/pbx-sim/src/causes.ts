/** Q.850 hangup causes used by the simulator, with Asterisk's ast_cause2str texts (main/channel.c). */
export const Cause = {
  NotDefined: 0,
  NoRouteDestination: 3,
  NormalClearing: 16,
  UserBusy: 17,
  NoAnswer: 19,
  CallRejected: 21,
  Congestion: 34,
  ChanNotImplemented: 66,
} as const

const CAUSE_TEXT: Record<number, string> = {
  1: 'Unallocated (unassigned) number',
  3: 'No route to destination',
  16: 'Normal Clearing',
  17: 'User busy',
  18: 'No user responding',
  19: 'User alerting, no answer',
  21: 'Call Rejected',
  31: 'Normal, unspecified',
  34: 'Circuit/channel congestion',
  38: 'Network out of order',
  41: 'Temporary failure',
  42: 'Switching equipment congestion',
  66: 'Channel not implemented',
}

/** Asterisk answers "Unknown" for a cause it has no text for, including 0. */
export function causeText(cause: number): string {
  return CAUSE_TEXT[cause] ?? 'Unknown'
}

/** OriginateResponse Reason: the AST_CONTROL_* frame that ended the outbound attempt. */
export const Reason = {
  Failure: 0,
  Hangup: 1,
  RingTimeout: 3,
  Answered: 4,
  Busy: 5,
  Congestion: 8,
} as const

/** DIALSTATUS values the simulator produces; CONTINUE: a U() subroutine set GOSUB_RESULT=CONTINUE. */
export type DialStatus = 'ANSWER' | 'BUSY' | 'NOANSWER' | 'CANCEL' | 'CONGESTION' | 'CHANUNAVAIL' | 'CONTINUE'

/** Channel states (include/asterisk/channelstate.h) and ast_state2str texts. */
export const ChannelState = { Down: 0, Ring: 4, Ringing: 5, Up: 6 } as const
export type ChannelStateCode = (typeof ChannelState)[keyof typeof ChannelState]

const STATE_TEXT: Record<ChannelStateCode, string> = { 0: 'Down', 4: 'Ring', 5: 'Ringing', 6: 'Up' }

export function stateText(state: ChannelStateCode): string {
  return STATE_TEXT[state]
}
