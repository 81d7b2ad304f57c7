/**
 * Database errors worth retrying the whole transaction for, in one table. Everything else is a bug
 * or bad input and is rethrown. Sources: MySQL/MariaDB server error codes (1205, 1213, 1317, 1927,
 * 4031), mysql2 client codes for a dropped connection, SQLite result codes (better-sqlite3 sets
 * `code`).
 */
const RETRYABLE: ReadonlyArray<{ match: (e: DbErrorLike) => boolean; why: string }> = [
  { match: (e) => e.errno === 1213 || e.code === 'ER_LOCK_DEADLOCK', why: 'deadlock' },
  { match: (e) => e.errno === 1205 || e.code === 'ER_LOCK_WAIT_TIMEOUT', why: 'lock wait timeout' },
  { match: (e) => e.errno === 1927 || e.errno === 4031, why: 'connection killed by server' },
  // KILL QUERY: the statement was stopped, the connection lives; every statement here is short.
  { match: (e) => e.errno === 1317 || e.code === 'ER_QUERY_INTERRUPTED', why: 'query interrupted' },
  {
    match: (e) =>
      e.code === 'PROTOCOL_CONNECTION_LOST' ||
      e.code === 'ECONNRESET' ||
      e.code === 'ECONNREFUSED' ||
      e.code === 'EPIPE' ||
      e.errno === 2006 ||
      e.errno === 2013 ||
      // mysql2 marks every error that ends a connection `fatal`, and some of them carry no code:
      // "Can't add new command when connection is in closed state" (a statement, often the
      // ROLLBACK, sent on a connection that has just died) was answered as a 500 before.
      e.fatal === true,
    why: 'lost connection',
  },
  { match: (e) => typeof e.code === 'string' && e.code.startsWith('SQLITE_BUSY'), why: 'sqlite busy' },
  { match: (e) => typeof e.code === 'string' && e.code.startsWith('SQLITE_LOCKED'), why: 'sqlite locked' },
]

/**
 * Errors that mean the database cannot serve us right now, as opposed to a bug: it cannot be reached,
 * refuses our login or our database, is shutting down or read-only, or is out of connections or
 * disk. With the retryable errors above (once their retries are used up) these are a 503
 * `database_unavailable`, never a 500 (DECISIONS section 3, "Database unavailable").
 */
const UNAVAILABLE: ReadonlyArray<{ match: (e: DbErrorLike) => boolean; why: string }> = [
  {
    match: (e) =>
      typeof e.code === 'string' &&
      ['ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN'].includes(e.code),
    why: 'cannot reach the server',
  },
  { match: (e) => typeof e.code === 'string' && e.code.startsWith('PROTOCOL_'), why: 'lost connection' },
  {
    // 1044/1045 access denied, 1049 unknown database, 1040/1203/1226 out of connections, 1053 server
    // shutting down, 1290 read-only (--read-only during a fail-over), 2002/2003/2005 cannot connect.
    match: (e) =>
      typeof e.errno === 'number' &&
      [1040, 1044, 1045, 1049, 1053, 1203, 1226, 1290, 2002, 2003, 2005].includes(e.errno),
    why: 'refused by the server',
  },
  {
    match: (e) =>
      typeof e.code === 'string' &&
      /^SQLITE_(CANTOPEN|IOERR|FULL|READONLY_(RECOVERY|CANTLOCK|DIRECTORY))/.test(e.code),
    why: 'database file unusable',
  },
]

export interface DbErrorLike {
  code?: unknown
  errno?: unknown
  fatal?: unknown
}

/** Why the error is retryable, or undefined when it is not. */
export function retryableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as DbErrorLike
  return RETRYABLE.find((r) => r.match(e))?.why
}

/**
 * Why the error (or any error in its `cause` chain, as `TransactionFailedError` wraps the last one)
 * means the database is unavailable, or undefined when it is a bug or bad input.
 */
export function unavailableReason(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const reason = retryableReason(e) ?? UNAVAILABLE.find((r) => r.match(e as DbErrorLike))?.why
    if (reason !== undefined) return reason
    e = (e as { cause?: unknown }).cause
  }
  return undefined
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
