import BetterSqlite3 from 'better-sqlite3'
import type { LeadBody } from '../lib/lead-mix.js'
import { MASTER_COLUMNS, masterValues, nowStamp, UPDATED_COLUMNS } from '../lib/master-row.js'
import { PlainGroupCommit } from '../lib/plain-group-commit.js'
import { msSince } from '../lib/stats.js'
import { type CeilingResult, ceilingResult } from './ceiling-result.js'

/** A plain better-sqlite3 handle with the product's own settings (WAL, synchronous=FULL). */
export function openPlainSqlite(path: string): BetterSqlite3.Database {
  const handle = new BetterSqlite3(path)
  handle.pragma('journal_mode = WAL')
  handle.pragma('busy_timeout = 5000')
  handle.pragma('synchronous = FULL')
  return handle
}

const byOliId = (a: LeadBody, b: LeadBody) => (a.oli_id < b.oli_id ? -1 : a.oli_id > b.oli_id ? 1 : 0)

/** One prepared single-row upsert, and a transaction that runs it for each of a list of rows. */
function plainUpsert(handle: BetterSqlite3.Database) {
  const upsert = handle.prepare(
    `INSERT INTO hold_dialer_master_data (${MASTER_COLUMNS.join(', ')}) VALUES (${MASTER_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (oli_id) DO UPDATE SET ${UPDATED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  )
  return handle.transaction((rows: readonly unknown[][]) => {
    for (const r of rows) upsert.run(r)
  })
}

/**
 * The ceiling of a batch push on SQLite: one prepared single-row upsert run for each lead inside one
 * `BEGIN IMMEDIATE` transaction per request, in a synchronous loop. Fair as it is: the product writes
 * each batch in a locked transaction of its own too (no group commit of batches), one writer at a
 * time, so both commit once per 500 rows, and with one writer a loop is the most any number of
 * concurrent clients could get.
 */
export function sqliteUpsertCeiling(
  path: string,
  o: { seconds: number; next: () => LeadBody[] },
): CeilingResult {
  const handle = openPlainSqlite(path)
  const writeAll = plainUpsert(handle)
  const latencies: number[] = []
  let rows = 0
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  try {
    while (Date.now() < deadline) {
      const leads = o.next().sort(byOliId)
      const stamp = nowStamp()
      const values = leads.map((l) => masterValues(l, stamp))
      const t0 = process.hrtime.bigint()
      writeAll.immediate(values)
      latencies.push(msSince(t0))
      rows += leads.length
    }
  } finally {
    handle.close()
  }
  return { ...ceilingResult(latencies, rows, msSince(started) / 1000, 0), commits: latencies.length }
}

/**
 * The ceiling of a single-lead push on SQLite, with the product's batching: `clients` concurrent
 * clients each send one request at a time, and every request waiting when a write starts is written
 * in one `BEGIN IMMEDIATE ... COMMIT` (a prepared single-row upsert per request inside), the event
 * loop turning between groups, as the API's group commit does (apps/api/src/services/lead-writer.ts).
 * A request's latency runs from its submission to its group's commit.
 */
export async function sqliteGroupUpsertCeiling(
  path: string,
  o: { clients: number; seconds: number; next: () => LeadBody[] },
): Promise<CeilingResult> {
  const handle = openPlainSqlite(path)
  const writeAll = plainUpsert(handle)
  const groups = new PlainGroupCommit<unknown[][], true>((requests) => {
    writeAll.immediate(requests.flat())
    return requests.map(() => true as const)
  })
  const latencies: number[] = []
  let rows = 0
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const client = async () => {
    while (Date.now() < deadline) {
      const leads = o.next().sort(byOliId)
      const stamp = nowStamp()
      const t0 = process.hrtime.bigint()
      await groups.submit(leads.map((l) => masterValues(l, stamp)))
      latencies.push(msSince(t0))
      rows += leads.length
    }
  }
  try {
    await Promise.all(Array.from({ length: o.clients }, client))
  } finally {
    handle.close()
  }
  return { ...ceilingResult(latencies, rows, msSince(started) / 1000, 0), commits: groups.groups }
}
