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

/** Counts double claims: every lead settles to a state no claim takes, so a second claim is one. */
export class ClaimLedger {
  readonly #seen = new Set<number>()
  readonly latencies: number[] = []
  doubleClaims = 0
  exhausted = false

  claimed(id: number): void {
    if (this.#seen.has(id)) this.doubleClaims += 1
    this.#seen.add(id)
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
