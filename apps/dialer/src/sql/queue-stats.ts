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
  /** Per priority id: leads reserved by any dialer (Calling). */
  reserved: Map<number, number>
}

/**
 * One grouped query over the statuses the queue is made of (each one an index's leading column), for
 * a metrics scrape: what is due now and what is waiting, by priority.
 */
export async function queueStats(db: Kysely<Database>, now: Date): Promise<QueueStats> {
  const at = toDbTime(now)
  const rows = await db
    .selectFrom('hold_dialer_master_data')
    .select((eb) => [
      'priority_id',
      'dial_status',
      eb.fn.countAll<number | string>().as('leads'),
      sql<number | string | null>`SUM(CASE WHEN (dial_status = 'Callback' AND callback_scheduled_at <= ${at})
        OR (dial_status <> 'Callback' AND (next_retry_at IS NULL OR next_retry_at <= ${at})) THEN 1 ELSE 0 END)`.as(
        'due',
      ),
    ])
    .where('dial_status', 'in', ['Pending', 'Callback', 'Not Connected', 'Abandoned', 'Calling'])
    .groupBy(['priority_id', 'dial_status'])
    .execute()
  const out: QueueStats = {
    dueCallbacks: new Map(),
    dueRetries: new Map(),
    pending: new Map(),
    reserved: new Map(),
  }
  const add = (m: Map<number, number>, p: number, n: number) => m.set(p, (m.get(p) ?? 0) + n)
  for (const r of rows) {
    const leads = Number(r.leads)
    const due = Number(r.due ?? 0)
    if (r.dial_status === 'Calling') add(out.reserved, r.priority_id, leads)
    else if (r.dial_status === 'Callback') add(out.dueCallbacks, r.priority_id, due)
    else if (r.dial_status === 'Pending') add(out.pending, r.priority_id, leads)
    else add(out.dueRetries, r.priority_id, due)
  }
  return out
}
