import type { LockErrors } from '../claims/claim-result.js'
import { percentile } from '../lib/stats.js'

/** What one dialer process of a scale-out run claimed (written by claimer-main.ts). */
export interface DialerShare {
  /** Leads it claimed, once each. */
  ids: number[]
  /** One claim with its release, in ms. */
  latencies: number[]
  /** Leads it claimed twice itself. */
  doubleClaims: number
  lockErrors: LockErrors
  /** CPU time (user + system) of the process over the run. */
  cpuMs: number
  seconds: number
  exhausted: boolean
}

/** One run of one setting (1, 2 or 3 dialers), every process's share merged. */
export interface ScaleoutRun {
  dialers: number
  claims: number
  claimsPerSec: number
  p50Ms: number
  p99Ms: number
  /** Leads claimed twice in the run, within one process or across processes. */
  doubleClaims: number
  lockErrors: LockErrors
  /** Deltas of SHOW GLOBAL STATUS over the run (server-wide: other clients of the server count too). */
  rowLockWaits: number
  deadlocks: number
  /** MariaDB's CPU per claim, and the cores it kept busy; null when its /proc entry is not readable. */
  mariadbCpuMsPerClaim: number | null
  mariadbCores: number | null
  /** The dialer processes' CPU per claim, all of them together. */
  claimersCpuMsPerClaim: number
  exhausted: boolean
}

export interface ServerDeltas {
  rowLockWaits: number
  deadlocks: number
  /** MariaDB's CPU over the run, or null. */
  mariadbCpuMs: number | null
}

/** Merges the processes' shares: aggregate rate over the longest share, latencies pooled, ids checked. */
export function mergeShares(shares: readonly DialerShare[], server: ServerDeltas): ScaleoutRun {
  const seen = new Set<number>()
  let doubleClaims = 0
  for (const s of shares) {
    doubleClaims += s.doubleClaims
    for (const id of s.ids) {
      if (seen.has(id)) doubleClaims += 1
      seen.add(id)
    }
  }
  const latencies = shares.flatMap((s) => s.latencies)
  const claims = latencies.length
  const seconds = Math.max(...shares.map((s) => s.seconds))
  const perClaim = (ms: number) => (claims > 0 ? ms / claims : Number.NaN)
  return {
    dialers: shares.length,
    claims,
    claimsPerSec: claims / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    doubleClaims,
    lockErrors: {
      lockWaitTimeout: shares.reduce((n, s) => n + s.lockErrors.lockWaitTimeout, 0),
      deadlock: shares.reduce((n, s) => n + s.lockErrors.deadlock, 0),
    },
    rowLockWaits: server.rowLockWaits,
    deadlocks: server.deadlocks,
    mariadbCpuMsPerClaim: server.mariadbCpuMs === null ? null : perClaim(server.mariadbCpuMs),
    mariadbCores: server.mariadbCpuMs === null ? null : server.mariadbCpuMs / 1000 / seconds,
    claimersCpuMsPerClaim: perClaim(shares.reduce((n, s) => n + s.cpuMs, 0)),
    exhausted: shares.some((s) => s.exhausted),
  }
}

/** What fails the run: a double claim, or a pool too small for it. */
export function scaleoutProblems(run: ScaleoutRun): string[] {
  const out: string[] = []
  const side = `scale-out, ${run.dialers} dialer${run.dialers > 1 ? 's' : ''}`
  if (run.doubleClaims > 0) out.push(`${side}: ${run.doubleClaims} double claims`)
  if (run.exhausted) out.push(`${side}: ran out of leads after ${run.claims} claims (pool too small)`)
  return out
}

/** `agents` split among `dialers` processes as evenly as it goes: 30 -> 15+15 -> 10+10+10. */
export function splitAgents(agents: readonly number[], dialers: number): number[][] {
  const out: number[][] = Array.from({ length: dialers }, () => [])
  agents.forEach((a, i) => {
    out[i % dialers]!.push(a)
  })
  return out
}
