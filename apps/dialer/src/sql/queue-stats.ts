import type { Database } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'

/** The lead queue by priority, as the metrics show it. */
export interface QueueStats {
  /** Per priority id: Callback leads whose time has come. */
  dueCallbacks: Map<number, number>
  /** Per priority id: Not Connected and Abandoned leads whose retry time has come. */
  dueRetries: Map<number, number>
  /** Per priority id: Pending leads. */
  pending: Map<number, number>
  /** Per priority id: leads reserved by any dialer. */
  reserved: Map<number, number>
}

/**
 * One statement for a metrics scrape: what is due now and what is waiting, by priority. Each part is
 * a range of one of the claim's indexes (isReserved, dial_status, time), so it reads the rows it
 * counts and no others: a lead table full of settled leads costs nothing. (Better-sqlite3 runs a
 * query on the event loop: a scan of the whole table would stall the dialer at every scrape.)
 */
export async function queueStats(db: Kysely<Database>, now: Date): Promise<QueueStats> {
  const at = toDbTime(now)
  const part = (category: Category) =>
    db
      .selectFrom('hold_dialer_master_data')
      .select((eb) => [
        sql.lit(category).as('category'),
        'priority_id',
        eb.fn.countAll<number | string>().as('leads'),
      ])
      .groupBy('priority_id')
  const rows = await part('due_callback')
    .where('isReserved', '=', 0)
    .where('dial_status', '=', 'Callback')
    .where('callback_scheduled_at', '<=', at)
    .unionAll(
      part('due_retry')
        .where('isReserved', '=', 0)
        .where('dial_status', 'in', ['Not Connected', 'Abandoned'])
        .where('next_retry_at', 'is', null),
    )
    .unionAll(
      part('due_retry')
        .where('isReserved', '=', 0)
        .where('dial_status', 'in', ['Not Connected', 'Abandoned'])
        .where('next_retry_at', '<=', at),
    )
    .unionAll(part('pending').where('isReserved', '=', 0).where('dial_status', '=', 'Pending'))
    .unionAll(part('reserved').where('isReserved', '=', 1))
    .execute()
  const out: QueueStats = {
    dueCallbacks: new Map(),
    dueRetries: new Map(),
    pending: new Map(),
    reserved: new Map(),
  }
  const into = {
    due_callback: out.dueCallbacks,
    due_retry: out.dueRetries,
    pending: out.pending,
    reserved: out.reserved,
  }
  for (const r of rows) {
    const counts = into[r.category as Category]
    counts.set(r.priority_id, (counts.get(r.priority_id) ?? 0) + Number(r.leads))
  }
  return out
}

type Category = 'due_callback' | 'due_retry' | 'pending' | 'reserved'
