import t from 'tap'
import { callEnded, progressive, setup } from './helpers/calls.js'
import { delay } from './helpers/client.js'

t.test('DeviceStateList: listack, one DeviceStateChange per agent with the ActionID, Complete', async (t) => {
  const { sim, c } = await setup({ agentStates: { '1002': 'busy' } })
  t.teardown(() => sim.close())
  sim.addAgent('2001')
  const from = c.messages.length
  c.send([
    ['Action', 'DeviceStateList'],
    ['ActionID', 'dsl'],
  ])
  await c.waitForEvent('DeviceStateListComplete')
  const list = c.messages.slice(from).filter((m) => m.get('ActionID') === 'dsl')
  t.same(list[0]?.fields, [
    ['Response', 'Success'],
    ['ActionID', 'dsl'],
    ['EventList', 'start'],
    ['Message', 'Device State Changes will follow'],
  ])
  t.same(
    list.slice(1, -1).map((m) => m.fields),
    [
      [
        ['Event', 'DeviceStateChange'],
        ['ActionID', 'dsl'],
        ['Device', 'PJSIP/1001'],
        ['State', 'NOT_INUSE'],
      ],
      [
        ['Event', 'DeviceStateChange'],
        ['ActionID', 'dsl'],
        ['Device', 'PJSIP/1002'],
        ['State', 'BUSY'],
      ],
      [
        ['Event', 'DeviceStateChange'],
        ['ActionID', 'dsl'],
        ['Device', 'PJSIP/2001'],
        ['State', 'NOT_INUSE'],
      ],
    ],
  )
  t.same(list.at(-1)?.fields, [
    ['Event', 'DeviceStateListComplete'],
    ['ActionID', 'dsl'],
    ['EventList', 'Complete'],
    ['ListItems', '3'],
  ])
  t.equal(sim.agentDeviceState('9999'), 'UNAVAILABLE')
  t.throws(() => sim.core.agents.set('9999', 'idle'), /unknown agent/)
})

t.test('CoreShowChannels and Status list live channels with ActionID on every item', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 })
  c.send(progressive('p1', '5551234567'))
  await c.waitForEvent('BridgeEnter', { BridgeNumChannels: '2' })
  await delay(5)
  const from = c.messages.length
  c.send([
    ['Action', 'CoreShowChannels'],
    ['ActionID', 'csc'],
  ])
  await c.waitForEvent('CoreShowChannelsComplete')
  const list = c.messages.slice(from)
  t.same(list[0]?.toObject(), {
    Response: 'Success',
    ActionID: 'csc',
    EventList: 'start',
    Message: 'Channels will follow',
  })
  const items = list.filter((m) => m.get('Event') === 'CoreShowChannel')
  t.equal(items.length, 2)
  for (const item of items) {
    t.equal(item.fields[1]?.[0], 'ActionID')
    t.equal(item.get('ActionID'), 'csc')
    t.same(
      item.fields.slice(-4).map(([k]) => k),
      ['Application', 'ApplicationData', 'Duration', 'BridgeId'],
    )
    t.match(item.get('Duration'), /^\d\d:\d\d:\d\d$/)
    t.not(item.get('BridgeId'), '')
  }
  t.equal(items[0]?.get('Application'), 'Dial')
  t.same(list.at(-1)?.toObject(), {
    Event: 'CoreShowChannelsComplete',
    ActionID: 'csc',
    EventList: 'Complete',
    ListItems: '2',
  })

  const status = await c.action([['Action', 'Status']])
  t.equal(status.get('Message'), 'Channel status will follow')
  const complete = await c.waitForEvent('StatusComplete')
  t.equal(complete.get('Items'), '2')
  const one = await c.action([
    ['Action', 'Status'],
    ['Channel', 'PJSIP/1001-00000000'],
  ])
  t.equal(one.get('Response'), 'Success')
  const none = await c.action([
    ['Action', 'Status'],
    ['Channel', 'PJSIP/none'],
  ])
  t.equal(none.get('Message'), 'No such channel')
  t.equal(sim.channels().length, 2)
  t.equal(sim.channels()[0]?.callId, 1)

  const regex = await c.action([
    ['Action', 'Hangup'],
    ['Channel', '/^PJSIP\\/trunk-.*$/'],
  ])
  t.equal(regex.get('Message'), 'Channels hung up will follow')
  const hung = await c.waitForEvent('ChannelsHungupListComplete')
  t.equal(hung.get('ListItems'), '1')
  await callEnded(sim, 'p1', c)
  const badRegex = await c.action([
    ['Action', 'Hangup'],
    ['Channel', '/(/'],
  ])
  t.match(badRegex.get('Message'), /^Regex compile failed/)
})

t.test('Getvar/Setvar on channels and globals', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 })
  c.send(progressive('p1', '5551234567', [['Variable', 'LEAD_ID=99']]))
  await c.waitForEvent('OriginateResponse')
  const ch = 'PJSIP/1001-00000000'
  const got = await c.action([
    ['Action', 'Getvar'],
    ['Channel', ch],
    ['Variable', 'LEAD_ID'],
  ])
  t.same(
    got.fields.map(([k]) => k),
    ['Response', 'ActionID', 'Variable', 'Value'],
  )
  t.equal(got.get('Value'), '99')
  const set = await c.action([
    ['Action', 'Setvar'],
    ['Channel', ch],
    ['Variable', 'X'],
    ['Value', 'y'],
  ])
  t.equal(set.get('Message'), 'Variable Set')
  t.equal(
    (
      await c.action([
        ['Action', 'Getvar'],
        ['Channel', ch],
        ['Variable', 'X'],
      ])
    ).get('Value'),
    'y',
  )
  await c.action([
    ['Action', 'Setvar'],
    ['Variable', 'G'],
    ['Value', 'global'],
  ])
  t.equal(
    (
      await c.action([
        ['Action', 'Getvar'],
        ['Variable', 'G'],
      ])
    ).get('Value'),
    'global',
  )
  for (const action of ['Getvar', 'Setvar']) {
    t.equal((await c.action([['Action', action]])).get('Message'), 'No variable specified')
    t.equal(
      (
        await c.action([
          ['Action', action],
          ['Channel', 'nope'],
          ['Variable', 'X'],
        ])
      ).get('Message'),
      'No such channel',
    )
  }
})

t.test('action validation errors use Asterisk messages', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  const ask = async (fields: [string, string][]): Promise<string | undefined> =>
    (await c.action(fields)).get('Message')
  t.equal(await ask([['Action', 'Originate']]), 'Channel not specified')
  t.equal(
    await ask([
      ['Action', 'Originate'],
      ['Channel', 'PJSIP/1'],
      ['Priority', 'x'],
    ]),
    'Invalid priority',
  )
  t.equal(
    await ask([
      ['Action', 'Originate'],
      ['Channel', 'PJSIP/1'],
      ['Timeout', '1s'],
    ]),
    'Invalid timeout',
  )
  t.equal(
    await ask([
      ['Action', 'Originate'],
      ['Channel', 'nodash'],
      ['Context', 'a'],
      ['Exten', '1'],
    ]),
    'Invalid channel',
  )
  t.equal(
    await ask([
      ['Action', 'Originate'],
      ['Channel', 'PJSIP/1'],
      ['Exten', '1'],
    ]),
    "Originate with 'Exten' requires 'Context' and 'Priority'",
  )
  t.equal(await ask([['Action', 'Hangup']]), 'No channel specified')
  t.equal(
    await ask([
      ['Action', 'Hangup'],
      ['Channel', 'PJSIP/x'],
    ]),
    'No such channel',
  )
  t.equal(await ask([['Action', 'Redirect']]), 'Channel not specified')
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'X'],
    ]),
    'Context not specified',
  )
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'X'],
      ['Context', 'c'],
    ]),
    'Exten not specified',
  )
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'X'],
      ['Context', 'c'],
      ['Exten', '1'],
    ]),
    'Priority not specified',
  )
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'X'],
      ['Context', 'c'],
      ['Exten', '1'],
      ['Priority', 'zz'],
    ]),
    'Priority is invalid',
  )
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'X'],
      ['Context', 'c'],
      ['Exten', '1'],
      ['Priority', '1'],
    ]),
    'Channel does not exist: X',
  )
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', 'a'],
    ]),
    'Missing channel parameter in request',
  )
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', 'a'],
      ['Channel2', 'b'],
    ]),
    'Channel1 does not exist: a',
  )

  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 100_000, talkSeconds: 1 })
  sim.setOutcome('5557654321', { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 })
  c.send(progressive('p1', '5557654321'))
  await c.waitForEvent('BridgeEnter', { BridgeNumChannels: '2' })
  const up = 'PJSIP/1001-00000000'
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', up],
      ['Channel2', 'b'],
    ]),
    'Channel2 does not exist: b',
  )
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', up],
      ['Channel2', up],
    ]),
    `Unable to add Channel2 to bridge: ${up}`,
  )
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', up],
      ['Channel2', 'PJSIP/trunk-00000001'],
    ]),
    'Channels have been bridged',
    'already together',
  )
  c.send(progressive('p2', '5551234567', [['Channel', 'PJSIP/1002']]))
  await c.waitForEvent('Newstate', { Channel: 'PJSIP/trunk-00000003', ChannelStateDesc: 'Ringing' })
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', 'PJSIP/trunk-00000003'],
      ['Channel2', up],
    ]),
    'Unable to add Channel1 to bridge: PJSIP/trunk-00000003',
  )
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'PJSIP/trunk-00000003'],
      ['Context', 'c'],
      ['Exten', '1'],
      ['Priority', '1'],
    ]),
    'Redirect failed, channel not up.',
  )
  // Redirecting the ringing call's agent away cancels its Dial; redirecting a bridged agent ends its call.
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', 'PJSIP/1002-00000002'],
      ['Context', 'dialer-hold'],
      ['Exten', 's'],
      ['Priority', '1'],
    ]),
    'Redirect successful',
  )
  await c.waitForEvent('DialEnd', { DialStatus: 'CANCEL' })
  t.equal(
    await ask([
      ['Action', 'Redirect'],
      ['Channel', up],
      ['Context', 'dialer-hold'],
      ['Exten', 's'],
      ['Priority', '1'],
    ]),
    'Redirect successful',
  )
  await c.waitForEvent('Hangup', { Channel: 'PJSIP/trunk-00000001' })
  t.match(sim.calls[0], { outcome: 'answered', hangupBy: 'system', endedAt: null }, 'the agent leg lives on')
  t.equal(
    await ask([
      ['Action', 'Bridge'],
      ['Channel1', up],
      ['Channel2', 'PJSIP/1002-00000002'],
    ]),
    'Channels have been bridged',
  )
  await c.waitForEvent('BridgeEnter', { Channel: 'PJSIP/1002-00000002' })
  t.equal(sim.channels().filter((ch) => ch.bridgeId !== null).length, 2)
})

t.test(
  "Getvar DEVICE_STATE(device): a desk's state, as func_devstate answers, UNKNOWN for other devices",
  async (t) => {
    const { sim, c } = await setup({ agentStates: { '1002': 'busy' } })
    t.teardown(() => sim.close())
    const state = (device: string) => deviceState(c, device)
    t.equal(await state('PJSIP/1001'), 'NOT_INUSE')
    t.equal(await state('PJSIP/1002'), 'BUSY')
    t.equal(await state('PJSIP/7777'), 'UNKNOWN')
    t.equal(await state('Custom:desk1001'), 'UNKNOWN')
  },
)

t.test('a desk agentPattern names is a desk from the first time its state is asked for', async (t) => {
  const { sim, c } = await setup({ agentExtensions: [], agentPattern: '^[0-9]{3,5}$' })
  t.teardown(() => sim.close())
  const state = (device: string) => deviceState(c, device)
  t.equal(await state('PJSIP/1003'), 'NOT_INUSE', 'a desk of the pattern, never called: idle')
  t.equal(await state('PJSIP/12125550100'), 'UNKNOWN', 'a number outside the pattern is no desk')
  t.equal(await state('SIP/1004'), 'UNKNOWN', 'another technology is no desk')
  const from = c.messages.length
  c.send([
    ['Action', 'DeviceStateList'],
    ['ActionID', 'desks'],
  ])
  await c.waitForEvent('DeviceStateListComplete')
  t.same(
    c.messages
      .slice(from)
      .filter((m) => m.get('Event') === 'DeviceStateChange' && m.get('ActionID') === 'desks')
      .map((m) => m.get('Device')),
    ['PJSIP/1003'],
    'it is listed from then on, as a desk Asterisk knows',
  )
})

/** Getvar DEVICE_STATE(device), as the dialer asks it. */
async function deviceState(c: Awaited<ReturnType<typeof setup>>['c'], device: string) {
  return (
    await c.action([
      ['Action', 'Getvar'],
      ['Variable', `DEVICE_STATE(${device})`],
    ])
  ).get('Value')
}
