import type { Database } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'
import type { SettlePlan } from '../calls/settle-plan.js'

export interface SettleWrite {
  plan: SettlePlan
  callCount: number
  firstAttemptAt: string
  lastAttemptAt: string
  lastDialResult: string
  hangupBy: string | null
  hangupCause: string | null
}

/** Writes a placed call's result to its (locked) lead and clears the reservation. */
export async function settleLead(trx: Transaction<Database>, id: number, w: SettleWrite): Promise<void> {
  await trx
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: w.plan.dial_status,
      next_retry_at: w.plan.next_retry_at && toDbTime(w.plan.next_retry_at),
      // A callback is used up by the call placed for it; a later Not Connected resumes the schedule.
      callback_scheduled_at: null,
      call_count: w.callCount,
      first_attempt_at: w.firstAttemptAt,
      last_attempt_at: w.lastAttemptAt,
      last_dial_result: w.lastDialResult,
      hangup_by: w.hangupBy,
      hangup_cause: w.hangupCause,
      ...(w.plan.queueRnrMail ? { isRnrSent: 1 } : {}),
      previous_status: null,
      isReserved: 0,
      reserved_by: null,
      reserved_at: null,
    })
    .where('id', '=', id)
    .execute()
}
