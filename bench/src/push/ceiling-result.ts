import { percentile } from '../lib/stats.js'

/** What a plain-script run measured, in the same shape as an HTTP run's figures. */
export interface CeilingResult {
  requests: number
  rows: number
  seconds: number
  rowsPerSec: number
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  /** Deadlocks and lock waits the script retried. */
  retries: number
  /** Transactions committed (the SQLite scripts count them; a group commit has fewer than requests). */
  commits?: number
}

export function ceilingResult(
  latenciesMs: number[],
  rows: number,
  seconds: number,
  retries: number,
): CeilingResult {
  return {
    requests: latenciesMs.length,
    rows,
    seconds,
    rowsPerSec: rows / seconds,
    requestsPerSec: latenciesMs.length / seconds,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
    retries,
  }
}
