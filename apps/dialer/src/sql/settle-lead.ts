import { type Database, runStatement, type Statement } from '@hold-dialer/db'
import { type DialStatus, toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'

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
 * the call placed for it; a later Not Connected resumes the schedule. As a statement, for a caller
 * that batches it (the claims bench); `settleLead` runs it. Fixed text, not built with Kysely: a
 * settle per call, and building and compiling it (and the agent's release) with Kysely was the
 * largest JavaScript cost of a SQLite claim-and-settle cycle (docs/benchmarks.md); the same text
 * reuses its prepared statement.
 */
export function settleLeadStatement(id: number, w: SettleWrite): Statement {
  return {
    sql: `UPDATE hold_dialer_master_data SET dial_status = ?, next_retry_at = ?, callback_scheduled_at = NULL,
            call_count = ?, first_attempt_at = ?, last_attempt_at = ?, last_dial_result = ?, hangup_by = ?,
            hangup_cause = ?,${w.rnrMailQueued ? ' isRnrSent = 1,' : ''} previous_status = NULL, isReserved = 0,
            reserved_by = NULL, reserved_at = NULL WHERE id = ?`,
    params: [
      w.dialStatus,
      w.nextRetryAt && toDbTime(w.nextRetryAt),
      w.callCount,
      w.firstAttemptAt,
      w.lastAttemptAt,
      w.lastDialResult,
      w.hangupBy,
      w.hangupCause,
      id,
    ],
  }
}

/** Writes a placed call's result to its (locked) lead and clears the reservation. */
export async function settleLead(trx: Transaction<Database>, id: number, w: SettleWrite): Promise<void> {
  await runStatement(trx, settleLeadStatement(id, w))
}
