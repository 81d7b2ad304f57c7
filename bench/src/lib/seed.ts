import type { Database, NewMasterRow } from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import { type LeadBody, LIVE_POOL, liveLead, UPDATE_POOL, updateLead } from './lead-mix.js'
import { nowStamp } from './master-row.js'

/** The row of a pushed lead, Pending, or `live`: Calling and reserved, as if a dialer held it. */
export function seedRow(lead: LeadBody, stamp: string, live: boolean): NewMasterRow {
  return {
    oli_id: lead.oli_id,
    phone_number: lead.phone_number.replace(/\D/g, ''),
    // The bench's numbers are sent with a +: their international form is the same text's digits.
    phone_e164: `+${lead.phone_number.replace(/\D/g, '')}`,
    client_name: lead.client_name,
    form_type: lead.form_type,
    priority_id: lead.priority_id,
    dial_status: live ? 'Calling' : 'Pending',
    isReserved: live ? 1 : 0,
    call_count: 0,
    isRnrSent: 0,
    status: 1,
    reserved_by: live ? 'bench-live' : null,
    reserved_at: live ? stamp : null,
    previous_status: live ? 'Pending' : null,
    push_date: stamp,
    created_at: stamp,
  }
}

/** Inserts lead rows 500 to a statement. */
export async function insertChunked(db: Kysely<Database>, rows: NewMasterRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('hold_dialer_master_data')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

/** The rows the push mix updates (`U…`) and the rows live in a call it must skip (`L…`). */
export async function seedPushPools(db: Kysely<Database>): Promise<void> {
  const stamp = nowStamp()
  await insertChunked(
    db,
    Array.from({ length: UPDATE_POOL }, (_, i) => seedRow(updateLead(i), stamp, false)),
  )
  await insertChunked(
    db,
    Array.from({ length: LIVE_POOL }, (_, i) => seedRow(liveLead(i), stamp, true)),
  )
}

/**
 * Puts the live pool back in a call before each run: the ceiling's plain upsert overwrites them
 * (it has no notion of a live row), and the next run must find them live again.
 */
export async function resetLivePool(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('hold_dialer_master_data')
    .set({ dial_status: 'Calling', isReserved: 1, reserved_by: 'bench-live', previous_status: 'Pending' })
    .where('oli_id', '>=', 'L')
    .where('oli_id', '<', 'M')
    .execute()
}
