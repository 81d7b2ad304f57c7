import BetterSqlite3 from 'better-sqlite3'
import type { LeadBody } from '../lib/lead-mix.js'
import { MASTER_COLUMNS, masterValues, nowStamp, UPDATED_COLUMNS } from '../lib/master-row.js'
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

/**
 * The ceiling of a push on SQLite: one prepared single-row upsert run for each lead inside one
 * `BEGIN IMMEDIATE` transaction per request. SQLite has one writer at a time, so a synchronous loop is
 * the most any number of concurrent clients could get from it.
 */
export function sqliteUpsertCeiling(
  path: string,
  o: { seconds: number; next: () => LeadBody[] },
): CeilingResult {
  const handle = openPlainSqlite(path)
  const upsert = handle.prepare(
    `INSERT INTO hold_dialer_master_data (${MASTER_COLUMNS.join(', ')}) VALUES (${MASTER_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (oli_id) DO UPDATE SET ${UPDATED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  )
  const writeAll = handle.transaction((rows: unknown[][]) => {
    for (const r of rows) upsert.run(r)
  })
  const latencies: number[] = []
  let rows = 0
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  try {
    while (Date.now() < deadline) {
      const leads = o.next().sort((a, b) => (a.oli_id < b.oli_id ? -1 : a.oli_id > b.oli_id ? 1 : 0))
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
  return ceilingResult(latencies, rows, msSince(started) / 1000, 0)
}
