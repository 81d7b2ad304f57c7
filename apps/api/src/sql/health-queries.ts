import type { Database } from '@hold-dialer/db'
import { type Kysely, sql } from 'kysely'

export async function selectOne(db: Kysely<Database>): Promise<void> {
  await sql`SELECT 1`.execute(db)
}

export async function listHeartbeats(db: Kysely<Database>) {
  return db.selectFrom('hold_dialer_heartbeat').selectAll().orderBy('dialer_id').execute()
}

export async function countQueuedRnrMail(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('hold_dialer_rnr_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sent_at', 'is', null)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
