import { forEachDialect } from '@hold-dialer/db/testing'
import pino from 'pino'
import t from 'tap'
import { harness, lead } from './harness.js'

/**
 * The dialer's log at debug, kept as parsed lines (pino writes one JSON line per write); `onLine` sees
 * each line as it is written.
 */
function capturedLogger(onLine: (line: Record<string, unknown>) => void = () => {}) {
  const lines: Record<string, unknown>[] = []
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        const parsed = JSON.parse(line) as Record<string, unknown>
        lines.push(parsed)
        onLine(parsed)
      },
    },
  )
  return { logger, lines }
}

const STEPS = new Set([
  'calling',
  'customer ringing',
  'customer answered',
  'on hold',
  'sent to agent',
  'connected to agent',
  'call finished',
])

/** The call-progress lines of one lead, in order. */
function steps(lines: Record<string, unknown>[], leadId: number) {
  return lines.filter((l) => l.lead === leadId && STEPS.has(String(l.msg)))
}

const LEVEL = { debug: 20, info: 30 }

forEachDialect(t, async (t, database) => {
  t.test('progressive: one line per step with the lead, agent, mode and times', async (t) => {
    const { logger, lines } = capturedLogger()
    const h = await harness(t, database, { logger })
    const agentId = await h.addAgent('1001')
    h.sim.setOutcome('5550100001', { kind: 'answer', ringSeconds: 2, talkSeconds: 5 })
    await h.push(lead('LG-1', '5550100001'))
    await h.until('call finished', () => lines.some((l) => l.msg === 'call finished'))
    const leadId = Number((await h.lead('LG-1'))?.id)
    const got = steps(lines, leadId)
    t.same(
      got.map((l) => l.msg),
      ['calling', 'customer ringing', 'customer answered', 'connected to agent', 'call finished'],
    )
    t.same(
      got.map((l) => l.level),
      [LEVEL.info, LEVEL.debug, LEVEL.info, LEVEL.info, LEVEL.info],
    )
    for (const l of got.slice(1, 4)) {
      t.match(l, { lead: leadId, oli_id: 'LG-1', agent: '1001', agentId, mode: 'progressive', phase: l.msg })
      t.type(l.elapsedMs, 'number')
      t.type(l.phaseMs, 'number')
    }
    // Each step's time since the previous one adds up to the time since the call started.
    const [, ringing, answered, connected] = got
    t.equal(Number(answered?.elapsedMs), Number(ringing?.elapsedMs) + Number(answered?.phaseMs))
    t.equal(Number(connected?.elapsedMs), Number(answered?.elapsedMs) + Number(connected?.phaseMs))
    const finished = got[4]
    t.match(finished, { outcome: 'Received', agent: '1001', agentId, mode: 'progressive', phase: 'ended' })
    t.equal(finished?.holdMs, null, 'no hold in progressive mode')
    t.equal(Number(finished?.elapsedMs), Number(finished?.ringMs) + Number(finished?.talkMs))
    t.ok(Number(finished?.talkMs) > 0, 'talked')
    t.notOk(JSON.stringify(lines).includes('5550100001'), 'the phone number appears in no line at any level')
  })

  t.test('predictive: ringing, answered, on hold, sent to and connected to the agent', async (t) => {
    const { logger, lines } = capturedLogger()
    const h = await harness(t, database, {
      logger,
      env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '30' },
    })
    const agentId = await h.addAgent('7101')
    h.sim.setOutcome('5557100001', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
    await h.push(lead('LG-2', '5557100001'))
    await h.until('call finished', () => lines.some((l) => l.msg === 'call finished'))
    const leadId = Number((await h.lead('LG-2'))?.id)
    const got = steps(lines, leadId)
    t.same(
      got.map((l) => l.msg),
      [
        'calling',
        'customer ringing',
        'customer answered',
        'on hold',
        'sent to agent',
        'connected to agent',
        'call finished',
      ],
    )
    t.same(
      got.map((l) => l.level),
      [LEVEL.info, LEVEL.debug, LEVEL.info, LEVEL.debug, LEVEL.debug, LEVEL.info, LEVEL.info],
    )
    t.match(got[1], { mode: 'predictive', agent: null, agentId: null, phase: 'customer ringing' })
    t.match(got[3], { mode: 'predictive', phase: 'on hold', waiting: 1 })
    t.match(got[4], { agent: '7101', agentId, phase: 'sent to agent' })
    t.match(got[5], { agent: '7101', agentId, phase: 'connected to agent' })
    const finished = got[6]
    t.match(finished, { outcome: 'Received', agent: '7101', agentId, mode: 'predictive', phase: 'ended' })
    t.equal(
      Number(finished?.elapsedMs),
      Number(finished?.ringMs) + Number(finished?.holdMs) + Number(finished?.talkMs),
    )
    t.notOk(JSON.stringify(lines).includes('5557100001'), 'the phone number appears in no line')
  })

  t.test('predictive: no agent free, on hold until the dialer hangs up: hold time, no talk', async (t) => {
    const { logger, lines } = capturedLogger()
    const h = await harness(t, database, {
      logger,
      env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '2' },
    })
    await h.addAgent('7102')
    h.sim.setOutcome('5557100002', { kind: 'answer', ringSeconds: 10, talkSeconds: 5 })
    await h.push(lead('LG-3', '5557100002'))
    await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557100002'))
    h.sim.setAgentDevice('7102', 'busy')
    await h.until('call finished', () => lines.some((l) => l.msg === 'call finished'))
    const leadId = Number((await h.lead('LG-3'))?.id)
    const got = steps(lines, leadId)
    t.same(
      got.map((l) => l.msg),
      ['calling', 'customer ringing', 'customer answered', 'on hold', 'call finished'],
    )
    t.match(got[3], { phase: 'on hold', agent: null, waiting: 1 })
    const finished = got[4]
    t.match(finished, { outcome: 'Abandoned', agent: null, phase: 'ended', talkMs: null })
    t.equal(Number(finished?.elapsedMs), Number(finished?.ringMs) + Number(finished?.holdMs))
  })

  t.test('predictive: a desk that refuses the customer puts the call back on hold, saying why', async (t) => {
    let deskBusy = () => {}
    // The desk goes busy the moment the customer is sent to it: its leg fails (BUSY).
    const { logger, lines } = capturedLogger((l) => {
      if (l.msg === 'sent to agent') deskBusy()
    })
    const h = await harness(t, database, {
      logger,
      env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '2' },
    })
    await h.addAgent('7103')
    deskBusy = () => h.sim.setAgentDevice('7103', 'busy')
    h.sim.setOutcome('5557100003', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
    await h.push(lead('LG-4', '5557100003'))
    await h.until('call finished', () => lines.some((l) => l.msg === 'call finished'))
    const leadId = Number((await h.lead('LG-4'))?.id)
    const got = steps(lines, leadId)
    t.same(
      got.map((l) => l.msg),
      [
        'calling',
        'customer ringing',
        'customer answered',
        'on hold',
        'sent to agent',
        'on hold',
        'call finished',
      ],
    )
    t.match(got[5], { phase: 'on hold', agent: null, agentDialStatus: 'BUSY', refusedBy: '7103' })
    t.match(got[6], { outcome: 'Abandoned', talkMs: null })
  })
})
