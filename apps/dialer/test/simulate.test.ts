import t from 'tap'
import { DEFAULT_PARAMS, parseParams } from '../src/simulate/params.js'
import { runMode } from '../src/simulate/run.js'

// The call-centre simulation at a small size: its invariants, not its speed. A fresh governor window
// (no history): the abandon budget then allows no line an idle agent could not take, whatever happens.
const small = {
  ...DEFAULT_PARAMS,
  agents: 4,
  leads: 300,
  durationMinutes: 5,
  timeScale: 10,
  historyAnswered: 0,
  sampleSeconds: 60,
}

t.test('flags parse over the defaults and bad ones are refused', async (t) => {
  t.match(parseParams(['--agents', '7', '--answer-rate-after', '0.4']), {
    agents: 7,
    answerRateAfter: 0.4,
    talkMeanSeconds: 180,
  })
  t.throws(() => parseParams(['--nope', '1']), /unknown flag/)
  t.throws(() => parseParams(['--agents', 'x']), /non-negative number/)
  t.throws(() => parseParams(['--answer-rate', '2']), /shares/)
})

for (const mode of ['progressive', 'predictive'] as const) {
  t.test(
    `${mode}: abandon rate within the cap, no lead dialed twice at once, none lost or left reserved`,
    async (t) => {
      const r = await runMode(mode, small)
      t.ok(r.answered > 0, `${r.answered} answered`)
      t.ok(r.abandonRate <= small.abandonRateMax, `abandon rate ${r.abandonRate}`)
      t.equal(r.worstConcurrency, 1)
      t.equal(r.leadsAccounted, small.leads)
      t.equal(r.leadsStillReserved, 0)
      t.ok(r.samples.length >= 5, 'a sample per simulated minute')
      if (mode === 'progressive')
        t.equal(r.abandoned, 0, 'the agent is on the line before the customer is dialed')
    },
  )
}
