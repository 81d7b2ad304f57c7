import { mkdirSync, rmSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { connect, type Db, type Dialect, migrate } from '@hold-dialer/db'
import { createConnection } from 'mysql2/promise'

/** Server the MariaDB half runs against; the bench creates and drops its own databases on it. */
export function mysqlServerUrl(): URL {
  return new URL(process.env.BENCH_MYSQL_URL || process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/')
}

export function adminConnection() {
  const u = mysqlServerUrl()
  return createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  })
}

/**
 * This run's databases are `hd_bench_<pid>_<start time, base 36>_<part>` (another tool gives its own
 * prefix: `hd_chaos_...`): two runs on one server (two checkouts, two machines sharing MariaDB) never
 * drop each other's. SQLite files get the same names.
 */
const RUN_ID = `${process.pid}_${Date.now().toString(36)}`

/** Databases this run created and has not dropped yet, by URL. */
const created = new Set<string>()

/** A `DATABASE_URL` for a fresh, empty database of this dialect, named for this run and `part`. */
export async function freshDatabaseUrl(dialect: Dialect, part: string, prefix = 'hd_bench'): Promise<string> {
  const name = `${prefix}_${RUN_ID}_${part}`
  if (dialect === 'sqlite') {
    const path = resolve('bench-results', 'db', `${name}.sqlite`)
    mkdirSync(dirname(path), { recursive: true })
    const url = `sqlite:${path}`
    created.add(url)
    return url
  }
  const u = mysqlServerUrl()
  u.pathname = `/${name}`
  const url = u.toString()
  const conn = await adminConnection()
  try {
    created.add(url)
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`)
  } finally {
    await conn.end()
  }
  return url
}

export async function dropDatabase(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  } else {
    const conn = await adminConnection()
    try {
      await conn.query(`DROP DATABASE IF EXISTS \`${new URL(url).pathname.slice(1)}\``)
    } finally {
      await conn.end()
    }
  }
  created.delete(url)
}

/** Drops whatever this run created and has not dropped yet (after a failure, or on Ctrl-C). */
export async function dropCreatedDatabases(): Promise<void> {
  for (const url of [...created]) {
    await dropDatabase(url).catch((error: unknown) => {
      process.stderr.write(
        `could not drop ${url}: ${error instanceof Error ? error.message : String(error)}\n`,
      )
    })
  }
}

/**
 * On SIGINT or SIGTERM: drops this run's databases (at most `graceMs` spent on it), then exits 130
 * or 143 as a process killed by that signal would. Child processes get the terminal's signal too.
 */
export function dropDatabasesOnSignal(graceMs = 15_000): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`${signal}: dropping this run's databases\n`)
      const timer = setTimeout(() => process.exit(code), graceMs)
      void dropCreatedDatabases().finally(() => {
        clearTimeout(timer)
        process.exit(code)
      })
    })
  }
}

/**
 * A fresh database for one part of the run, opened and migrated: `fn` gets it, and it is closed and
 * dropped when `fn` ends, whether it returned or threw.
 */
export async function withFreshDatabase<T>(
  dialect: Dialect,
  part: string,
  fn: (url: string, db: Db) => Promise<T>,
  poolSize?: number,
  prefix?: string,
): Promise<T> {
  const url = await freshDatabaseUrl(dialect, part, prefix)
  try {
    const db = await openMigrated(url, poolSize)
    try {
      return await fn(url, db)
    } finally {
      await db.close()
    }
  } finally {
    await dropDatabase(url)
  }
}

/** Opens and migrates a bench database with the product's own connection factory. */
export async function openMigrated(url: string, poolSize = 40): Promise<Db> {
  const db = connect(url, { poolSize })
  await migrate(db)
  return db
}

/** The server settings that decide write throughput, printed beside the figures. */
export async function mariadbSettings(): Promise<Record<string, string>> {
  const conn = await adminConnection()
  const [rows] = await conn.query(
    `SHOW VARIABLES WHERE Variable_name IN ('version', 'innodb_flush_log_at_trx_commit', 'sync_binlog',
      'log_bin', 'innodb_buffer_pool_size', 'innodb_log_file_size', 'innodb_doublewrite',
      'innodb_flush_method', 'max_connections')`,
  )
  await conn.end()
  const out: Record<string, string> = {}
  for (const r of rows as { Variable_name: string; Value: string }[]) out[r.Variable_name] = r.Value
  return out
}
