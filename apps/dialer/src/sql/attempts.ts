import type { Database, NewCallAttempt } from '@hold-dialer/db'
import { fromDbTime, toDbTime } from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'

/** The outcome of an attempt row while its call is under way (the claim opens it). */
export const DIALING = 'Dialing'
/** ... and of one whose call's result was lost in a crash (the release completes it). */
export const UNKNOWN = 'Unknown'

/**
 * Completes the attempt row the claim opened for this call (found by its key, `linkedid`); a call
 * with no open row (claimed before rows were opened at claim) gets one now.
 */
export async function completeAttempt(trx: Transaction<Database>, attempt: NewCallAttempt): Promise<void> {
  const key = attempt.linkedid
  if (key) {
    const { master_id: _id, ...fields } = attempt
    const r = await trx
      .updateTable('hold_dialer_call_attempts')
      .set(fields)
      .where('linkedid', '=', key)
      .where('outcome', '=', DIALING)
      .executeTakeFirst()
    if (Number(r.numUpdatedRows) > 0) return
  }
  await trx.insertInto('hold_dialer_call_attempts').values(attempt).execute()
}

/**
 * A late result for a call its release already completed as `Unknown` (and counted for the lead):
 * the row takes the call's real result and times, and keeps its count. Returns false when the call
 * has no such row.
 */
export async function fillUnknownAttempt(
  trx: Transaction<Database>,
  attempt: NewCallAttempt,
): Promise<boolean> {
  if (!attempt.linkedid) return false
  const {
    master_id: _id,
    attempt_no: _no,
    superseded: _superseded,
    dialer_id: _dialer,
    started_at: _started,
    ...result
  } = attempt
  const r = await trx
    .updateTable('hold_dialer_call_attempts')
    .set(result)
    .where('linkedid', '=', attempt.linkedid)
    .where('outcome', '=', UNKNOWN)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/** Removes the open row of a call that was never placed (a failed originate is not an attempt). */
export async function dropOpenAttempt(trx: Transaction<Database>, key: string): Promise<void> {
  await trx
    .deleteFrom('hold_dialer_call_attempts')
    .where('linkedid', '=', key)
    .where('outcome', '=', DIALING)
    .execute()
}

/** The open row of a call, by its key: when it started and, if the answer was recorded, when. */
export async function openAttempt(db: Kysely<Database> | Transaction<Database>, key: string) {
  const row = await db
    .selectFrom('hold_dialer_call_attempts')
    .select(['id', 'started_at', 'answered_at'])
    .where('linkedid', '=', key)
    .where('outcome', '=', DIALING)
    .executeTakeFirst()
  return row && { id: Number(row.id), startedAt: row.started_at, answeredAt: row.answered_at }
}

/**
 * Notes on the open row when the customer answered, so a call adopted after a crash keeps its real
 * talk time (the settle writes every time again from what it followed).
 */
export async function recordAnswered(db: Kysely<Database>, key: string, at: Date): Promise<void> {
  await db
    .updateTable('hold_dialer_call_attempts')
    .set({ answered_at: toDbTime(at) })
    .where('linkedid', '=', key)
    .where('outcome', '=', DIALING)
    .where('answered_at', 'is', null)
    .execute()
}

/**
 * Start times of the lead's attempts since its first attempt (the retry schedule's input); a
 * superseded call (settle.ts) is not one of them.
 */
export async function attemptTimesSince(
  trx: Transaction<Database>,
  masterId: number,
  since: string,
): Promise<Date[]> {
  const rows = await trx
    .selectFrom('hold_dialer_call_attempts')
    .select('started_at')
    .where('master_id', '=', masterId)
    .where('started_at', '>=', since)
    .where('superseded', '=', 0)
    .orderBy('started_at')
    .execute()
  return rows.map((r) => fromDbTime(r.started_at))
}
