import type { Database, NewCallAttempt } from '@hold-dialer/db'
import { fromDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'

export async function recordAttempt(trx: Transaction<Database>, attempt: NewCallAttempt): Promise<void> {
  await trx.insertInto('hold_dialer_call_attempts').values(attempt).execute()
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
