import type { Db } from '@hold-dialer/db'
import { resetClaimPool } from '../claims/claim-pool.js'
import { step } from '../lib/progress.js'
import { median } from '../lib/stats.js'
import { type ScaleoutRun, scaleoutProblems, splitAgents } from './scaleout-merge.js'
import { scaleoutRun } from './scaleout-run.js'

/** Dialer processes sharing one MariaDB database, side by side in one run. */
export const SCALEOUT_SETTINGS = [1, 2, 3] as const

/** The target: three dialers claim at least 0.95 of what one claims alone. */
export const SCALEOUT_TARGET = 0.95

/** Medians over the rounds of one setting; counts (double claims, lock errors) are summed. */
export interface ScaleoutSetting {
  dialers: number
  /** The agents each process claims for, e.g. `10+10+10`. */
  split: string
  claimsPerSec: number
  p50Ms: number
  p99Ms: number
  /** Aggregate claims/s against one dialer's (medians). */
  ratioToOne: number
  target: string
  met: boolean
  doubleClaims: number
  lockWaitTimeouts: number
  deadlockErrors: number
  rowLockWaits: number
  deadlocks: number
  mariadbCpuMsPerClaim: number | null
  mariadbCores: number | null
  claimersCpuMsPerClaim: number
  rounds: ScaleoutRun[]
}

const sum = (runs: readonly ScaleoutRun[], of: (r: ScaleoutRun) => number) =>
  runs.reduce((n, r) => n + of(r), 0)
const medianOrNull = (values: (number | null)[]) =>
  values.some((v) => v === null) ? null : median(values as number[])

/** Rounds of every setting into one row each, with the ratio of each to one dialer. */
export function summariseScaleout(
  runs: ReadonlyMap<number, readonly ScaleoutRun[]>,
  agents: readonly number[],
): ScaleoutSetting[] {
  const one = median((runs.get(1) ?? []).map((r) => r.claimsPerSec))
  return [...runs].map(([dialers, rounds]) => {
    const rate = median(rounds.map((r) => r.claimsPerSec))
    const ratioToOne = rate / one
    const doubleClaims = sum(rounds, (r) => r.doubleClaims)
    const targeted = dialers === SCALEOUT_SETTINGS.at(-1)
    return {
      dialers,
      split: splitAgents(agents, dialers)
        .map((s) => s.length)
        .join('+'),
      claimsPerSec: rate,
      p50Ms: median(rounds.map((r) => r.p50Ms)),
      p99Ms: median(rounds.map((r) => r.p99Ms)),
      ratioToOne,
      target: targeted ? `>= ${SCALEOUT_TARGET.toFixed(2)}, 0 double` : '0 double',
      met: doubleClaims === 0 && (!targeted || ratioToOne >= SCALEOUT_TARGET),
      doubleClaims,
      lockWaitTimeouts: sum(rounds, (r) => r.lockErrors.lockWaitTimeout),
      deadlockErrors: sum(rounds, (r) => r.lockErrors.deadlock),
      rowLockWaits: sum(rounds, (r) => r.rowLockWaits),
      deadlocks: sum(rounds, (r) => r.deadlocks),
      mariadbCpuMsPerClaim: medianOrNull(rounds.map((r) => r.mariadbCpuMsPerClaim)),
      mariadbCores: medianOrNull(rounds.map((r) => r.mariadbCores)),
      claimersCpuMsPerClaim: median(rounds.map((r) => r.claimersCpuMsPerClaim)),
      rounds: [...rounds],
    }
  })
}

/** A run's shares merged and checked: a double claim or an emptied pool fails the whole bench. */
export function checkedRun(run: ScaleoutRun): ScaleoutRun {
  const problems = scaleoutProblems(run)
  if (problems.length > 0) throw new Error(problems.join('\n'))
  return run
}

/**
 * Aggregate claims per second of 1, 2 and 3 dialer processes on one MariaDB database, `rounds`
 * times, the order of the settings reversed every other round (as the other cases swap their
 * sides). The claim pool is put back before every run; one short unrecorded run of three dialers
 * warms the server first.
 */
export async function scaleoutCases(o: {
  databaseUrl: string
  db: Db
  agents: readonly number[]
  rounds: number
  seconds: number
}): Promise<ScaleoutSetting[]> {
  const run = async (dialers: number, seconds: number) => {
    await resetClaimPool(o.db.kysely)
    return checkedRun(await scaleoutRun({ databaseUrl: o.databaseUrl, agents: o.agents, dialers, seconds }))
  }
  step('scale-out: warm-up')
  await run(SCALEOUT_SETTINGS.at(-1)!, Math.min(2, o.seconds))
  const runs = new Map<number, ScaleoutRun[]>(SCALEOUT_SETTINGS.map((d) => [d, []]))
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 === 0 ? [...SCALEOUT_SETTINGS] : [...SCALEOUT_SETTINGS].reverse()
    for (const dialers of order) {
      step(`scale-out: round ${r + 1}/${o.rounds}, ${dialers} dialer${dialers > 1 ? 's' : ''}`)
      runs.get(dialers)!.push(await run(dialers, o.seconds))
    }
  }
  return summariseScaleout(runs, o.agents)
}
