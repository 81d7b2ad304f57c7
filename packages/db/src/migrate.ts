import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { toDbTime } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'
import type { Db, Dialect } from './connect.js'
import type { Database } from './database.js'

/** `db/migrations` at the repository root; the same depth from `src/` and `dist/`. */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../../db/migrations/', import.meta.url))

const LOCK_NAME = 'hold_dialer_migrate'

export interface Migration {
  /** `0004_create_master_data`: the file name without the dialect suffix. */
  id: string
  statements: string[]
}

export interface MigrateOptions {
  dir?: string
  /** Seconds to wait for another process's migration to finish (MySQL GET_LOCK; default 60). */
  lockTimeoutSeconds?: number
  /** Called once per migration applied. */
  onApplied?: (id: string) => void
  now?: () => Date
}

export interface MigrateResult {
  applied: string[]
  /** Migrations already recorded before this run. */
  alreadyApplied: number
}

/**
 * Splits a migration file into statements. Our files are plain DDL/DML with `--` comments and no
 * procedural bodies, so a `;` at the end of a line always ends a statement.
 */
export function splitStatements(text: string): string[] {
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

export async function loadMigrations(dialect: Dialect, dir = DEFAULT_MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort()
  const ids = new Set(names.map((n) => n.replace(/\.(mysql|sqlite)\.sql$/, '')))
  const migrations: Migration[] = []
  for (const id of [...ids].sort()) {
    if (!/^\d{4}_[a-z0-9_]+$/.test(id)) throw new Error(`migration file name not understood: ${id}`)
    const file = `${id}.${dialect}.sql`
    if (!names.includes(file)) throw new Error(`migration ${id} has no ${dialect} file (${file})`)
    migrations.push({ id, statements: splitStatements(await readFile(`${dir}/${file}`, 'utf8')) })
  }
  return migrations
}

const CREATE_LEDGER = {
  mysql:
    'CREATE TABLE IF NOT EXISTS hold_dialer_schema_migrations (id VARCHAR(200) NOT NULL PRIMARY KEY, applied_at DATETIME(3) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
  sqlite:
    'CREATE TABLE IF NOT EXISTS hold_dialer_schema_migrations (id TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)',
} as const

/**
 * Applies every pending migration, forward only, under a lock so that two processes starting
 * together cannot both migrate: MySQL's named lock `GET_LOCK` (DDL is not transactional there, so
 * a transaction could not serialize it), SQLite's write lock taken by `BEGIN IMMEDIATE` around
 * the whole run (SQLite DDL is transactional, so a failed run leaves nothing half-done).
 */
export async function migrate(handle: Db, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = await loadMigrations(handle.dialect, options.dir)
  const now = options.now ?? (() => new Date())
  if (handle.dialect === 'sqlite') {
    return handle.kysely.transaction().execute((trx) => applyPending(trx, 'sqlite', migrations, now, options))
  }
  return handle.kysely.connection().execute(async (conn) => {
    const timeout = options.lockTimeoutSeconds ?? 60
    const lock = await sql<{ got: number | null }>`SELECT GET_LOCK(${LOCK_NAME}, ${timeout}) AS got`.execute(
      conn,
    )
    if (lock.rows[0]?.got !== 1) throw new Error(`could not take the migration lock within ${timeout} s`)
    try {
      return await applyPending(conn, 'mysql', migrations, now, options)
    } finally {
      await sql`SELECT RELEASE_LOCK(${LOCK_NAME})`.execute(conn)
    }
  })
}

/**
 * The migrations this version has that the database has not applied, by id (every one when the
 * database has no ledger yet). Read-only: for a process that does not migrate at start.
 */
export async function pendingMigrations(handle: Db, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = await loadMigrations(handle.dialect, options.dir)
  const ledger = await sql<{ id: string }>`SELECT id FROM hold_dialer_schema_migrations`
    .execute(handle.kysely)
    .then(
      (r) => new Set(r.rows.map((row) => row.id)),
      (err: unknown) => {
        // No ledger: a database nothing has migrated. Any other error is the caller's to see.
        if (/no such table|doesn't exist/i.test(String((err as Error)?.message))) return new Set<string>()
        throw err
      },
    )
  return migrations.map((m) => m.id).filter((id) => !ledger.has(id))
}

async function applyPending(
  db: Kysely<Database>,
  dialect: Dialect,
  migrations: Migration[],
  now: () => Date,
  options: MigrateOptions,
): Promise<MigrateResult> {
  await sql.raw(CREATE_LEDGER[dialect]).execute(db)
  const done = new Set(
    (await db.selectFrom('hold_dialer_schema_migrations').select('id').execute()).map((r) => r.id),
  )
  const collation = dialect === 'mysql' ? await binaryCollation(db) : ''
  const applied: string[] = []
  for (const migration of migrations) {
    if (done.has(migration.id)) continue
    for (const statement of migration.statements) {
      await sql.raw(statement.replaceAll('{{bin_collation}}', collation)).execute(db)
    }
    await db
      .insertInto('hold_dialer_schema_migrations')
      .values({ id: migration.id, applied_at: toDbTime(now()) })
      .execute()
    applied.push(migration.id)
    options.onApplied?.(migration.id)
  }
  return { applied, alreadyApplied: done.size }
}

/**
 * A binary, NO PAD collation so `oli_id` compares exactly as on SQLite ('a' and 'a ' differ).
 * MariaDB calls it utf8mb4_nopad_bin, MySQL 8 utf8mb4_0900_bin; neither exists on the other.
 */
async function binaryCollation(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(db)
  return /mariadb/i.test(rows[0]?.v ?? '') ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin'
}
