import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type Kysely } from 'kysely'
import type { Pool, PoolConnection } from 'mysql2'
import type { Database } from './database.js'

/** One SQL statement with `?` placeholders, written for both dialects. */
export interface Statement {
  readonly sql: string
  readonly params: readonly (string | number | null)[]
}

export interface StatementResult {
  /** The rows of a SELECT; empty for a write. */
  readonly rows: readonly Record<string, unknown>[]
  /** Rows a write changed (not matched: the MySQL pool runs with -FOUND_ROWS). */
  readonly affectedRows: number
}

export interface BatchSession {
  /**
   * Runs the statements in order: on MySQL in one round trip, the first call's batch preceded by
   * BEGIN; with `commit`, COMMIT follows in the same round trip. A session that ends without a commit
   * is rolled back.
   */
  run(statements: readonly Statement[], options?: { commit?: boolean }): Promise<StatementResult[]>
}

/**
 * Runs one statement on Kysely's connection or transaction, as it is: for fixed SQL text that a batch
 * also sends (on SQLite the same text reuses its prepared statement).
 */
export async function runStatement(db: Kysely<Database>, statement: Statement): Promise<StatementResult> {
  const result = await db.executeQuery(CompiledQuery.raw(statement.sql, [...statement.params]))
  return { rows: result.rows as Record<string, unknown>[], affectedRows: Number(result.numAffectedRows ?? 0) }
}

/** One try of a batch transaction; `withBatchTransaction` (transaction.ts) retries it. */
export interface BatchRunner {
  transaction<T>(fn: (session: BatchSession) => Promise<T>): Promise<T>
  close(): Promise<void>
}

const BEGIN: Statement = { sql: 'BEGIN', params: [] }
const COMMIT: Statement = { sql: 'COMMIT', params: [] }

/**
 * MySQL: statements sent together in one packet on a pool of its own opened with
 * `multipleStatements`. Round trips, not statements, set the pace of a short transaction on MySQL
 * (every packet wakes a server thread, and the client waits for its answer): a claim written with one
 * statement per round trip made seven of them. No library offers "these statements, then maybe
 * more, in one transaction, one packet each", so this is written here. Only this module's callers,
 * whose SQL text is fixed and whose values are always placeholders, use the pool; everything else
 * stays on Kysely's pool, where stacked statements are refused.
 */
export function mysqlBatchRunner(pool: Pool): BatchRunner {
  const connection = () =>
    new Promise<PoolConnection>((resolve, reject) =>
      pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
    )
  const query = (conn: PoolConnection, statements: readonly Statement[]) =>
    new Promise<unknown>((resolve, reject) =>
      conn.query(
        {
          sql: statements.map((s) => s.sql).join(';\n'),
          // concat sizes the list once; flatMap grew it value by value (a 500-lead batch has 11,500).
          values: ([] as unknown[]).concat(...statements.map((s) => s.params)),
        },
        (err, results) => (err ? reject(err) : resolve(results)),
      ),
    )
  return {
    async transaction(fn) {
      const conn = await connection()
      let begun = false
      let ended = false
      const session: BatchSession = {
        async run(statements, options) {
          const sent = [...(begun ? [] : [BEGIN]), ...statements, ...(options?.commit ? [COMMIT] : [])]
          const skip = begun ? 0 : 1
          begun = true
          const results = await query(conn, sent)
          if (options?.commit) ended = true
          const list = (sent.length === 1 ? [results] : results) as unknown[]
          return list.slice(skip, skip + statements.length).map(mysqlResult)
        },
      }
      try {
        const value = await fn(session)
        if (begun && !ended) await query(conn, [{ sql: 'ROLLBACK', params: [] }])
        conn.release()
        return value
      } catch (error) {
        // A failed statement leaves the transaction open (or the connection dead): roll back, and
        // drop a connection that cannot even do that.
        if (begun && !ended) {
          await query(conn, [{ sql: 'ROLLBACK', params: [] }]).then(
            () => conn.release(),
            () => conn.destroy(),
          )
        } else conn.release()
        throw error
      }
    },
    close: () => new Promise<void>((resolve, reject) => pool.end((err) => (err ? reject(err) : resolve()))),
  }
}

function mysqlResult(result: unknown): StatementResult {
  if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], affectedRows: 0 }
  return { rows: [], affectedRows: Number((result as { affectedRows?: number }).affectedRows ?? 0) }
}

/**
 * SQLite: the same session on the one better-sqlite3 handle, holding Kysely's connection (its lock)
 * for the whole transaction, so no Kysely transaction can interleave with it. Statements are calls
 * into the process: running them directly on prepared statements skips Kysely's compile and result
 * handling, which were most of a claim's time on SQLite.
 */
export function sqliteBatchRunner(
  db: Kysely<Database>,
  prepare: (sql: string) => BetterSqlite3.Statement,
): BatchRunner {
  const exec = (s: Statement): StatementResult => {
    const statement = prepare(s.sql)
    if (statement.reader)
      return { rows: statement.all(...s.params) as Record<string, unknown>[], affectedRows: 0 }
    return { rows: [], affectedRows: statement.run(...s.params).changes }
  }
  return {
    transaction: (fn) =>
      db.connection().execute(async () => {
        let begun = false
        let ended = false
        const session: BatchSession = {
          async run(statements, options) {
            if (!begun) exec({ sql: 'BEGIN IMMEDIATE', params: [] })
            begun = true
            const results = statements.map(exec)
            if (options?.commit) {
              exec(COMMIT)
              ended = true
            }
            return results
          },
        }
        try {
          const value = await fn(session)
          if (begun && !ended) exec({ sql: 'ROLLBACK', params: [] })
          return value
        } catch (error) {
          if (begun && !ended) {
            try {
              exec({ sql: 'ROLLBACK', params: [] })
            } catch {
              // SQLite may already have rolled the transaction back itself (a failed COMMIT).
            }
          }
          throw error
        }
      }),
    close: async () => {},
  }
}
