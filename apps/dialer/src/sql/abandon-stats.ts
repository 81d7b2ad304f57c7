import { type Database, dialectOf } from '@hold-dialer/db'
import { type AmdWindowTotals, toDbTime } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'

/** The hour (UTC) a call's result is counted in. */
export function bucketOf(at: Date): string {
  const d = new Date(at)
  d.setUTCMinutes(0, 0, 0)
  return toDbTime(d)
}

/**
 * Adds one predictive call's result to its hour: an answered call (abandoned or not), or a call AMD
 * hung up as a machine, kept apart in `machines` (the governor counts a share of them when it reads).
 */
export async function countAnswered(
  db: Kysely<Database>,
  dialerId: string,
  at: Date,
  abandoned: boolean,
  machine = false,
): Promise<void> {
  const row = {
    bucket_start: bucketOf(at),
    dialer_id: dialerId,
    answered: machine ? 0 : 1,
    abandoned: !machine && abandoned ? 1 : 0,
    machines: machine ? 1 : 0,
  }
  const insert = db.insertInto('hold_dialer_abandon_stats').values(row)
  const add = {
    answered: sql<number>`hold_dialer_abandon_stats.answered + ${row.answered}`,
    abandoned: sql<number>`hold_dialer_abandon_stats.abandoned + ${row.abandoned}`,
    machines: sql<number>`hold_dialer_abandon_stats.machines + ${row.machines}`,
  }
  if (dialectOf(db) === 'mysql') await insert.onDuplicateKeyUpdate(add).execute()
  else await insert.onConflict((oc) => oc.columns(['bucket_start', 'dialer_id']).doUpdateSet(add)).execute()
}

/**
 * Answered and abandoned calls, and calls AMD hung up as machines, of every dialer since `since`
 * (the governor's rolling window; governedWindow in packages/rules weighs the machines).
 */
export async function windowTotals(db: Kysely<Database>, since: Date): Promise<AmdWindowTotals> {
  const row = await db
    .selectFrom('hold_dialer_abandon_stats')
    .select((eb) => [
      eb.fn.sum<number>('answered').as('answered'),
      eb.fn.sum<number>('abandoned').as('abandoned'),
      eb.fn.sum<number>('machines').as('machines'),
    ])
    .where('bucket_start', '>=', bucketOf(since))
    .executeTakeFirst()
  return {
    answered: Number(row?.answered ?? 0),
    abandoned: Number(row?.abandoned ?? 0),
    machines: Number(row?.machines ?? 0),
  }
}
