import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  MysqlDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely'
import { createPool, type PoolOptions } from 'mysql2'
import { type BatchRunner, mysqlBatchRunner, sqliteBatchRunner } from './batch.js'
import type { Database } from './database.js'

export type Dialect = 'mysql' | 'sqlite'

export interface DbTarget {
  dialect: Dialect
  /** Host (MySQL) or absolute file path (SQLite): safe to show in health output. */
  host: string
  database: string
}

export interface Db {
  /** The typed query builder over the pool (MySQL) or the file (SQLite). */
  kysely: Kysely<Database>
  dialect: Dialect
  target: DbTarget
  /**
   * Short hot-path transactions (the dialer's claim) as batches of fixed SQL: on MySQL one round trip
   * per batch over a second, lazily opened pool of `poolSize`; see batch.ts. Use `withBatchTransaction`.
   */
  batch: BatchRunner
  close(): Promise<void>
}

export interface ConnectOptions {
  /** MySQL pool size (default 10). */
  poolSize?: number
  /** SQLite: how long a writer waits for another process's lock before SQLITE_BUSY (default 5000). */
  sqliteBusyTimeoutMs?: number
}

/** Parses `DATABASE_URL` into what the health output may show (never the password). */
export function describeDatabaseUrl(url: string): DbTarget {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url)
    return { dialect: 'sqlite', host: 'localhost', database: path }
  }
  if (url.startsWith('mysql://')) {
    const u = new URL(url)
    return { dialect: 'mysql', host: `${u.hostname}:${u.port || '3306'}`, database: u.pathname.slice(1) }
  }
  throw new Error('DATABASE_URL must start with mysql:// or sqlite:')
}

function sqlitePath(url: string): string {
  const raw = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
  return raw === ':memory:' ? raw : resolve(raw)
}

/**
 * SQLite's plain `BEGIN` takes the write lock only at the first write, and a second process that
 * wants to upgrade then gets SQLITE_BUSY at once (the busy handler is not called, as waiting could
 * deadlock). `BEGIN IMMEDIATE` takes the write lock up front, so writers queue on busy_timeout instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig
  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config)
  }
}

export function openSqlite(path: string, busyTimeoutMs = 5000): BetterSqlite3.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const handle = new BetterSqlite3(path)
  // WAL lets the API and the dialer (two processes) read while one writes; busy_timeout makes a
  // writer wait for the other's lock instead of failing. synchronous=FULL: a committed lead
  // survives a power cut, not only a process crash.
  // busy_timeout first, so switching to WAL waits for another process's lock for as long.
  handle.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`)
  handle.pragma('journal_mode = WAL')
  handle.pragma('synchronous = FULL')
  return handle
}

/** Prepared statements kept per SQLite handle; the least recently used is dropped past this many. */
const SQLITE_STATEMENT_CACHE = 200

/**
 * Kysely's SQLite driver prepares every statement again each time it runs; parsing and planning were a
 * large part of a claim on SQLite. The same SQL text reuses its prepared statement instead. Safe
 * because Kysely runs one statement at a time on its single connection, and a statement is only busy
 * while it runs (or is iterated, which holds the connection for the whole iteration).
 */
export function cachingStatements(handle: BetterSqlite3.Database): {
  close(): void
  prepare(sql: string): BetterSqlite3.Statement
} {
  const cache = new Map<string, BetterSqlite3.Statement>()
  return {
    close: () => {
      cache.clear()
      handle.close()
    },
    prepare: (sql) => {
      let statement = cache.get(sql)
      if (statement) {
        cache.delete(sql)
      } else {
        statement = handle.prepare(sql)
        if (cache.size >= SQLITE_STATEMENT_CACHE) cache.delete(cache.keys().next().value!)
      }
      cache.set(sql, statement)
      return statement
    },
  }
}

/**
 * The MySQL session every pooled connection gets: UTC (timestamps are stored as UTC text),
 * strict mode (a too-long value is an error, never silently cut), and READ COMMITTED so the
 * claim's locking reads take no gap locks that would stall the API's inserts.
 */
const MYSQL_SESSION = [
  "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
]

export function connect(url: string, options: ConnectOptions = {}): Db {
  const target = describeDatabaseUrl(url)
  if (target.dialect === 'sqlite') {
    const handle = openSqlite(target.database, options.sqliteBusyTimeoutMs)
    const statements = cachingStatements(handle)
    const kysely = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: statements }) })
    const batch = sqliteBatchRunner(kysely, (text) => statements.prepare(text))
    return { kysely, dialect: 'sqlite', target, batch, close: () => kysely.destroy() }
  }
  const u = new URL(url)
  const poolOptions: PoolOptions = {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
    connectionLimit: options.poolSize ?? 10,
    // Affected-row counts mean rows changed, not rows matched.
    flags: ['-FOUND_ROWS'],
    // DATETIME(3) comes back as the same UTC text SQLite stores.
    dateStrings: true,
    timezone: 'Z',
    charset: 'utf8mb4',
    enableKeepAlive: true,
  }
  const pool = createPool(poolOptions)
  const batchPool = createPool({ ...poolOptions, multipleStatements: true })
  batchPool.on('connection', (connection) => {
    // Queued ahead of anything the pool's user sends on this connection.
    // A connection whose session cannot be set up is not used.
    connection.query(MYSQL_SESSION.join(';\n'), (err) => {
      if (err) connection.destroy()
    })
  })
  const batch = mysqlBatchRunner(batchPool)
  const kysely = new Kysely<Database>({
    dialect: new MysqlDialect({
      pool,
      onCreateConnection: async (connection) => {
        for (const statement of MYSQL_SESSION) await connection.executeQuery(CompiledQuery.raw(statement))
      },
    }),
  })
  return {
    kysely,
    dialect: 'mysql',
    target,
    batch,
    close: async () => {
      await Promise.all([kysely.destroy(), batch.close()])
    },
  }
}
