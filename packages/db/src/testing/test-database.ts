import { appendFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Connection, createConnection } from 'mysql2/promise'
import { connect, type Db, type Dialect } from '../connect.js'
import { migrate } from '../migrate.js'

export const DEFAULT_TEST_MYSQL_URL = 'mysql://root@127.0.0.1:3306/test'

export function testMysqlUrl(): string {
  return process.env.TEST_MYSQL_URL || DEFAULT_TEST_MYSQL_URL
}

/**
 * The dialects this run tests. `scripts/test.mjs` sets TEST_DIALECTS=sqlite (with a loud banner)
 * only when MariaDB cannot be reached and REQUIRE_MYSQL is not set; the default is both.
 */
export function testDialects(): Dialect[] {
  const raw = process.env.TEST_DIALECTS?.trim()
  if (!raw) return ['sqlite', 'mysql']
  const list = raw.split(',').map((s) => s.trim())
  for (const d of list)
    if (d !== 'sqlite' && d !== 'mysql') throw new Error(`TEST_DIALECTS: unknown dialect ${d}`)
  return list as Dialect[]
}

export interface TestDatabase {
  dialect: Dialect
  /** A DATABASE_URL for this fresh database, for starting another process against it. */
  url: string
  handle: Db
  /** Closes the pool and drops the database (MySQL) or deletes the file (SQLite). */
  drop(): Promise<void>
}

let counter = 0

/**
 * A name for a test database: `hdt_<pid>_<base36 ms>_<suffix>`, the time read from the server's clock.
 * `scripts/test.mjs` drops the `hdt_` databases over an hour old by that same clock, so a run whose own
 * clock is faked (scripts/fake-clock.sh) neither drops another run's databases nor has its own dropped.
 */
export async function testDatabaseName(conn: Connection, suffix: string | number): Promise<string> {
  const [rows] = await conn.query('SELECT UNIX_TIMESTAMP() * 1000 AS ms')
  const ms = Number((rows as Array<{ ms: string | number }>)[0]?.ms)
  return `hdt_${process.pid}_${ms.toString(36)}_${suffix}`
}

/** Creates a fresh, empty database of the dialect, migrated unless `migrate: false`. */
export async function createTestDatabase(
  dialect: Dialect,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  let url: string
  let cleanup: () => Promise<void>
  if (dialect === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'hd-test-'))
    url = `sqlite:${join(dir, 'test.sqlite')}`
    cleanup = () => rm(dir, { recursive: true, force: true })
  } else {
    const admin = new URL(testMysqlUrl())
    const conn = await createConnection({
      host: admin.hostname,
      port: Number(admin.port || 3306),
      user: decodeURIComponent(admin.username),
      password: decodeURIComponent(admin.password),
    })
    const name = await testDatabaseName(conn, counter++)
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`)
    await conn.end()
    const u = new URL(testMysqlUrl())
    u.pathname = `/${name}`
    url = u.toString()
    cleanup = async () => {
      const c = await createConnection({
        host: admin.hostname,
        port: Number(admin.port || 3306),
        user: decodeURIComponent(admin.username),
        password: decodeURIComponent(admin.password),
      })
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await c.end()
    }
  }
  const handle = connect(url, { poolSize: 20 })
  if (options.migrate !== false) await migrate(handle)
  let dropped = false
  return {
    dialect,
    url,
    handle,
    drop: async () => {
      if (dropped) return
      dropped = true
      await handle.close()
      await cleanup()
    },
  }
}

/** Appends one line per dialect subtest to HOLD_DIALER_TEST_LOG so the runner can count them. */
export function recordDialectResult(dialect: Dialect, name: string, ok: boolean): void {
  const log = process.env.HOLD_DIALER_TEST_LOG
  if (!log) return
  appendFileSync(log, `${JSON.stringify({ dialect, name, ok, file: process.argv[1] ?? '' })}\n`)
}
