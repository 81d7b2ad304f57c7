import type { Db, Dialect } from '@hold-dialer/db'
import { alternate } from '../lib/alternate.js'
import { step } from '../lib/progress.js'
import { openPlainSqlite } from '../push/sqlite-ceiling.js'
import type { ComparedCase, RunFigures } from '../report/figures.js'
import { summarise } from '../report/figures.js'
import { CLAIMERS, resetClaimPool } from './claim-pool.js'
import type { ClaimResult } from './claim-result.js'
import { dialerClaims } from './dialer-claims.js'
import { rawMysqlClaims, rawSqliteClaims } from './raw-claims.js'

/** The performance issue's targets: claims per second as a share of the raw loop's. */
const CLAIM_TARGET: Record<Dialect, number> = { mysql: 0.9, sqlite: 0.8 }

export interface ClaimCaseOptions {
  dialect: Dialect
  databaseUrl: string
  db: Db
  agents: readonly number[]
  rounds: number
  seconds: number
}

/** Problems that fail the run: a double claim on either side, or a pool too small for the run. */
export function claimProblems(side: string, r: ClaimResult): string[] {
  const out: string[] = []
  if (r.doubleClaims > 0) out.push(`${side}: ${r.doubleClaims} double claims`)
  if (r.exhausted) out.push(`${side}: ran out of leads after ${r.claims} claims (pool too small)`)
  return out
}

/** Claims per second by the dialer's claim code vs the raw loop, alternating; double claims counted. */
export async function claimCases(
  o: ClaimCaseOptions,
): Promise<{ cases: ComparedCase[]; doubleClaims: number }> {
  let doubleClaims = 0
  const record = (side: string, r: ClaimResult): RunFigures => {
    doubleClaims += r.doubleClaims
    const problems = claimProblems(`${o.dialect} ${side} claims`, r)
    if (problems.length > 0) throw new Error(problems.join('\n'))
    return { rate: r.claimsPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms }
  }
  const product = async () =>
    record('dialer', await dialerClaims(o.db, { agents: o.agents, seconds: o.seconds }))
  const ceiling = async () => {
    if (o.dialect === 'mysql') {
      return record('raw', await rawMysqlClaims(o.databaseUrl, { claimers: CLAIMERS, seconds: o.seconds }))
    }
    const handle = openPlainSqlite(o.databaseUrl.slice('sqlite:'.length))
    try {
      return record('raw', await rawSqliteClaims(handle, { claimers: CLAIMERS, seconds: o.seconds }))
    } finally {
      handle.close()
    }
  }
  const reset = () => resetClaimPool(o.db.kysely)
  await reset()
  step('claims: warm-up')
  await dialerClaims(o.db, { agents: o.agents, seconds: Math.min(2, o.seconds) })
  const runs = await alternate(o.rounds, product, ceiling, reset, 'claims: ')
  const p = summarise(runs.product)
  const c = summarise(runs.ceiling)
  const ratio = p.rate / c.rate
  return {
    doubleClaims,
    cases: [
      {
        name: `${o.dialect} claim + settle`,
        unit: 'claims/s',
        product: p,
        ceiling: c,
        ratio,
        target: `>= ${CLAIM_TARGET[o.dialect].toFixed(2)}, 0 double`,
        met: ratio >= CLAIM_TARGET[o.dialect] && doubleClaims === 0,
        note: `${CLAIMERS} claimers${o.dialect === 'sqlite' ? ' (raw: group commit)' : ''}, ${doubleClaims} double claims`,
      },
    ],
  }
}
