import t from 'tap'
import { callEnded, progressive, setup, trace } from './helpers/calls.js'

const A = 'PJSIP/1001-00000000'
const C = 'PJSIP/trunk-00000001'
const AGENT_UP = [
  `Newchannel ${A} Down`,
  `Newstate ${A} Ringing`,
  'DeviceStateChange PJSIP/1001 RINGING',
  `Newstate ${A} Up`,
  'DeviceStateChange PJSIP/1001 INUSE',
  'OriginateResponse Success 4',
  // dialer-outbound's Set(CALLERID(all)=${HD_CALLER_ID}) on the desk's channel.
  `NewCallerid ${A}`,
  `Newchannel ${C} Down`,
  `DialBegin ${A} -> ${C}`,
]

t.test('answer: agent rings and answers, the customer is dialled, bridged, talks, hangs up', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 3, talkSeconds: 20 })
  c.send(progressive('p1', '555-123-4567', [['Variable', 'LEAD_ID=42,CAMPAIGN=spring']]))
  const record = await callEnded(sim, 'p1', c)
  t.same(trace(c), [
    ...AGENT_UP,
    `Newstate ${C} Ringing`,
    `Newstate ${C} Up`,
    `DialEnd ${A} -> ${C} ANSWER`,
    'BridgeCreate',
    `BridgeEnter ${A} 1`,
    `BridgeEnter ${C} 2`,
    `BridgeLeave ${C} 1`,
    `Hangup ${C} 16`,
    `BridgeLeave ${A} 0`,
    'BridgeDestroy',
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
  ])
  t.match(record, {
    mode: 'progressive',
    number: '5551234567',
    agentExtension: '1001',
    outcome: 'answered',
    hangupBy: 'customer',
    hangupCause: 16,
    dialStatus: 'ANSWER',
    variables: { LEAD_ID: '42', CAMPAIGN: 'spring' },
    channels: [A, C],
  })
  t.ok(record.answeredAt !== null && record.endedAt !== null)
  const talkMs = (record.endedAt ?? 0) - (record.bridgedAt ?? 0)
  t.ok(talkMs >= 19_000, `talked ~20 simulated seconds (${talkMs} ms)`)

  const [newchannel] = c.events('Newchannel')
  t.same(newchannel?.fields, [
    ['Event', 'Newchannel'],
    ['Privilege', 'call,all'],
    ['Channel', A],
    ['ChannelState', '0'],
    ['ChannelStateDesc', 'Down'],
    ['CallerIDNum', '5550000'],
    ['CallerIDName', 'Dialer'],
    ['ConnectedLineNum', '<unknown>'],
    ['ConnectedLineName', '<unknown>'],
    ['Language', 'en'],
    ['AccountCode', ''],
    ['Context', 'dialer-outbound'],
    ['Exten', '555-123-4567'],
    ['Priority', '1'],
    ['Uniqueid', newchannel?.get('Uniqueid') ?? ''],
    ['Linkedid', newchannel?.get('Uniqueid') ?? ''],
  ])
  t.match(newchannel?.get('Uniqueid'), /^\d{10}\.\d+$/)
  const response = c.events('OriginateResponse')[0]
  t.same(
    response?.fields.map(([k]) => k),
    [
      'Event',
      'Privilege',
      'ActionID',
      'Response',
      'Channel',
      'Context',
      'Exten',
      'Reason',
      'Uniqueid',
      'CallerIDNum',
      'CallerIDName',
    ],
  )
  t.match(response?.toObject(), { ActionID: 'p1', Channel: A, Uniqueid: newchannel?.get('Uniqueid') })
  // The second DialBegin: the first is the Originate's own dial of the desk (originate-dial.test.ts).
  const dialBegin = c.events('DialBegin')[1]
  t.equal(dialBegin?.get('DialString'), '5551234567@trunk')
  t.equal(dialBegin?.get('DestLinkedid'), newchannel?.get('Uniqueid'), 'customer leg shares the linkedid')
  t.equal(dialBegin?.fields.at(-1)?.[0], 'DialString')
  t.equal(dialBegin?.fields[16]?.[0], 'DestChannel')
  const hangup = c.events('Hangup')[0]
  t.same(hangup?.fields.slice(-2), [
    ['Cause', '16'],
    ['Cause-txt', 'Normal Clearing'],
  ])
  const enter = c.events('BridgeEnter')[0]
  t.same(
    enter?.fields.slice(0, 10).map(([k]) => k),
    [
      'Event',
      'Privilege',
      'BridgeUniqueid',
      'BridgeType',
      'BridgeTechnology',
      'BridgeCreator',
      'BridgeName',
      'BridgeNumChannels',
      'BridgeVideoSourceMode',
      'Channel',
    ],
  )
  t.equal(sim.activeCallsTo('5551234567'), 0)
  t.equal(sim.maxConcurrentCallsTo('+1 555 123 4567'.slice(3)), 1)
})

const failures = [
  {
    name: 'busy',
    script: { kind: 'busy' },
    ringing: false,
    status: 'BUSY',
    cause: 17,
    legs: [17, 16],
    outcome: 'busy',
    by: 'customer',
  },
  {
    name: 'congestion',
    script: { kind: 'congestion' },
    ringing: false,
    status: 'CONGESTION',
    cause: 34,
    legs: [34, 16],
    outcome: 'congestion',
    by: 'system',
  },
  {
    name: 'reject',
    script: { kind: 'reject', ringSeconds: 2 },
    ringing: true,
    status: 'NOANSWER',
    cause: 21,
    legs: [21, 21],
    outcome: 'rejected',
    by: 'customer',
  },
  {
    name: 'noanswer (rings until the Originate Timeout)',
    script: { kind: 'noanswer' },
    ringing: true,
    status: 'NOANSWER',
    cause: 19,
    legs: [0, 16],
    outcome: 'noanswer',
    by: 'system',
  },
  {
    name: 'fail',
    script: { kind: 'fail' },
    ringing: false,
    status: 'CHANUNAVAIL',
    cause: 0,
    legs: [0, 16],
    outcome: 'failed',
    by: 'system',
  },
] as const

for (const f of failures) {
  // Causes per channel as Asterisk 22 reports them (asterisk-test/conformance.test.ts): the customer's
  // leg carries the failure (0 when Dial gave up ringing), the agent's leg ends with the dialplan's
  // Hangup() (16) unless the customer hung up with a cause of its own (a reject passes 21 on).
  t.test(
    `${f.name}: DialEnd ${f.status}, customer leg cause ${f.legs[0]}, agent leg ${f.legs[1]}`,
    async (t) => {
      const { sim, c } = await setup()
      t.teardown(() => sim.close())
      sim.setOutcome('5551234567', f.script)
      c.send(progressive('p1', '5551234567', [['Timeout', '5000']]))
      const record = await callEnded(sim, 'p1', c)
      t.same(trace(c), [
        ...AGENT_UP,
        ...(f.ringing ? [`Newstate ${C} Ringing`] : []),
        `DialEnd ${A} -> ${C} ${f.status}`,
        `Hangup ${C} ${f.legs[0]}`,
        `Hangup ${A} ${f.legs[1]}`,
        'DeviceStateChange PJSIP/1001 NOT_INUSE',
      ])
      t.match(record, { outcome: f.outcome, dialStatus: f.status, hangupBy: f.by, hangupCause: f.cause })
      if (f.name.startsWith('noanswer')) {
        const rang = (record.endedAt ?? 0) - record.startedAt
        t.ok(rang >= 5000 && rang < 30_000, `rang until the 5 s Timeout, not the default 30 s (${rang})`)
      }
    },
  )
}

t.test('the agent desk is busy: Hangup 17 and OriginateResponse Failure reason 5', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setAgentDevice('1001', 'busy')
  await c.waitForEvent('DeviceStateChange', { State: 'BUSY' })
  c.send(progressive('p1', '5551234567'))
  const record = await callEnded(sim, 'p1', c)
  t.same(trace(c), [
    'DeviceStateChange PJSIP/1001 BUSY',
    `Newchannel ${A} Down`,
    `Hangup ${A} 17`,
    'OriginateResponse Failure 5',
  ])
  t.match(record, { outcome: 'agent-busy', hangupBy: 'agent', number: '5551234567' })
  t.equal(sim.agentDeviceState('1001'), 'BUSY')
})

t.test('the agent desk is unavailable: no channel, OriginateResponse Failure reason 0', async (t) => {
  const { sim, c } = await setup({ agentStates: { '1001': 'unavailable' } })
  t.teardown(() => sim.close())
  c.send(progressive('p1', '5551234567', [['ChannelId', 'my-id-1']]))
  const record = await callEnded(sim, 'p1', c)
  t.same(trace(c), ['OriginateResponse Failure 0'])
  const response = c.events('OriginateResponse')[0]
  t.match(response?.toObject(), { Channel: 'PJSIP/1001', Uniqueid: 'my-id-1', Reason: '0' })
  t.match(record, { outcome: 'agent-unavailable', channels: [] })
})

t.test('the agent does not answer before the Originate timeout: reason 3', async (t) => {
  const { sim, c } = await setup({ agentAnswerSeconds: 10 })
  t.teardown(() => sim.close())
  c.send(progressive('p1', '5551234567', [['Timeout', '2000']]))
  const record = await callEnded(sim, 'p1', c)
  t.same(trace(c).slice(-3), [
    `Hangup ${A} 19`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
    'OriginateResponse Failure 3',
  ])
  t.equal(record.outcome, 'agent-noanswer')
})

t.test('the agent hangs up while the customer rings: DialEnd CANCEL', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 5000, talkSeconds: 1 })
  c.send(progressive('p1', '5551234567'))
  await c.waitForEvent('Newstate', { Channel: C, ChannelStateDesc: 'Ringing' })
  t.ok(sim.hangupChannel(A))
  t.notOk(sim.hangupChannel('PJSIP/nope-1'))
  const record = await callEnded(sim, 'p1', c)
  t.same(trace(c).slice(-4), [
    `DialEnd ${A} -> ${C} CANCEL`,
    `Hangup ${C} 16`,
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
  ])
  t.match(record, { outcome: 'cancelled', hangupBy: 'agent' })
})

t.test('the agent ends the talk (endedBy agent) and an AMI Hangup ends another call', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 5, endedBy: 'agent' })
  c.send(progressive('p1', '5551234567'))
  const first = await callEnded(sim, 'p1', c)
  t.match(first, { outcome: 'answered', hangupBy: 'agent' })
  t.same(trace(c).slice(-6), [
    `BridgeLeave ${A} 1`,
    `Hangup ${A} 16`,
    'DeviceStateChange PJSIP/1001 NOT_INUSE',
    `BridgeLeave ${C} 0`,
    'BridgeDestroy',
    `Hangup ${C} 16`,
  ])

  sim.setOutcome('5559999999', { kind: 'answer', ringSeconds: 1, talkSeconds: 5000 })
  c.send(progressive('p2', '5559999999'))
  const enter = await c.waitForEvent('BridgeEnter', { BridgeNumChannels: '2', Exten: '5559999999' })
  const agentChannel = c.events('Newchannel').at(-2)?.get('Channel') ?? ''
  const vars = await c.action([
    ['Action', 'Getvar'],
    ['Channel', agentChannel],
    ['Variable', 'LEAD'],
  ])
  t.equal(vars.get('Value'), '')
  const res = await c.action([
    ['Action', 'Hangup'],
    ['Channel', enter.get('Channel') ?? ''],
    ['Cause', '16'],
  ])
  t.same(res.toObject(), { Response: 'Success', ActionID: res.get('ActionID'), Message: 'Channel Hungup' })
  const second = await callEnded(sim, 'p2', c)
  t.match(second, { outcome: 'answered', hangupBy: 'system' })
})

t.test('hangupWhileWaiting in progressive mode is bridged at once and talks', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setDefaultOutcome({ kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 2, talkSeconds: 10 })
  c.send(progressive('p1', '5551234567'))
  const record = await callEnded(sim, 'p1', c)
  t.match(record, { outcome: 'answered', hangupBy: 'customer' })
  t.ok((record.endedAt ?? 0) - (record.bridgedAt ?? 0) >= 9000, 'patience did not cut the talk')
})

t.test('a Local channel to the agent is recognised', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'busy' })
  c.send(progressive('p1', '5551234567', [['Channel', 'Local/1001@from-internal/n']]))
  const record = await callEnded(sim, 'p1', c)
  t.equal(record.mode, 'progressive')
  t.equal(c.events('Newchannel')[0]?.get('Channel'), 'Local/1001@from-internal-00000000;1')
})

t.test('an AMI Hangup while the agent rings cancels the originate (reason 1)', async (t) => {
  const { sim, c } = await setup({ agentAnswerSeconds: 5000 })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'busy' })
  sim.clearOutcome('5551234567')
  c.send(progressive('p1', '5551234567'))
  await c.waitForEvent('Newstate', { Channel: A, ChannelStateDesc: 'Ringing' })
  await c.action([
    ['Action', 'Hangup'],
    ['Channel', A],
  ])
  const record = await callEnded(sim, 'p1', c)
  t.match(record, { outcome: 'cancelled', hangupBy: 'system' })
  t.equal(c.events('OriginateResponse')[0]?.get('Reason'), '1')
})
