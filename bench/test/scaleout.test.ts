import t from 'tap'
import { parseBenchOptions } from '../src/bench-options.js'
import { mysqlErrno } from '../src/claims/claim-result.js'
import { mariadbPid, processCpuMs } from '../src/lib/proc-status.js'
import { scaleoutLimit, scaleoutTable } from '../src/report/scaleout-table.js'
import { checkedRun, SCALEOUT_TARGET, summariseScaleout } from '../src/scaleout/scaleout-cases.js'
import {
  type DialerShare,
  mergeShares,
  type ScaleoutRun,
  splitAgents,
} from '../src/scaleout/scaleout-merge.js'

const AGENTS = Array.from({ length: 30 }, (_, i) => i + 1)

function share(ids: number[], o: Partial<DialerShare> = {}): DialerShare {
  return {
    ids,
    latencies: ids.map(() => 2),
    doubleClaims: 0,
    lockErrors: { lockWaitTimeout: 0, deadlock: 0 },
    cpuMs: ids.length,
    seconds: 1,
    exhausted: false,
    ...o,
  }
}

const quiet = { rowLockWaits: 0, deadlocks: 0, mariadbCpuMs: 40 }

t.test('the agents are shared out 30, 15+15, 10+10+10', async (t) => {
  for (const dialers of [1, 2, 3]) {
    const split = splitAgents(AGENTS, dialers)
    t.same(
      split.map((s) => s.length),
      Array(dialers).fill(30 / dialers),
    )
    t.same(
      split.flat().sort((a, b) => a - b),
      AGENTS,
      'each agent in exactly one process',
    )
  }
})

t.test('a lead claimed by two dialer processes is a double claim, and it fails the run', async (t) => {
  const clean = mergeShares([share([1, 2, 3]), share([4, 5])], quiet)
  t.match(clean, { dialers: 2, claims: 5, claimsPerSec: 5, doubleClaims: 0, claimersCpuMsPerClaim: 1 })
  t.equal(clean.mariadbCpuMsPerClaim, 8)
  t.equal(checkedRun(clean), clean)
  const twice = mergeShares([share([1, 2, 3]), share([3, 4])], quiet)
  t.equal(twice.doubleClaims, 1)
  t.throws(() => checkedRun(twice), /scale-out, 2 dialers: 1 double claims/)
  const within = mergeShares([share([1], { doubleClaims: 2 })], quiet)
  t.throws(() => checkedRun(within), /scale-out, 1 dialer: 2 double claims/)
  const empty = mergeShares([share([1], { exhausted: true })], { ...quiet, mariadbCpuMs: null })
  t.equal(empty.mariadbCpuMsPerClaim, null)
  t.throws(() => checkedRun(empty), /ran out of leads/)
})

function run(dialers: number, claimsPerSec: number, o: Partial<ScaleoutRun> = {}): ScaleoutRun {
  return {
    dialers,
    claims: claimsPerSec,
    claimsPerSec,
    p50Ms: 10,
    p99Ms: 30,
    doubleClaims: 0,
    lockErrors: { lockWaitTimeout: 1, deadlock: 0 },
    rowLockWaits: 2,
    deadlocks: 0,
    mariadbCpuMsPerClaim: 1.5,
    mariadbCores: 1.2,
    claimersCpuMsPerClaim: 0.8,
    exhausted: false,
    ...o,
  }
}

t.test('the settings are compared to one dialer; three must reach the target', async (t) => {
  const rows = summariseScaleout(
    new Map([
      [1, [run(1, 1000), run(1, 1000)]],
      [2, [run(2, 980), run(2, 960)]],
      [3, [run(3, 900), run(3, 940, { mariadbCores: null, mariadbCpuMsPerClaim: null })]],
    ]),
    AGENTS,
  )
  t.same(
    rows.map((r) => [r.dialers, r.split, r.ratioToOne, r.met]),
    [
      [1, '30', 1, true],
      [2, '15+15', 0.97, true],
      [3, '10+10+10', 0.92, false],
    ],
  )
  t.equal(rows[2]!.target, `>= ${SCALEOUT_TARGET.toFixed(2)}, 0 double`)
  t.same([rows[0]!.lockWaitTimeouts, rows[0]!.rowLockWaits], [2, 4], 'counts are summed over the rounds')
  t.equal(rows[2]!.mariadbCores, null, 'a round without MariaDB CPU leaves it unknown')
  const table = scaleoutTable(rows)
  t.match(table, /\| 3 +\| 10\+10\+10 \| 920 +\| 10\.0 +\| 30\.0 +\| 0\.92 +\| >= 0\.95, 0 double \| NO /)
  t.notMatch(scaleoutTable(rows, { verdict: false }), /target|NO/, 'no verdict in the smoke run')
  t.match(
    scaleoutLimit(rows),
    /1 dialer: MariaDB 1\.20 cores busy, dialers 0\.80 cores; .*3 dialers: MariaDB CPU not readable/,
  )
})

t.test('lock errors are found in the cause chain; CPU is read from /proc', async (t) => {
  t.equal(mysqlErrno(new Error('failed', { cause: Object.assign(new Error('lock'), { errno: 1205 }) })), 1205)
  t.equal(mysqlErrno(new Error('plain')), undefined)
  const cpu = processCpuMs(process.pid)
  t.ok(cpu !== null && cpu >= 0, `this process has used ${cpu} ms of CPU`)
  t.equal(processCpuMs(undefined), null)
  t.equal(processCpuMs(2 ** 30), null, 'no such process')
  const pid = mariadbPid()
  t.ok(pid === undefined || processCpuMs(pid) !== null, 'a server found is readable')
})

t.test('the scale-out part is one of the default parts', async (t) => {
  t.ok(parseBenchOptions([]).only.includes('scaleout'))
  t.same(parseBenchOptions(['--only', 'scaleout']).only, ['scaleout'])
})
