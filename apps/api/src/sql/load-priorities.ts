import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

export interface PriorityFlags {
  isCallback: boolean
}

/** Active priorities by id: a `priority_id` not in this map is rejected on push. */
export async function loadActivePriorities(db: Kysely<Database>): Promise<Map<number, PriorityFlags>> {
  const rows = await db
    .selectFrom('hold_dialer_priority')
    .select(['id', 'is_callback'])
    .where('is_active', '=', 1)
    .execute()
  return new Map(rows.map((r) => [r.id, { isCallback: r.is_callback === 1 }]))
}
