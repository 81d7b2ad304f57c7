import t from 'tap'
import { type CallRecord, startPbxSim } from '../src/index.js'
import { callEnded, predictive, progressive, setup } from './helpers/calls.js'
import { delay, describe, loggedIn, TestClient } from './helpers/client.js'

t.test('dropConnections cuts clients, keeps listening, and calls carry on', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  // The customer talks until hung up below: the call must outlast the reconnection, however slow.
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 1_000_000 })
  c.send(progressive('p1', '5551234567'))
  await c.waitForEvent('BridgeEnter', { BridgeNumChannels: '2' })
  sim.dropConnections()
  await c.closed
  const again = await loggedIn(sim.port)
  t.equal(sim.calls.find((r) => r.actionId === 'p1')?.endedAt, null, 'the call carried on')
  const customer = sim.channels().find((ch) => ch.number === '5551234567' && ch.role === 'customer')
  t.ok(customer && sim.hangupChannel(customer.name), 'the customer hangs up')
  const record = await callEnded(sim, 'p1', again)
  t.equal(record.outcome, 'answered')
  t.ok(again.events('Hangup').length >= 1, 'the reconnected client sees the end of the call')
  t.equal(sim.connectionCount(), 1)
  await again.close()
})

t.test('close and start again on the same port', async (t) => {
  const first = await startPbxSim()
  const port = first.port
  const c = await loggedIn(port)
  await first.close()
  await c.closed
  const second = await startPbxSim({ port })
  t.teardown(() => second.close())
  t.equal(second.port, port)
  const d = await loggedIn(port)
  t.equal((await d.action([['Action', 'Ping']])).get('Ping'), 'Pong')
  await d.close()
})

t.test('failNextOriginates answers Error without placing calls, then recovers', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.failNextOriginates(2)
  for (const id of ['f1', 'f2']) {
    const r = await c.action(progressive(id, '5551234567'))
    t.same(r.toObject(), { Response: 'Error', ActionID: r.get('ActionID'), Message: 'Originate failed' })
  }
  const ok = await c.action(progressive('f3', '5551234567'))
  t.equal(ok.get('Message'), 'Originate successfully queued')
  t.equal(sim.originateCount(), 3)
  t.equal(sim.calls.length, 1)
})

t.test('silenceEvents drops events (a lost Hangup) but the call still ends', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 20 })
  const seen: string[] = []
  sim.on('amiEvent', (e: { event: string; silenced: boolean }) => {
    if (e.silenced) seen.push(e.event)
  })
  c.send(progressive('p1', '5551234567'))
  await c.waitForEvent('BridgeEnter', { BridgeNumChannels: '2' })
  sim.silenceEvents(true)
  const record = await callEnded(sim, 'p1', c)
  sim.silenceEvents(false)
  t.equal(record.outcome, 'answered')
  t.equal(c.events('Hangup').length, 0, 'no Hangup reached the client')
  t.ok(seen.includes('Hangup'))
  t.equal(sim.droppedEventCount(), seen.length)
  sim.setAgentDevice('1001', 'busy')
  await c.waitForEvent('DeviceStateChange', { State: 'BUSY' })
})

t.test('activeCallsTo and maxConcurrentCallsTo expose a number dialled twice at once', async (t) => {
  const { sim, c } = await setup()
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 1, talkSeconds: 50 })
  c.send(predictive('q1', '5551234567'))
  c.send(predictive('q2', '+1-555-123-4567'.slice(3)))
  await c.waitForEvent('OriginateResponse', { ActionID: 'q2' })
  t.equal(sim.activeCallsTo('5551234567'), 2)
  t.equal(sim.maxConcurrentCallsTo('5551234567'), 2)
  for (const ch of sim.channels()) sim.hangupChannel(ch.name)
  await callEnded(sim, 'q1', c)
  await callEnded(sim, 'q2', c)
  t.equal(sim.activeCallsTo('5551234567'), 0)
  t.equal(sim.maxConcurrentCallsTo('5551234567'), 2)
  t.equal(sim.maxConcurrentCallsTo('000'), 0)
})

t.test('timeScale: simulated minutes pass in real milliseconds', async (t) => {
  const { sim, c } = await setup({ timeScale: 6000 })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 20, talkSeconds: 600 })
  const startedReal = Date.now()
  c.send(progressive('p1', '5551234567'))
  const record = await callEnded(sim, 'p1', c)
  const realMs = Date.now() - startedReal
  const simMs = (record.endedAt ?? 0) - record.startedAt
  t.ok(simMs >= 600_000, `about 10 simulated minutes (${simMs} ms)`)
  // A bound, not a speed: the 620 simulated seconds take about 0.1 s at this scale, and a real clock
  // would take 620 s; a loaded machine stays far below the bound.
  t.ok(realMs < 60_000, `in far less real time than it simulates (${realMs} ms)`)
  const at = sim.now()
  await delay(10)
  t.ok(sim.now() - at >= 30_000, 'the clock runs scaled')
})

t.test('seeded runs repeat: random outcomes and OriginateResponse placement', async (t) => {
  // Calls overlap on real timers, so their interleaving may vary; each call's own order may not.
  const run = async (seed: number): Promise<{ outcomes: string[]; order: Record<string, string[]> }> => {
    const sim = await startPbxSim({
      timeScale: 2000,
      seed,
      defaultOutcome: {
        kind: 'random',
        answerProbability: 0.6,
        busyProbability: 0.2,
        ringSeconds: { mean: 3 },
        talkSeconds: { mean: 5 },
        patienceSeconds: { mean: 4 },
      },
    })
    const c = await loggedIn(sim.port)
    const ended: CallRecord[] = []
    sim.on('callEnded', (r: CallRecord) => ended.push(r))
    for (let i = 0; i < 12; i++) c.send(predictive(`r${i}`, `55500000${String(i).padStart(2, '0')}`))
    for (let i = 0; i < 12; i++) await callEnded(sim, `r${i}`, c)
    const order: Record<string, string[]> = {}
    for (const m of c.events()) {
      const event = m.get('Event') ?? ''
      const wanted =
        event === 'OriginateResponse' ||
        event === 'Hangup' ||
        (event === 'Newstate' && m.get('ChannelStateDesc') === 'Up')
      if (!wanted) continue
      const channel = m.get('Channel') ?? ''
      order[channel] = [...(order[channel] ?? []), describe(m)]
    }
    await c.close()
    await sim.close()
    return { outcomes: sim.calls.map((r) => r.outcome), order }
  }
  const a = await run(42)
  const b = await run(42)
  t.same(a.outcomes, b.outcomes)
  t.same(a.order, b.order)
  t.ok(new Set(a.outcomes).size > 1, `mixed outcomes: ${a.outcomes.join(',')}`)
  const responseFirst = Object.values(a.order)
    .filter((list) => list.length > 1)
    .map((list) => list[0]?.startsWith('OriginateResponse'))
  t.ok(responseFirst.includes(true) && responseFirst.includes(false), 'the seed puts it on both sides')
})

t.test('OriginateResponse before the channel event when ordered so', async (t) => {
  const sim = await startPbxSim({ timeScale: 1000, originateResponseOrder: 'before' })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'busy' })
  const c = await loggedIn(sim.port)
  c.send(predictive('q1', '5551234567'))
  await callEnded(sim, 'q1', c)
  t.same(
    c
      .events()
      .filter((m) => ['OriginateResponse', 'Hangup'].includes(m.get('Event') ?? ''))
      .map((m) => m.get('Event')),
    ['OriginateResponse', 'Hangup'],
  )
})

t.test('events are only sent to logged-in sessions', async (t) => {
  const sim = await startPbxSim({ agentExtensions: ['1001'] })
  t.teardown(() => sim.close())
  const anonymous = await TestClient.connect(sim.port)
  sim.setAgentDevice('1001', 'busy')
  sim.setAgentDevice('3001', 'idle')
  await delay(20)
  t.equal(anonymous.messages.length, 0)
  t.equal(sim.agentDeviceState('3001'), 'NOT_INUSE')
  await anonymous.close()
})

t.test(
  'trunk down: no customer channel in either mode, as Asterisk reports it; back up: dialed again',
  async (t) => {
    const { sim, c } = await setup()
    t.teardown(() => sim.close())
    sim.setOutcome('5551234567', { kind: 'busy' })
    sim.setTrunkDown()
    // Progressive: the desk answers, Dial finds no channel: no DialBegin, the desk hangs up with cause 66.
    c.send(progressive('p1', '5551234567'))
    const p1 = await callEnded(sim, 'p1', c)
    t.match(p1, { outcome: 'failed', dialStatus: 'CHANUNAVAIL' })
    t.same(p1.channels, ['PJSIP/1001-00000000'], 'only the desk had a channel')
    t.same(
      c
        .events()
        .filter((m) => ['Hangup', 'DialBegin'].includes(m.get('Event') ?? '') && m.get('Channel'))
        .map(describe),
      ['Hangup PJSIP/1001-00000000 66'],
    )
    // Predictive: OriginateResponse Failure Reason 0 naming the requested channel, nothing else.
    c.send(predictive('q1', '5551234567'))
    const q1 = await callEnded(sim, 'q1', c)
    t.match(q1, { outcome: 'failed', channels: [] })
    t.equal((await c.waitForEvent('OriginateResponse', { ActionID: 'q1' })).get('Reason'), '0')
    sim.setTrunkDown(false)
    c.send(progressive('p2', '5551234567'))
    t.match(await callEnded(sim, 'p2', c), { outcome: 'busy', dialStatus: 'BUSY' })
  },
)
