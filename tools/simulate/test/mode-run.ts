import type { Test } from 'tap'
import type { Mode, Progress } from '../src/metrics.js'
import { DEFAULT_PARAMS } from '../src/params.js'
import { runMode } from '../src/run.js'

// The call-centre simulation at a small size: its invariants, not its speed. A fresh governor window
// (no history): the abandon budget then allows no line an idle agent could not take, whatever happens.
// Each mode has its own test file (simulate-progressive, simulate-predictive) so that the two
// runs, about a minute of scaled clock each, wait side by side instead of one after the other.
const small = {
  ...DEFAULT_PARAMS,
  agents: 4,
  leads: 300,
  durationMinutes: 5,
  timeScale: 10,
  historyAnswered: 0,
  sampleSeconds: 60,
}

export function modeRunTest(t: Test, mode: Mode): void {
  t.test(
    `${mode}: abandon rate within the cap, no lead dialed twice at once, none lost or left reserved`,
    async (t) => {
      const progress: Progress[] = []
      const r = await runMode(mode, small, { progressMinutes: 1, onProgress: (p) => progress.push(p) })
      t.ok(r.answered > 0, `${r.answered} answered`)
      t.ok(r.abandonRate <= small.abandonRateMax, `abandon rate ${r.abandonRate}`)
      t.equal(r.worstConcurrency, 1)
      t.equal(r.leadsAccounted, small.leads)
      t.equal(r.leadsStillReserved, 0)
      t.ok(r.samples.length >= 5, 'a sample per simulated minute')
      if (mode === 'progressive')
        t.equal(r.abandoned, 0, 'the agent is on the line before the customer is dialed')
      t.same(
        progress.map((p) => Math.floor(p.minute)),
        [1, 2, 3, 4],
        'a progress report every simulated minute',
      )
      const last = progress.at(-1)!
      t.equal(last.mode, mode)
      t.ok(last.calls > 0 && last.calls >= last.answered && last.answered >= last.abandoned)
    },
  )
}
