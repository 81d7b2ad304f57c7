import type { Kysely, Transaction } from 'kysely'
import type { BatchSession } from './batch.js'
import type { Db } from './connect.js'
import type { Database } from './database.js'
import { retryableReason } from './retryable-errors.js'

export interface TransactionOptions {
  /** Further tries after the first (default 5). */
  retries?: number
  /** First backoff in ms (default 20); doubles each try, capped at maxDelayMs. */
  baseDelayMs?: number
  maxDelayMs?: number
  /**
   * Further errors to retry for this transaction only, e.g. a duplicate key from a concurrent insert
   * that a re-run will see as an update. Returns the reason, or undefined.
   */
  alsoRetry?: (error: unknown) => string | undefined
  /** Called before each retry, for logs and metrics. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; error: unknown }) => void
}

export class TransactionFailedError extends Error {
  override readonly name = 'TransactionFailedError'
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs `fn` in a transaction and runs it again, whole, on a retryable error (deadlock, lock wait,
 * lost connection, SQLITE_BUSY) with capped, fully jittered exponential backoff. `fn` must be safe
 * to repeat: it re-reads what it needs inside the transaction. A lost connection during COMMIT is
 * ambiguous; every write in this project is an idempotent upsert or a guarded state change, so a
 * repeat is harmless.
 */
export function withTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  return retrying(() => db.transaction().execute(fn), options)
}

/**
 * Runs `fn` (an autocommit statement or a read, outside any transaction) again on the errors
 * `withTransaction` retries, with the same backoff: each try takes a connection from the pool, so a
 * statement that failed on a lost connection runs again on a fresh one. `fn` must be safe to repeat.
 */
export function withRetry<T>(fn: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  return retrying(fn, options)
}

/**
 * `withTransaction` for a batch session (batch.ts): the same retries, the same rule that `fn` must
 * be safe to repeat whole.
 */
export function withBatchTransaction<T>(
  db: Db,
  fn: (session: BatchSession) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  return retrying(() => db.batch.transaction(fn), options)
}

async function retrying<T>(attemptOnce: () => Promise<T>, options: TransactionOptions): Promise<T> {
  const retries = options.retries ?? 5
  const base = options.baseDelayMs ?? 20
  const cap = options.maxDelayMs ?? 1000
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce()
    } catch (error) {
      const reason = retryableReason(error) ?? options.alsoRetry?.(error)
      if (reason === undefined) throw error
      if (attempt >= retries) {
        throw new TransactionFailedError(`transaction failed after ${attempt + 1} tries (${reason})`, {
          cause: error,
        })
      }
      const delayMs = Math.round(Math.random() * Math.min(cap, base * 2 ** attempt))
      options.onRetry?.({ attempt: attempt + 1, reason, delayMs, error })
      await sleep(delayMs)
    }
  }
}
