// The shipped HOLD_CONTEXT's answering machine detection as the simulator plays it: AMD() on the
// answered customer when the Originate set HD_AMD, its verdict as `UserEvent: HoldDialerAmd` (Status,
// Cause, from the customer's channel, class user), a MACHINE hung up unless HD_AMD is `record`.
import t from 'tap'
import { resolvePlan } from '../src/model/customerPlan.js'
import { Rng } from '../src/rng.js'
import { callEnded, predictive, progressive, setup } from './helpers/calls.js'
import { delay } from './helpers/client.js'

const C = 'PJSIP/trunk-00000000'

t.test('a machine: UserEvent MACHINE from the customer channel, then hung up with cause 16', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551230001', {
    kind: 'answer',
    ringSeconds: 1,
    talkSeconds: 30,
    amd: { status: 'MACHINE', seconds: 2 },
  })
  c.send(predictive('m1', '5551230001', [['Variable', 'HD_AMD=hangup']]))
  const verdict = await c.waitForEvent('UserEvent', { UserEvent: 'HoldDialerAmd' })
  t.equal(verdict.get('Privilege'), 'user,all')
  t.equal(verdict.get('Channel'), C)
  t.equal(verdict.get('Status'), 'MACHINE')
  t.equal(verdict.get('Cause'), 'LONGGREETING-1500-1500')
  t.equal(verdict.get('Linkedid'), verdict.get('Uniqueid'), "the originated channel's own event")
  const record = await callEnded(sim, 'm1', c)
  t.match(record, { outcome: 'machine', hangupBy: 'system', bridgedAt: null })
  const hangup = c.events().find((m) => m.get('Event') === 'Hangup' && m.get('Channel') === C)
  t.equal(hangup?.get('Cause'), '16')
})

t.test('a person, and a machine in record-only mode: the verdict, then on hold', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551230002', { kind: 'answer', ringSeconds: 1, talkSeconds: 30 })
  sim.setOutcome('5551230003', {
    kind: 'answer',
    ringSeconds: 1,
    talkSeconds: 30,
    amd: { status: 'MACHINE' },
  })
  c.send(predictive('h1', '5551230002', [['Variable', 'HD_AMD=hangup']]))
  const human = await c.waitForEvent('UserEvent', { Status: 'HUMAN' })
  t.equal(human.get('Cause'), 'HUMAN-800-800', 'a script without a verdict is a person')
  c.send(predictive('r1', '5551230003', [['Variable', 'HD_AMD=record']]))
  await c.waitForEvent('UserEvent', { Status: 'MACHINE' })
  await delay(20)
  t.same(
    sim.channels().map((ch) => ch.application),
    ['MusicOnHold', 'MusicOnHold'],
    'both wait for an agent',
  )
})

t.test('without HD_AMD nothing is detected: straight on hold, no UserEvent', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551230004', {
    kind: 'answer',
    ringSeconds: 1,
    talkSeconds: 30,
    amd: { status: 'MACHINE' },
  })
  c.send(predictive('n1', '5551230004'))
  await c.waitForEvent('OriginateResponse', { ActionID: 'n1' })
  await delay(50)
  t.equal(sim.channels()[0]?.application, 'MusicOnHold')
  t.notOk(c.events().some((m) => m.get('Event') === 'UserEvent'))
})

t.test('random scripts: the shares of machines and NOTSURE, with their detection times', async (t) => {
  const rng = new Rng(11)
  const script = {
    kind: 'random' as const,
    answerProbability: 1,
    ringSeconds: { mean: 5 },
    talkSeconds: { mean: 60 },
    amd: { machineProbability: 0.3, notSureProbability: 0.1, machineSeconds: 1.2, humanSeconds: 2.1 },
  }
  const plans = Array.from({ length: 4000 }, () => resolvePlan(script, rng).amd)
  const share = (status: string) => plans.filter((a) => a.status === status).length / plans.length
  t.ok(Math.abs(share('MACHINE') - 0.3) < 0.03, `machines ${share('MACHINE')}`)
  t.ok(Math.abs(share('NOTSURE') - 0.1) < 0.02, `notsure ${share('NOTSURE')}`)
  t.ok(plans.filter((a) => a.status === 'MACHINE').every((a) => a.seconds === 1.2))
  t.ok(plans.filter((a) => a.status === 'HUMAN').every((a) => a.seconds === 2.1))
  const { amd: _, ...plain } = script
  const [withMix, without] = [new Rng(3), new Rng(3)]
  resolvePlan(script, withMix)
  t.equal(resolvePlan(plain, without).amd.status, 'HUMAN', 'no mix: a person')
  t.not(withMix.next(), without.next(), 'only a script with a mix draws a verdict (seeded runs unchanged)')
})

t.test("progressive: the Dial's U() subroutine on the answered customer, before DialEnd", async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551230011', {
    kind: 'answer',
    ringSeconds: 1,
    talkSeconds: 30,
    amd: { status: 'MACHINE' },
  })
  c.send(progressive('p1', '5551230011', [['Variable', 'HD_AMD=hangup']]))
  const record = await callEnded(sim, 'p1', c)
  const dialEnds = c
    .events()
    .filter((m) => m.get('Event') === 'DialEnd' && m.get('Channel') !== undefined)
    .map((m) => m.get('DialStatus'))
  t.same(dialEnds, ['CONTINUE'], 'a machine: DialEnd CONTINUE, as GOSUB_RESULT=CONTINUE makes it')
  const names = c.events().map((m) => m.get('Event'))
  t.ok(names.indexOf('UserEvent') < names.indexOf('DialEnd', names.indexOf('UserEvent')), 'verdict first')
  t.notOk(names.includes('BridgeEnter'), 'the desk is never bridged to the machine')
  t.match(record, { outcome: 'machine', bridgedAt: null })

  sim.setOutcome('5551230012', { kind: 'answer', ringSeconds: 1, talkSeconds: 1, amd: { status: 'HUMAN' } })
  const from = c.events().length
  c.send(progressive('p2', '5551230012', [['Variable', 'HD_AMD=hangup']]))
  const person = await callEnded(sim, 'p2', c)
  const events = c.events().slice(from)
  const verdict = events.findIndex((m) => m.get('Event') === 'UserEvent')
  const answer = events.findIndex(
    (m) => m.get('Event') === 'DialEnd' && m.get('Channel') !== undefined && m.get('DialStatus') === 'ANSWER',
  )
  t.ok(verdict >= 0 && answer > verdict, 'a person: the verdict, then DialEnd ANSWER and the bridge')
  t.match(person, { outcome: 'answered' })
  t.ok(person.bridgedAt !== null)
})
