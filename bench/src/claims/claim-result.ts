import { percentile } from '../lib/stats.js'

export interface ClaimResult {
  /** Leads claimed and then settled (released) within the run. */
  claims: number
  seconds: number
  claimsPerSec: number
  /** One claim transaction plus its settle write. */
  p50Ms: number
  p99Ms: number
  /** A lead claimed while another claimer held it, or claimed again after it was settled. */
  doubleClaims: number
  /** The run found no lead to claim before its time was up (the pool was too small). */
  exhausted: boolean
}

/** Errors with MySQL's lock codes a run met: 1205 ER_LOCK_WAIT_TIMEOUT, 1213 ER_LOCK_DEADLOCK. */
export interface LockErrors {
  lockWaitTimeout: number
  deadlock: number
}

/** The MySQL error number of `error` or of the first error in its `cause` chain that has one. */
export function mysqlErrno(error: unknown): number | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 10; depth++) {
    const errno = (e as { errno?: unknown }).errno
    if (typeof errno === 'number') return errno
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

/** Counts double claims: every lead settles to a state no claim takes, so a second claim is one. */
export class ClaimLedger {
  readonly #seen = new Set<number>()
  readonly latencies: number[] = []
  readonly lockErrors: LockErrors = { lockWaitTimeout: 0, deadlock: 0 }
  doubleClaims = 0
  exhausted = false

  claimed(id: number): void {
    if (this.#seen.has(id)) this.doubleClaims += 1
    this.#seen.add(id)
  }

  /** Every lead claimed, once each (a process's share of a scale-out run, merged by its parent). */
  ids(): number[] {
    return [...this.#seen]
  }

  /** Counts `error` if it is a lock wait timeout or a deadlock; false for any other error. */
  lockError(error: unknown): boolean {
    const errno = mysqlErrno(error)
    if (errno === 1205) this.lockErrors.lockWaitTimeout += 1
    else if (errno === 1213) this.lockErrors.deadlock += 1
    else return false
    return true
  }

  result(seconds: number): ClaimResult {
    return {
      claims: this.latencies.length,
      seconds,
      claimsPerSec: this.latencies.length / seconds,
      p50Ms: percentile(this.latencies, 50),
      p99Ms: percentile(this.latencies, 99),
      doubleClaims: this.doubleClaims,
      exhausted: this.exhausted,
    }
  }
}
