import type { ScaleoutSetting } from '../scaleout/scaleout-cases.js'
import { render, type TableOptions, withoutVerdict } from './table.js'

const num = (n: number | null, digits = 0) => (n !== null && Number.isFinite(n) ? n.toFixed(digits) : '-')

/**
 * The scale-out table: aggregate claims of 1, 2 and 3 dialers on one MariaDB, the ratio to one
 * dialer, the lock trouble, and what limits it (MariaDB's CPU and the dialers' CPU per claim).
 */
export function scaleoutTable(rows: readonly ScaleoutSetting[], o: TableOptions = { verdict: true }): string {
  const table = [
    [
      'dialers',
      'agents',
      'claims/s',
      'p50 ms',
      'p99 ms',
      'vs 1 dialer',
      'target',
      'met',
      'double claims',
      '1205 / 1213 errors',
      'row lock waits',
      'deadlocks',
      'MariaDB CPU ms/claim',
      'MariaDB cores',
      'dialers CPU ms/claim',
    ],
    ...rows.map((r) => [
      String(r.dialers),
      r.split,
      num(r.claimsPerSec),
      num(r.p50Ms, 1),
      num(r.p99Ms, 1),
      num(r.ratioToOne, 2),
      r.target,
      r.met ? 'yes' : 'NO',
      String(r.doubleClaims),
      `${r.lockWaitTimeouts} / ${r.deadlockErrors}`,
      String(r.rowLockWaits),
      String(r.deadlocks),
      num(r.mariadbCpuMsPerClaim, 2),
      num(r.mariadbCores, 2),
      num(r.claimersCpuMsPerClaim, 2),
    ]),
  ]
  return render(withoutVerdict(table, 6, o))
}

/** The "what limits it" line under the table. */
export function scaleoutLimit(rows: readonly ScaleoutSetting[]): string {
  const parts = rows.map((r) => {
    const db =
      r.mariadbCores === null ? 'MariaDB CPU not readable' : `MariaDB ${num(r.mariadbCores, 2)} cores busy`
    const node = ((r.claimsPerSec * r.claimersCpuMsPerClaim) / 1000).toFixed(2)
    return `${r.dialers} dialer${r.dialers > 1 ? 's' : ''}: ${db}, dialers ${node} cores`
  })
  return `what limits it (of this machine's cores; lock counters are server-wide): ${parts.join('; ')}`
}
