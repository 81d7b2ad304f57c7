import type { Database, NewRnrMail } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'

export async function queueRnrMail(trx: Transaction<Database>, mail: NewRnrMail): Promise<void> {
  await trx.insertInto('hold_dialer_rnr_outbox').values(mail).execute()
}

export async function dueRnrMail(db: Kysely<Database>, now: Date, limit: number) {
  return db
    .selectFrom('hold_dialer_rnr_outbox')
    .selectAll()
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', toDbTime(now))
    .orderBy('id')
    .limit(limit)
    .execute()
}

export async function markRnrSent(db: Kysely<Database>, id: number, now: Date): Promise<void> {
  await db
    .updateTable('hold_dialer_rnr_outbox')
    .set({ sent_at: toDbTime(now), last_error: null })
    .where('id', '=', id)
    .execute()
}

export async function markRnrFailed(
  db: Kysely<Database>,
  id: number,
  attempts: number,
  next: Date,
  error: string,
): Promise<void> {
  await db
    .updateTable('hold_dialer_rnr_outbox')
    .set({ attempts, next_attempt_at: toDbTime(next), last_error: error.slice(0, 500) })
    .where('id', '=', id)
    .execute()
}
