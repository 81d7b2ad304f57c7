import t from 'tap'
import { callEnded, originateDials, predictive, progressive, setup } from './helpers/calls.js'

// An Originate dials its own channel, and Asterisk 22 reports that dial as a DialBegin/DialEnd pair
// with no caller block (captured on the real PBX: packages/asterisk-testbed, and the sample in
// ../shared/asterisk/samples). A ring timeout ends the Originate with no DialEnd at all.

const A = 'PJSIP/1001-00000000'
const C = 'PJSIP/trunk-00000000'

t.test('progressive: the desk answers: DialBegin and DialEnd ANSWER with no caller', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
  c.send(progressive('p1', '5551234567'))
  await callEnded(sim, 'p1', c)
  t.same(originateDials(c), [`DialBegin -> ${A}`, `DialEnd -> ${A} ANSWER`])
})

t.test('progressive: the desk is busy: DialEnd BUSY with no caller, then Reason 5', async (t) => {
  const { sim, c } = await setup({ agentStates: { '1001': 'busy' } })
  t.teardown(() => sim.close())
  c.send(progressive('p1', '5551234567'))
  await callEnded(sim, 'p1', c)
  t.same(originateDials(c), [`DialBegin -> ${A}`, `DialEnd -> ${A} BUSY`])
  t.match(c.events('OriginateResponse')[0]?.get('Reason'), '5')
})

for (const [kind, dialEnd] of [
  ['answer', ['ANSWER']],
  ['busy', ['BUSY']],
  ['congestion', ['CONGESTION']],
  ['noanswer', []],
] as const) {
  t.test(
    `predictive: customer ${kind}: the originate's own dial ${dialEnd.length ? `ends ${dialEnd[0]}` : 'has no DialEnd'}`,
    async (t) => {
      const { sim, c } = await setup()
      t.teardown(() => sim.close())
      sim.setOutcome('5551234567', { kind, ringSeconds: 1, talkSeconds: 1 } as never)
      c.send(predictive('q1', '5551234567', [['Timeout', '4000']]))
      // An answered customer waits on hold until hung up: the OriginateResponse ends the dial.
      if (kind === 'answer') await c.waitForEvent('OriginateResponse')
      else await callEnded(sim, 'q1', c)
      t.same(originateDials(c), [`DialBegin -> ${C}`, ...dialEnd.map((s) => `DialEnd -> ${C} ${s}`)])
    },
  )
}
