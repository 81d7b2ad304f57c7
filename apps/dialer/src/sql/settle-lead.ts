import type { Database } from '@hold-dialer/db'
import { type DialStatus, toDbTime } from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'

export interface SettleWrite {
  dialStatus: DialStatus
  nextRetryAt: Date | null
  /** Pinned mode's first Not Connected: its RNR mail is queued, so the lead is marked as mailed. */
  rnrMailQueued: boolean
  callCount: number
  firstAttemptAt: string
  lastAttemptAt: string
  lastDialResult: string
  hangupBy: string | null
  hangupCause: string | null
}

/**
 * A placed call's result written to its lead, with the reservation cleared. A callback is used up by
 * the call placed for it; a later Not Connected resumes the schedule. The query unsent, for a caller
 * that batches it (the claims bench); `settleLead` runs it.
 */
export function settleLeadQuery(db: Kysely<Database>, id: number, w: SettleWrite) {
  return db
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: w.dialStatus,
      next_retry_at: w.nextRetryAt && toDbTime(w.nextRetryAt),
      callback_scheduled_at: null,
      call_count: w.callCount,
      first_attempt_at: w.firstAttemptAt,
      last_attempt_at: w.lastAttemptAt,
      last_dial_result: w.lastDialResult,
      hangup_by: w.hangupBy,
      hangup_cause: w.hangupCause,
      ...(w.rnrMailQueued ? { isRnrSent: 1 } : {}),
      previous_status: null,
      isReserved: 0,
      reserved_by: null,
      reserved_at: null,
    })
    .where('id', '=', id)
}

/** Writes a placed call's result to its (locked) lead and clears the reservation. */
export async function settleLead(trx: Transaction<Database>, id: number, w: SettleWrite): Promise<void> {
  await settleLeadQuery(trx, id, w).execute()
}
