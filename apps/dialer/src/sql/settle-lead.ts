import { type Database, runStatement, type Statement } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'
import type { SettlePlan } from '../settle-plan.js'

export interface SettleWrite {
  plan: SettlePlan
  callCount: number
  firstAttemptAt: string
  lastAttemptAt: string
  lastDialResult: string
  hangupBy: string | null
  hangupCause: string | null
}

/**
 * A placed call's result written to its lead, with the reservation cleared. A callback is used up by
 * the call placed for it; a later Not Connected resumes the schedule. A statement, so that it can also
 * go in a batch (one round trip with the agent's release).
 */
export function settleLeadStatement(id: number, w: SettleWrite): Statement {
  return {
    sql: `UPDATE hold_dialer_master_data SET dial_status = ?, next_retry_at = ?, callback_scheduled_at = NULL,
      call_count = ?, first_attempt_at = ?, last_attempt_at = ?, last_dial_result = ?, hangup_by = ?,
      hangup_cause = ?,${w.plan.queueRnrMail ? ' isRnrSent = 1,' : ''} previous_status = NULL, isReserved = 0,
      reserved_by = NULL, reserved_at = NULL WHERE id = ?`,
    params: [
      w.plan.dial_status,
      w.plan.next_retry_at && toDbTime(w.plan.next_retry_at),
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
