import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

/**
 * The roster as the dialer needs it: who may take calls, by DB state (the device state comes from AMI).
 * Only the agents of the dialer's own PBX (`pbx`, PBX_NAME): the others' desks are on another PBX.
 */
export async function loadRoster(db: Kysely<Database>, pbx: string) {
  return db
    .selectFrom('dialer_employee')
    .select([
      'id',
      'name',
      'extension',
      'email',
      'is_active',
      'presence',
      'panel_seen_at',
      'wrap_until',
      'on_call_by',
    ])
    .where('extension', 'is not', null)
    .where('pbx', '=', pbx)
    .execute()
}
export type RosterRow = Awaited<ReturnType<typeof loadRoster>>[number]

export async function loadDialablePriorities(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('hold_dialer_priority').select('id').where('is_dialable', '=', 1).execute()
  return rows.map((r) => r.id)
}
