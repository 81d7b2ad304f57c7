import { type Database, dialectOf, type NewMasterRow } from '@hold-dialer/db'
import { type Kysely, sql } from 'kysely'
import { nowStamp } from '../lib/master-row.js'

export const CLAIMERS = 30

/** Every seeded lead's customer zone; the dialer's claims find it inside CALLING_HOURS. */
export const CLAIM_POOL_ZONE = 'America/New_York'

/**
 * Pending leads a claim run works through; a run that empties the pool says so. The SQLite raw loop
 * claimed over 6,000 a second on a quiet machine, which emptied the pool at 6,000 per second.
 */
export function claimPoolSize(seconds: number): number {
  return Math.max(20_000, Math.ceil(seconds) * 12_000)
}

/** Seeds `count` Pending leads, each with its own number and `push_date`, so the claim order is total. */
export async function seedPendingLeads(db: Kysely<Database>, count: number): Promise<void> {
  const base = Date.now() - 86_400_000
  for (let i = 0; i < count; i += 500) {
    const rows: NewMasterRow[] = []
    for (let k = i; k < Math.min(count, i + 500); k++) {
      const stamp = new Date(base + k).toISOString().replace('T', ' ').slice(0, 23)
      rows.push({
        oli_id: `C${String(k).padStart(7, '0')}`,
        phone_number: `5${String(k).padStart(10, '0')}`,
        phone_e164: `+5${String(k).padStart(10, '0')}`,
        client_name: `Claim ${k}`,
        form_type: 'hold',
        priority_id: 1,
        dial_status: 'Pending',
        call_count: 0,
        isReserved: 0,
        isRnrSent: 0,
        status: 1,
        push_date: stamp,
        created_at: stamp,
        customer_tz: CLAIM_POOL_ZONE,
      })
    }
    await db.insertInto('hold_dialer_master_data').values(rows).execute()
  }
}

/** The claim pool and one agent per claimer; returns the agents' ids. */
export async function seedClaimPool(db: Kysely<Database>, count: number): Promise<number[]> {
  await seedPendingLeads(db, count)
  const agents: number[] = []
  for (let i = 0; i < CLAIMERS; i++) {
    const r = await db
      .insertInto('dialer_employee')
      .values({
        name: `Bench ${i}`,
        extension: String(7001 + i),
        presence: 'ready',
        panel_seen_at: nowStamp(),
        wrap_until: null,
      })
      .executeTakeFirstOrThrow()
    agents.push(Number(r.insertId))
  }
  return agents
}

/** Puts every lead a run settled back to Pending and frees the agents, so each run starts alike. */
export async function resetClaimPool(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: 'Pending',
      isReserved: 0,
      reserved_by: null,
      reserved_at: null,
      previous_status: null,
      next_retry_at: null,
      call_count: 0,
      last_attempt_at: null,
      first_attempt_at: null,
      last_dial_result: null,
    })
    .where((eb) => eb.or([eb('dial_status', '!=', 'Pending'), eb('isReserved', '!=', 0)]))
    .execute()
  await db.updateTable('dialer_employee').set({ on_call_by: null, on_call_since: null }).execute()
  // Each run starts with an empty WAL, not one the previous run left long.
  if (dialectOf(db) === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db)
}
