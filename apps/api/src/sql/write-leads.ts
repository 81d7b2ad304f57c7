import {
  type Database,
  dialectOf,
  type MasterRow,
  type NewMasterRow,
  takeInsertedValues,
} from '@hold-dialer/db'
import type { Transaction } from 'kysely'

/** Columns a push overwrites on an existing row: everything but `id`, `oli_id` and `created_at`. */
const PUSH_UPDATES = [
  'phone_number',
  'client_name',
  'form_type',
  'priority_id',
  'agent_id',
  'callback_scheduled_at',
  'dial_status',
  'last_dial_result',
  'hangup_by',
  'hangup_cause',
  'last_attempt_at',
  'first_attempt_at',
  'next_retry_at',
  'call_count',
  'isReserved',
  'isRnrSent',
  'reserved_by',
  'reserved_at',
  'previous_status',
  'push_date',
  'status',
] as const

/** Inserts new leads in one statement. A concurrent insert of the same `oli_id` fails with a duplicate key. */
export async function insertLeads(trx: Transaction<Database>, rows: NewMasterRow[]): Promise<void> {
  if (rows.length === 0) return
  await trx.insertInto('hold_dialer_master_data').values(rows).execute()
}

/**
 * Overwrites existing, already locked, not live leads in one multi-row upsert: every row exists, so
 * each takes the UPDATE branch. One statement instead of one UPDATE per row keeps a 500-lead batch
 * to a single round trip.
 */
export async function overwriteLeads(trx: Transaction<Database>, rows: NewMasterRow[]): Promise<void> {
  if (rows.length === 0) return
  const set = takeInsertedValues<MasterRow, (typeof PUSH_UPDATES)[number]>(dialectOf(trx), PUSH_UPDATES)
  const insert = trx.insertInto('hold_dialer_master_data').values(rows)
  if (dialectOf(trx) === 'mysql') await insert.onDuplicateKeyUpdate(set).execute()
  else await insert.onConflict((oc) => oc.column('oli_id').doUpdateSet(set)).execute()
}
