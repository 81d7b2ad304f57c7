/**
 * Database errors worth retrying the whole transaction for, in one table. Everything else is a bug
 * or bad input and is rethrown. Sources: MySQL/MariaDB server error codes (1205, 1213, 1927, 4031),
 * mysql2 client codes for a dropped connection, SQLite result codes (better-sqlite3 sets `code`).
 */
const RETRYABLE: ReadonlyArray<{ match: (e: DbErrorLike) => boolean; why: string }> = [
  { match: (e) => e.errno === 1213 || e.code === 'ER_LOCK_DEADLOCK', why: 'deadlock' },
  { match: (e) => e.errno === 1205 || e.code === 'ER_LOCK_WAIT_TIMEOUT', why: 'lock wait timeout' },
  { match: (e) => e.errno === 1927 || e.errno === 4031, why: 'connection killed by server' },
  {
    match: (e) =>
      e.code === 'PROTOCOL_CONNECTION_LOST' ||
      e.code === 'ECONNRESET' ||
      e.code === 'ECONNREFUSED' ||
      e.code === 'EPIPE' ||
      e.errno === 2006 ||
      e.errno === 2013,
    why: 'lost connection',
  },
  { match: (e) => typeof e.code === 'string' && e.code.startsWith('SQLITE_BUSY'), why: 'sqlite busy' },
  { match: (e) => typeof e.code === 'string' && e.code.startsWith('SQLITE_LOCKED'), why: 'sqlite locked' },
]

export interface DbErrorLike {
  code?: unknown
  errno?: unknown
}

/** Why the error is retryable, or undefined when it is not. */
export function retryableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as DbErrorLike
  return RETRYABLE.find((r) => r.match(e))?.why
}

/** A unique-key violation (MySQL 1062, SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY). */
export function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const e = error as DbErrorLike
  return (
    e.errno === 1062 ||
    e.code === 'ER_DUP_ENTRY' ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  )
}
