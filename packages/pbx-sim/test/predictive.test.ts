import t from 'tap'
import { callEnded, predictive, setup, trace } from './helpers/calls.js'
import { delay } from './helpers/client.js'

const C = 'PJSIP/trunk-00000000'
const A = 'PJSIP/1001-00000001'
const CUSTOMER_UP = [
  `Newchannel ${C} Down`,
  `Newstate ${C} Ringing`,
  `Newstate ${C} Up`,
  'OriginateResponse Success 4',
]

function redirect(channel: string, exten: string): [string, string][] {
  return [
    ['Action', 'Redirect'],
    ['Channel', channel],
    ['Context', 'agents'],
    ['Exten', exten],
    ['Priority', '1'],
  ]
}

t.test('answer, hold, Redirect to an agent: Dial, bridge, talk, hang up', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 2, talkSeconds: 30 })
  c.send(predictive('q1', '5551234567', [['Variable', 'LEAD_ID=7']]))
  const response = await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
  t.equal(response.get('Channel'), C)
  t.equal(response.get('Exten'), 's')
  await delay(20)
  t.equal(sim.channels()[0]?.application, 'MusicOnHold', 'waiting in the hold context')
  t.equal(sim.activeCallsTo('5551234567'), 1)
  const res = await c.action(redirect(C, '1001'))
  t.equal(res.get('Message'), 'Redirect successful')
  const record = await callEnded(sim, 'q1', c)
  t.same(trace(c), [
    ...CUSTOMER_UP,
    // AGENT_CONTEXT's Set(CALLERID(all)=${HD_CUSTOMER_ID}) on the customer's channel.
    `NewCallerid ${C}`,
    `Newchannel ${A} Down`,
    `DialBegin ${C} -> ${A}`,
    `Newstate ${A} Ringing`,
    'DeviceStateChange PJSIP/1001 RINGING',
    `Newstate ${A} Up`,
    'DeviceStateChange PJSIP/1001 INUSE',
    `DialEnd ${C} -> ${A} ANSWER`,
    'BridgeCreate',
    `BridgeEnter ${C} 1`,
    `BridgeEnter ${A} 2`,
    `BridgeLeave ${C} 1`,
    `Hangup ${C} 16`,
    `BridgeLeave ${A} 0`,
    'BridgeDestroy',
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
  ])
  t.match(record, {
    mode: 'predictive',
    number: '5551234567',
    agentExtension: '1001',
    outcome: 'answered',
    hangupBy: 'customer',
    variables: { LEAD_ID: '7' },
    channels: [C, A],
  })
  // [0] is the Originate's own dial of the customer (originate-dial.test.ts).
  t.equal(c.events('DialBegin')[1]?.get('DialString'), '1001')
})

t.test('the customer loses patience on hold: Hangup 16, recorded as abandoned', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 8 })
  c.send(predictive('q1', '5551234567'))
  const record = await callEnded(sim, 'q1', c)
  t.same(trace(c), [...CUSTOMER_UP, `Hangup ${C} 16`])
  t.match(record, { outcome: 'abandoned', hangupBy: 'customer', bridgedAt: null })
  t.ok((record.endedAt ?? 0) - (record.answeredAt ?? 0) >= 7000, 'waited out the patience')
})

t.test('patience runs out while the agent is ringing: DialEnd CANCEL', async (t) => {
  const { sim, c } = await setup({ agentAnswerSeconds: 50 })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 20 })
  c.send(predictive('q1', '5551234567'))
  await c.waitForEvent('OriginateResponse')
  await c.action(redirect(C, '1001'))
  const record = await callEnded(sim, 'q1', c)
  t.same(trace(c).slice(-4), [
    `DialEnd ${C} -> ${A} CANCEL`,
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
    `Hangup ${C} 16`,
  ])
  t.match(record, { outcome: 'abandoned', hangupBy: 'customer' })
})

t.test('Bridge action joins a waiting customer and a parked agent leg', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 10 })
  c.send(predictive('q1', '5551234567'))
  await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
  c.send([
    ['Action', 'Originate'],
    ['ActionID', 'a1'],
    ['Channel', 'PJSIP/1001'],
    ['Context', 'agent-wait'],
    ['Exten', 'park'],
    ['Priority', '1'],
    ['Async', 'yes'],
  ])
  await c.waitForEvent('OriginateResponse', { ActionID: 'a1', Reason: '4' })
  const res = await c.action([
    ['Action', 'Bridge'],
    ['Channel1', C],
    ['Channel2', A],
  ])
  t.equal(res.get('Message'), 'Channels have been bridged')
  const customer = await callEnded(sim, 'q1', c)
  const agent = await callEnded(sim, 'a1', c)
  t.match(customer, { outcome: 'answered', agentExtension: '1001', hangupBy: 'customer' })
  t.match(agent, { mode: 'agent', number: null, outcome: 'answered', hangupBy: 'customer' })
  t.same(trace(c).slice(-9), [
    'BridgeCreate',
    `BridgeEnter ${C} 1`,
    `BridgeEnter ${A} 2`,
    `BridgeLeave ${C} 1`,
    `Hangup ${C} 16`,
    `BridgeLeave ${A} 0`,
    'BridgeDestroy',
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
  ])
})

t.test('an agent leg originated with Application Bridge joins the customer', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 10 })
  c.send(predictive('q1', '5551234567'))
  await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
  c.send([
    ['Action', 'Originate'],
    ['ActionID', 'a1'],
    ['Channel', 'PJSIP/1001'],
    ['Application', 'Bridge'],
    ['Data', `${C},p`],
    ['Async', 'true'],
  ])
  const response = await c.waitForEvent('OriginateResponse', { ActionID: 'a1' })
  t.same(
    response.fields.map(([k]) => k),
    [
      'Event',
      'Privilege',
      'ActionID',
      'Response',
      'Channel',
      'Application',
      'Data',
      'Reason',
      'Uniqueid',
      'CallerIDNum',
      'CallerIDName',
    ],
  )
  t.match(response.toObject(), { Application: 'Bridge', Data: `${C},p`, CallerIDNum: '<unknown>' })
  const customer = await callEnded(sim, 'q1', c)
  t.match(customer, { outcome: 'answered', agentExtension: '1001' })

  c.send([
    ['Action', 'Originate'],
    ['ActionID', 'a2'],
    ['Channel', 'PJSIP/1002'],
    ['Application', 'Bridge'],
    ['Data', 'PJSIP/trunk-gone'],
    ['Async', 'true'],
  ])
  const lonely = await callEnded(sim, 'a2', c)
  t.match(lonely, { outcome: 'answered', hangupBy: 'system' })
})

t.test('Redirect to a busy agent: DialEnd BUSY, the customer goes back on hold', async (t) => {
  const { sim, c } = await setup({ agentStates: { '1002': 'unavailable' } })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
  sim.setAgentDevice('1001', 'busy')
  c.send(predictive('q1', '5551234567'))
  await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
  await c.action(redirect(C, '1001'))
  await c.waitForEvent('DialEnd', { DialStatus: 'BUSY' })
  await c.waitForEvent('Hangup', { Channel: A, Cause: '17' })
  t.equal(sim.channels().find((ch) => ch.name === C)?.application, 'MusicOnHold')
  await c.action(redirect(C, '1002'))
  await delay(10)
  t.equal(sim.channels().length, 1, 'an unavailable agent gets no channel')
  sim.setAgentDevice('1001', 'idle')
  await c.action(redirect(C, '1001'))
  const record = await callEnded(sim, 'q1', c)
  t.match(record, { outcome: 'answered', agentExtension: '1001' })
})

const failures = [
  { name: 'busy', script: { kind: 'busy' }, reason: '5', cause: '17', ringing: false, outcome: 'busy' },
  {
    name: 'noanswer',
    script: { kind: 'noanswer' },
    reason: '3',
    cause: '19',
    ringing: true,
    outcome: 'noanswer',
  },
  {
    name: 'congestion',
    script: { kind: 'congestion' },
    reason: '8',
    cause: '34',
    ringing: false,
    outcome: 'congestion',
  },
  {
    name: 'reject',
    script: { kind: 'reject', ringSeconds: 1 },
    reason: '0',
    cause: '21',
    ringing: true,
    outcome: 'rejected',
  },
  {
    name: 'reject without ringing',
    script: { kind: 'reject' },
    reason: '0',
    cause: '21',
    ringing: false,
    outcome: 'rejected',
  },
] as const

for (const f of failures) {
  t.test(`${f.name}: OriginateResponse Failure reason ${f.reason}, Hangup cause ${f.cause}`, async (t) => {
    const { sim, c } = await setup()
    t.teardown(() => sim.close())
    sim.setOutcome('5551234567', f.script)
    c.send(predictive('q1', '5551234567', [['Timeout', '4000']]))
    const record = await callEnded(sim, 'q1', c)
    t.same(trace(c), [
      `Newchannel ${C} Down`,
      ...(f.ringing ? [`Newstate ${C} Ringing`] : []),
      `Hangup ${C} ${f.cause}`,
      `OriginateResponse Failure ${f.reason}`,
    ])
    t.match(record, { outcome: f.outcome, answeredAt: null })
  })
}

t.test('fail: no channel at all, OriginateResponse reason 0 names the requested channel', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'fail' })
  c.send(predictive('q1', '5551234567'))
  const record = await callEnded(sim, 'q1', c)
  t.same(trace(c), ['OriginateResponse Failure 0'])
  t.match(c.events('OriginateResponse')[0]?.toObject(), {
    Channel: 'PJSIP/5551234567@trunk',
    Uniqueid: '<unknown>',
    Context: 'dialer-hold',
  })
  t.match(record, { outcome: 'failed', dialStatus: 'CHANUNAVAIL' })
})

t.test(
  'AMI Hangup of a ringing customer: reason 1; of a waiting customer: abandoned by system',
  async (t) => {
    const { sim, c } = await setup()
    t.teardown(() => sim.close())
    sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 5000, talkSeconds: 1 })
    c.send(predictive('q1', '5551234567'))
    await c.waitForEvent('Newstate', { Channel: C })
    await c.action([
      ['Action', 'Hangup'],
      ['Channel', C],
    ])
    const ringing = await callEnded(sim, 'q1', c)
    t.match(ringing, { outcome: 'cancelled', hangupBy: 'system' })
    t.equal(c.events('OriginateResponse')[0]?.get('Reason'), '1')

    sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 1 })
    c.send(predictive('q2', '5551234567'))
    const up = await c.waitForEvent('OriginateResponse', { ActionID: 'q2' })
    await c.action([
      ['Action', 'Hangup'],
      ['Channel', up.get('Channel') ?? ''],
      ['Cause', '999'],
    ])
    const waiting = await callEnded(sim, 'q2', c)
    t.match(waiting, { outcome: 'abandoned', hangupBy: 'system', hangupCause: 16 })
  },
)

t.test('synchronous Originate replies after the outcome and sends no OriginateResponse', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 5, talkSeconds: 5 })
  sim.setOutcome('5550000001', { kind: 'busy' })
  const ok = await c.action(predictive('ignored', '5551234567', [['Async', 'false']]))
  t.same(ok.toObject(), {
    Response: 'Success',
    ActionID: ok.get('ActionID'),
    Message: 'Originate successfully queued',
  })
  t.ok(
    c.events('Newstate').some((m) => m.get('ChannelStateDesc') === 'Up'),
    'reply came after the answer',
  )
  const busy = await c.action(predictive('ignored', '5550000001', [['Async', 'no']]))
  t.equal(busy.get('Response'), 'Error')
  t.equal(busy.get('Message'), 'Originate failed')
  t.equal(c.events('OriginateResponse').length, 0)
})

t.test('a customer originated into an application listens, then hangs up', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 4 })
  c.send([
    ['Action', 'Originate'],
    ['ActionID', 'x1'],
    ['Channel', 'SIP/trunk/5551234567'],
    ['Application', 'Playback'],
    ['Data', 'hello-world'],
    ['Async', 'true'],
    ['ChannelId', 'chan-x1'],
  ])
  const record = await callEnded(sim, 'x1', c)
  t.match(record, { outcome: 'answered', hangupBy: 'customer', application: 'Playback', data: 'hello-world' })
  t.equal(c.events('Newchannel')[0]?.get('Uniqueid'), 'chan-x1')
  t.equal(c.events('Newchannel')[0]?.get('Channel'), 'SIP/trunk-00000000')
})

t.test(
  'a customer redirected to an unknown context waits there; to the customer context it dials',
  async (t) => {
    const { sim, c } = await setup()
    t.teardown(() => sim.close())
    sim.setOutcome('5551234567', { kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 30 })
    sim.setOutcome('5552222222', { kind: 'busy' })
    c.send(
      predictive('q1', '5551234567', [
        ['Context', 'somewhere'],
        ['Exten', 'x'],
      ]),
    )
    await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
    await delay(5)
    t.equal(sim.channels()[0]?.application, 'Wait')
    await c.action([
      ['Action', 'Redirect'],
      ['Channel', C],
      ['Context', 'dialer-outbound'],
      ['Exten', '5552222222'],
      ['Priority', '1'],
    ])
    await c.waitForEvent('DialEnd', { DialStatus: 'BUSY' })
    const record = await callEnded(sim, 'q1', c)
    t.equal(record.hangupCause, 17)
  },
)

t.test('agentPattern: unlisted extensions that match are agent desks', async (t) => {
  const { sim, c } = await setup({ agentExtensions: [], agentPattern: '^[0-9]{3,5}$' })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
  c.send(predictive('q1', '5551234567'))
  await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })
  await c.action(redirect(C, '2001'))
  const record = await callEnded(sim, 'q1', c)
  t.match(record, { outcome: 'answered', agentExtension: '2001' })
  t.ok(c.events('DeviceStateChange').some((m) => m.get('Device') === 'PJSIP/2001'))
  c.send(
    predictive('p1', '3001', [
      ['Channel', 'PJSIP/3001'],
      ['Context', 'dialer-outbound'],
      ['Exten', '5551234567'],
    ]),
  )
  const progressive = await callEnded(sim, 'p1', c)
  t.match(progressive, { mode: 'progressive', agentExtension: '3001', number: '5551234567' })
})
