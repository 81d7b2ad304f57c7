import {
  type Database,
  dialectOf,
  type Heartbeat,
  type NewHeartbeat,
  takeInsertedValues,
} from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'

const UPDATED = [
  'hostname',
  'pid',
  'dial_mode',
  'pbx',
  'started_at',
  'seen_at',
  'ami_state',
  'active_calls',
  'details',
] as const

/** Upserts this dialer's heartbeat row (shown by the API's detailed health). */
export async function writeHeartbeat(db: Kysely<Database>, beat: NewHeartbeat): Promise<void> {
  const set = takeInsertedValues<Heartbeat, (typeof UPDATED)[number]>(dialectOf(db), UPDATED)
  const insert = db.insertInto('hold_dialer_heartbeat').values(beat)
  if (dialectOf(db) === 'mysql') await insert.onDuplicateKeyUpdate(set).execute()
  else await insert.onConflict((oc) => oc.column('dialer_id').doUpdateSet(set)).execute()
}

/** Keeps this dialer's live calls from looking stale to the others: leads and the agents on them. */
export async function refreshReservations(
  db: Kysely<Database>,
  dialerId: string,
  leadIds: number[],
  agentIds: number[],
  now: Date,
) {
  const stamp = toDbTime(now)
  if (leadIds.length > 0) {
    await db
      .updateTable('hold_dialer_master_data')
      .set({ reserved_at: stamp })
      .where('id', 'in', leadIds)
      .where('reserved_by', '=', dialerId)
      .where('isReserved', '=', 1)
      .execute()
  }
  if (agentIds.length > 0) {
    await db
      .updateTable('dialer_employee')
      .set({ on_call_since: stamp })
      .where('id', 'in', agentIds)
      .where('on_call_by', '=', dialerId)
      .execute()
  }
}
