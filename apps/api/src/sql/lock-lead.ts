import { type Database, dialectOf } from '@hold-dialer/db'
import type { Transaction } from 'kysely'

/** Locks one master row by `oli_id` for a ticket or callback-request write. */
export async function lockLeadByOliId(trx: Transaction<Database>, oliId: string) {
  let query = trx
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'oli_id', 'priority_id', 'dial_status', 'isReserved'])
    .where('oli_id', '=', oliId)
  if (dialectOf(trx) === 'mysql') query = query.forUpdate()
  const row = await query.executeTakeFirst()
  return row && { ...row, id: Number(row.id) }
}
