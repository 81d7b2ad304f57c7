import { createPool } from 'mysql2/promise'
import type { LeadBody } from '../lib/lead-mix.js'
import { MASTER_COLUMNS, masterValues, nowStamp, UPDATED_COLUMNS } from '../lib/master-row.js'
import { msSince } from '../lib/stats.js'
import { type CeilingResult, ceilingResult } from './ceiling-result.js'

/** The same session the product's connections get: UTC, strict, READ COMMITTED. */
const SESSION = [
  "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
]

const UPSERT = `INSERT INTO hold_dialer_master_data (${MASTER_COLUMNS.join(', ')}) VALUES ? ON DUPLICATE KEY UPDATE ${UPDATED_COLUMNS.map((c) => `${c} = VALUES(${c})`).join(', ')}`

/** MariaDB's deadlock and lock-wait timeout: retried, as any client of a busy table must. */
const RETRYABLE = new Set([1213, 1205])

export function mysqlPool(url: string, connections: number) {
  const u = new URL(url)
  const pool = createPool({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
    connectionLimit: connections,
    dateStrings: true,
    charset: 'utf8mb4',
  })
  pool.pool.on('connection', (conn) => {
    for (const statement of SESSION) conn.query(statement)
  })
  return pool
}

/**
 * The ceiling of a push: the same rows written by a plain mysql2 script, one autocommit multi-row
 * `INSERT ... ON DUPLICATE KEY UPDATE` per request, rows sorted by `oli_id`, `connections` clients at once.
 */
export async function mysqlUpsertCeiling(
  url: string,
  o: { connections: number; seconds: number; next: () => LeadBody[] },
): Promise<CeilingResult> {
  const pool = mysqlPool(url, o.connections)
  const latencies: number[] = []
  let rows = 0
  let retries = 0
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const client = async () => {
    while (Date.now() < deadline) {
      const leads = o.next().sort((a, b) => (a.oli_id < b.oli_id ? -1 : a.oli_id > b.oli_id ? 1 : 0))
      const stamp = nowStamp()
      const values = leads.map((l) => masterValues(l, stamp))
      const t0 = process.hrtime.bigint()
      for (;;) {
        try {
          await pool.query(UPSERT, [values])
          break
        } catch (error) {
          if (!RETRYABLE.has((error as { errno?: number }).errno ?? 0)) throw error
          retries += 1
        }
      }
      latencies.push(msSince(t0))
      rows += leads.length
    }
  }
  try {
    await Promise.all(Array.from({ length: o.connections }, client))
  } finally {
    await pool.end()
  }
  return ceilingResult(latencies, rows, msSince(started) / 1000, retries)
}
