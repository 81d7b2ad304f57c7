import { type Database, dialectOf } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'

/**
 * Takes an agent for a call in the claim's transaction: only if no dialer has them on a call. Two
 * dialers that both see the desk idle cannot both ring it. Returns false when someone else has them.
 */
export async function takeAgent(
  trx: Transaction<Database>,
  employeeId: number,
  dialerId: string,
  now: Date,
): Promise<boolean> {
  let q = trx
    .selectFrom('dialer_employee')
    .select('id')
    .where('id', '=', employeeId)
    .where('on_call_by', 'is', null)
  if (dialectOf(trx) === 'mysql') q = q.forUpdate().skipLocked()
  if (!(await q.executeTakeFirst())) return false
  await trx
    .updateTable('dialer_employee')
    .set({ on_call_by: dialerId, on_call_since: toDbTime(now) })
    .where('id', '=', employeeId)
    .execute()
  return true
}

/** Frees an agent at settle, starting their wrap-up time. */
export async function releaseAgent(
  trx: Transaction<Database>,
  employeeId: number,
  dialerId: string,
  wrapUntil: Date | null,
): Promise<void> {
  await trx
    .updateTable('dialer_employee')
    .set({ on_call_by: null, on_call_since: null, ...(wrapUntil ? { wrap_until: toDbTime(wrapUntil) } : {}) })
    .where('id', '=', employeeId)
    .where('on_call_by', '=', dialerId)
    .execute()
}
