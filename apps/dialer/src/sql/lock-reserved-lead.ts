import { type Database, dialectOf, isLive } from '@hold-dialer/db'
import type { Transaction } from 'kysely'

/**
 * Locks a lead at settle and returns it only if this dialer still holds it live. A lead another
 * dialer released as stale (or an operator changed) is not this dialer's to settle any more.
 */
export async function lockReservedLead(trx: Transaction<Database>, id: number, dialerId: string) {
  let q = trx.selectFrom('hold_dialer_master_data').selectAll().where('id', '=', id)
  if (dialectOf(trx) === 'mysql') q = q.forUpdate()
  const row = await q.executeTakeFirst()
  if (!row || !isLive(row) || row.reserved_by !== dialerId) return undefined
  return { ...row, id: Number(row.id) }
}
