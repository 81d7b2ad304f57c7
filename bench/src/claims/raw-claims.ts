import type BetterSqlite3 from 'better-sqlite3'
import type { PoolConnection } from 'mysql2/promise'
import { PlainGroupCommit } from '../lib/plain-group-commit.js'
import { msSince } from '../lib/stats.js'
import { mysqlPool } from '../push/mysql-ceiling.js'
import { ClaimLedger, type ClaimResult } from './claim-result.js'

const RETRY_LATER_MS = 3_600_000
const dbTime = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 23)

const PICK = `SELECT id FROM hold_dialer_master_data WHERE isReserved = 0 AND dial_status = 'Pending'
  ORDER BY push_date, id LIMIT 1`
const RESERVE = `UPDATE hold_dialer_master_data SET previous_status = dial_status, dial_status = 'Calling',
  isReserved = 1, reserved_by = ?, reserved_at = ?, claim_token = ? WHERE id = ?`
/**
 * The call's attempt row, opened in the claim's transaction as the dialer opens it (a record of every
 * call placed, written before the call is): the product's claim does this insert, so the ceiling does.
 */
const OPEN_ATTEMPT = `INSERT INTO hold_dialer_call_attempts (master_id, oli_id, attempt_no, dialer_id, dial_mode,
  agent_extension, phone_number, phone_e164, linkedid, outcome, started_at, superseded)
  SELECT id, oli_id, call_count + 1, ?, 'progressive', NULL, phone_number, phone_e164, ?, 'Dialing', ?, 0
  FROM hold_dialer_master_data WHERE id = ?`
/** An 8-character claim token and the call key made of it, as the dialer makes them. */
let claims = 0
const tokenOf = () => (claims++).toString(36).padStart(8, '0').slice(-8)
const SETTLE = `UPDATE hold_dialer_master_data SET dial_status = 'Not Connected', next_retry_at = ?,
  call_count = call_count + 1, first_attempt_at = COALESCE(first_attempt_at, ?), last_attempt_at = ?,
  last_dial_result = 'NOANSWER', previous_status = NULL, isReserved = 0, reserved_by = NULL,
  reserved_at = NULL WHERE id = ?`

/**
 * The ceiling of a claim on MariaDB: `claimers` connections each looping over BEGIN, one
 * `SELECT ... FOR UPDATE SKIP LOCKED` on the Pending index, an UPDATE that reserves the row, the
 * INSERT that opens its attempt row, COMMIT,
 * then an autocommit UPDATE that settles it.
 */
export async function rawMysqlClaims(
  url: string,
  o: { claimers: number; seconds: number },
): Promise<ClaimResult> {
  const pool = mysqlPool(url, o.claimers)
  const ledger = new ClaimLedger()
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const claimer = async (index: number) => {
    const conn: PoolConnection = await pool.getConnection()
    const me = `raw-${index}`
    try {
      while (Date.now() < deadline && !ledger.exhausted) {
        const t0 = process.hrtime.bigint()
        const now = new Date()
        await conn.query('BEGIN')
        const [rows] = await conn.query(`${PICK} FOR UPDATE SKIP LOCKED`)
        const id = (rows as { id: number }[])[0]?.id
        if (id === undefined) {
          await conn.query('ROLLBACK')
          ledger.exhausted = true
          break
        }
        const token = tokenOf()
        await conn.query(RESERVE, [me, dbTime(now), token, id])
        await conn.query(OPEN_ATTEMPT, [me, `hd-${id}-${token}`, dbTime(now), id])
        await conn.query('COMMIT')
        ledger.claimed(Number(id))
        const at = dbTime(new Date())
        await conn.query(SETTLE, [dbTime(new Date(now.getTime() + RETRY_LATER_MS)), at, at, id])
        ledger.latencies.push(msSince(t0))
      }
    } finally {
      conn.release()
    }
  }
  try {
    await Promise.all(Array.from({ length: o.claimers }, (_, i) => claimer(i)))
  } finally {
    await pool.end()
  }
  return ledger.result(msSince(started) / 1000)
}

/**
 * The ceiling on SQLite, with the product's batching: `claimers` concurrent claimers, and every claim
 * waiting when a write starts is made in one `BEGIN IMMEDIATE ... COMMIT` (for each: the raw
 * `SELECT ... LIMIT 1` of the first claimable row, the UPDATE that reserves it and the INSERT that
 * opens its attempt row), the event loop
 * turning between groups, as the dialer's SQLite claim round does (apps/dialer/src/claim/claim-sqlite.ts).
 * Each claimer then settles its lead with one autocommit UPDATE: the product releases each claim in
 * a transaction of its own (the dialer's settle), so a group commit of the settles would batch what
 * the product does not. `commits` counts both.
 */
export async function rawSqliteClaims(
  handle: BetterSqlite3.Database,
  o: { claimers: number; seconds: number },
): Promise<ClaimResult & { commits: number }> {
  const pick = handle.prepare(PICK)
  const reserve = handle.prepare(RESERVE)
  const openAttempt = handle.prepare(OPEN_ATTEMPT)
  const settle = handle.prepare(SETTLE)
  const claimAll = handle.transaction((nows: readonly Date[]) =>
    nows.map((now): number | undefined => {
      const row = pick.get() as { id: number } | undefined
      if (!row) return undefined
      const token = tokenOf()
      reserve.run('raw', dbTime(now), token, row.id)
      openAttempt.run('raw', `hd-${row.id}-${token}`, dbTime(now), row.id)
      return row.id
    }),
  )
  const groups = new PlainGroupCommit<Date, number | undefined>((nows) => claimAll.immediate(nows))
  const ledger = new ClaimLedger()
  let settles = 0
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const claimer = async () => {
    while (Date.now() < deadline && !ledger.exhausted) {
      const t0 = process.hrtime.bigint()
      const now = new Date()
      const id = await groups.submit(now)
      if (id === undefined) {
        ledger.exhausted = true
        break
      }
      ledger.claimed(id)
      const at = dbTime(new Date())
      settle.run(dbTime(new Date(now.getTime() + RETRY_LATER_MS)), at, at, id)
      settles += 1
      ledger.latencies.push(msSince(t0))
    }
  }
  await Promise.all(Array.from({ length: o.claimers }, claimer))
  return { ...ledger.result(msSince(started) / 1000), commits: groups.groups + settles }
}
