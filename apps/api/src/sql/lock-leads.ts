import { type Database, dialectOf } from '@hold-dialer/db'
import type { Transaction } from 'kysely'

export interface LockedLead {
  id: number
  oli_id: string
  priority_id: number
  dial_status: string
  isReserved: number
  agent_id: number | null
}

/**
 * Locks the master rows of these `oli_id`s, in `oli_id` order so that two batches with overlapping
 * ids always lock in the same order and cannot deadlock each other. SQLite needs no row lock: the
 * transaction holds the database's write lock from BEGIN IMMEDIATE.
 */
export async function lockLeadsByOliId(
  trx: Transaction<Database>,
  oliIds: readonly string[],
): Promise<Map<string, LockedLead>> {
  if (oliIds.length === 0) return new Map()
  let query = trx
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'oli_id', 'priority_id', 'dial_status', 'isReserved', 'agent_id'])
    .where('oli_id', 'in', [...oliIds])
    .orderBy('oli_id')
  if (dialectOf(trx) === 'mysql') query = query.forUpdate()
  const rows = await query.execute()
  return new Map(rows.map((r) => [r.oli_id, { ...r, id: Number(r.id) }]))
}
