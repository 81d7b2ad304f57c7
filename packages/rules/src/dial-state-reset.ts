// The spec's "Dial-state reset" table as data: the values every successful push, Close,
// Callback Schedule and send-callback-request writes. The caller decides whether the write is
// allowed at all (a live Calling + reserved row is never touched); these only build the values.
import { nextRetryAtForPush, type WorkingHours } from './working-hours.js'

/** Every `dial_status` value, spelled exactly as the spec spells it. */
export const DIAL_STATUSES = [
  'Pending',
  'Callback',
  'Calling',
  'Disposed',
  'Not Connected',
  'Received',
  'Rejected',
  'Abandoned',
  'Archived',
] as const

export type DialStatus = (typeof DIAL_STATUSES)[number]

/** The master-row columns the reset writes, named as the table names them. */
export interface DialStateReset {
  dial_status: DialStatus
  last_dial_result: null
  hangup_by: null
  hangup_cause: null
  last_attempt_at: null
  first_attempt_at: null
  next_retry_at: Date | null
  callback_scheduled_at: Date | null
  call_count: 0
  isReserved: 0
  isRnrSent: 0
}

// The columns whose value is the same for every event: the attempt history is cleared, so
// the retry schedule (which counts days from the first attempt) starts over.
const CLEARED_ATTEMPT_HISTORY = {
  last_dial_result: null,
  hangup_by: null,
  hangup_cause: null,
  last_attempt_at: null,
  first_attempt_at: null,
  call_count: 0,
  isReserved: 0,
  isRnrSent: 0,
} as const

/**
 * Push insert or update. With a callback time (already checked to be on a callback priority,
 * or pinned to an agent in Mode B) the row is Callback and waits on `callback_scheduled_at`;
 * otherwise it is Pending, claimable at once inside working hours, else from the next WORK_START.
 */
export function resetForPush(input: {
  callbackAt: Date | null
  now: Date
  hours: WorkingHours
}): DialStateReset {
  if (input.callbackAt !== null) {
    return resetForCallback(input.callbackAt)
  }
  return {
    ...CLEARED_ATTEMPT_HISTORY,
    dial_status: 'Pending',
    next_retry_at: nextRetryAtForPush(input.now, input.hours),
    callback_scheduled_at: null,
  }
}

/** Escalated ticket Close: applied before the row is copied to `hold_dialer_disposed`. */
export function resetForClose(): DialStateReset {
  return {
    ...CLEARED_ATTEMPT_HISTORY,
    dial_status: 'Disposed',
    next_retry_at: null,
    callback_scheduled_at: null,
  }
}

/** Callback Schedule and send-callback-request (and a push that carries a callback time). */
export function resetForCallback(at: Date): DialStateReset {
  return {
    ...CLEARED_ATTEMPT_HISTORY,
    dial_status: 'Callback',
    next_retry_at: null,
    callback_scheduled_at: at,
  }
}
