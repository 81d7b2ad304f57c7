import { setProgressWriter } from '@hold-dialer/bench/progress'
import { childrenRunBuild, createTestDatabase, recordDialectResult } from '@hold-dialer/db/testing'
import type { Test } from 'tap'
import type { DialMode } from '../src/options.js'
import { report } from '../src/report.js'
import { runChaos } from '../src/run.js'

/** Seconds of faults per run: each kind comes about twice, and the two modes' files run side by side. */
const SECONDS = 35

/**
 * A short seeded chaos run on MariaDB (whatever TEST_DIALECTS says: the run is several processes on one
 * server, which SQLite is not for; without MariaDB the test fails, it does not skip). Every invariant
 * must hold, the attempt-row check included.
 */
export function chaosRunTest(t: Test, mode: DialMode, seed: number): void {
  t.test(
    `${mode}: 3 dialers under kill -9, SIGSTOP, database KILL and PBX restart, seed ${seed}`,
    async (t) => {
      setProgressWriter((line) => t.comment(line))
      const database = await createTestDatabase('mysql')
      t.teardown(() => database.drop())
      const r = await runChaos(
        {
          seconds: SECONDS,
          seed,
          dialers: 3,
          agents: 30,
          leads: 1500,
          mode,
          reservationTimeout: 5,
          faults: ['kill', 'stop', 'db', 'pbx'],
          // A loaded 2-core machine starts a dialer from its sources in several seconds.
          recoverySeconds: 40,
          timeScale: 10,
          // The sources (coverage sees them), or the build when the suite runs children from it.
          dialerSource: childrenRunBuild() ? 'dist' : 'src',
          keepDatabase: false,
          logs: undefined,
          logLevel: 'warn',
        },
        database.url,
      )
      t.comment(report(r))
      t.ok(r.calls.placed >= 50, `${r.calls.placed} calls placed`)
      t.ok(r.calls.settled >= 50, `${r.calls.settled} calls settled`)
      for (const kind of ['kill', 'stop', 'db', 'pbx'] as const)
        t.ok(r.faultCounts[kind] >= 1, `${r.faultCounts[kind]} faults of kind ${kind}`)
      for (const i of [...r.invariants, ...r.attemptRows]) {
        t.equal(i.count, 0, i.count === 0 ? i.name : `${i.name}: ${i.examples.join('; ')}`)
      }
      t.equal(r.checkerErrors, 0, "the checker's queries did not fail")
    },
  ).then((result) => recordDialectResult('mysql', `chaos ${mode}`, result?.ok ?? false))
}
