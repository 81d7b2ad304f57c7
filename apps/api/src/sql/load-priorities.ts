import { type Database, withRetry } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

export interface PriorityFlags {
  isCallback: boolean
}

const inFlight = new WeakMap<Kysely<Database>, Promise<Map<number, PriorityFlags>>>()

async function queryActivePriorities(db: Kysely<Database>): Promise<Map<number, PriorityFlags>> {
  // Retried like a transaction: on a lost connection this read runs again on a fresh one (it was
  // not, and a push validated while MariaDB connections were killed answered 500).
  const rows = await withRetry(() =>
    db.selectFrom('hold_dialer_priority').select(['id', 'is_callback']).where('is_active', '=', 1).execute(),
  )
  return new Map(rows.map((r) => [r.id, { isCallback: r.is_callback === 1 }]))
}

/**
 * Active priorities by id: a `priority_id` not in this map is rejected on push.
 *
 * Requests that arrive while a load is on its way to the database share it (single flight) instead of
 * each sending their own: under 16 concurrent single-lead pushes this SELECT was one of two statements
 * per request. Nothing is kept once the answer is in, so a priority switched off is refused by the
 * very next request; a time-based cache was rejected because it would accept a priority for a while
 * after it was switched off (and the tests check that it is refused at once).
 */
export function loadActivePriorities(db: Kysely<Database>): Promise<Map<number, PriorityFlags>> {
  const pending = inFlight.get(db)
  if (pending) return pending
  const load = queryActivePriorities(db).finally(() => inFlight.delete(db))
  inFlight.set(db, load)
  return load
}
