import { type Database, dialectOf } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'

/** The hour (UTC) a call's result is counted in. */
export function bucketOf(at: Date): string {
  const d = new Date(at)
  d.setUTCMinutes(0, 0, 0)
  return toDbTime(d)
}

/** Adds one predictive call's result to its hour. */
export async function countAnswered(
  db: Kysely<Database>,
  dialerId: string,
  at: Date,
  abandoned: boolean,
): Promise<void> {
  const row = { bucket_start: bucketOf(at), dialer_id: dialerId, answered: 1, abandoned: abandoned ? 1 : 0 }
  const insert = db.insertInto('hold_dialer_abandon_stats').values(row)
  const add = {
    answered: sql<number>`hold_dialer_abandon_stats.answered + 1`,
    abandoned: sql<number>`hold_dialer_abandon_stats.abandoned + ${row.abandoned}`,
  }
  if (dialectOf(db) === 'mysql') await insert.onDuplicateKeyUpdate(add).execute()
  else await insert.onConflict((oc) => oc.columns(['bucket_start', 'dialer_id']).doUpdateSet(add)).execute()
}

/** Answered and abandoned calls of every dialer since `since` (the governor's rolling window). */
export async function windowTotals(
  db: Kysely<Database>,
  since: Date,
): Promise<{ answered: number; abandoned: number }> {
  const row = await db
    .selectFrom('hold_dialer_abandon_stats')
    .select((eb) => [
      eb.fn.sum<number>('answered').as('answered'),
      eb.fn.sum<number>('abandoned').as('abandoned'),
    ])
    .where('bucket_start', '>=', bucketOf(since))
    .executeTakeFirst()
  return { answered: Number(row?.answered ?? 0), abandoned: Number(row?.abandoned ?? 0) }
}
