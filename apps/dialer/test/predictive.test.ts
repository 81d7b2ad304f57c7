import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { harness, lead } from './harness.js'

const PREDICTIVE = { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '3' }

forEachDialect(t, async (t, database) => {
  const stats = async () =>
    database.handle.kysely
      .selectFrom('hold_dialer_abandon_stats')
      .select((eb) => [
        eb.fn.sum<number>('answered').as('answered'),
        eb.fn.sum<number>('abandoned').as('abandoned'),
      ])
      .executeTakeFirstOrThrow()

  t.test(
    'customer first, then bridged to an idle agent: Received, the connected agent recorded',
    async (t) => {
      const h = await harness(t, database, { env: PREDICTIVE })
      const agent = await h.addAgent('7001')
      h.sim.setOutcome('5557000001', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
      await h.push(lead('PR-1', '5557000001'))
      await h.until('Received', async () => (await h.lead('PR-1'))?.dial_status === 'Received')
      const call = h.sim.calls.find((c) => c.number === '5557000001')
      t.equal(call?.mode, 'predictive', 'the customer leg was originated first')
      t.equal(call?.agentExtension, '7001')
      t.ok(call?.bridgedAt)
      t.match((await h.attempts('PR-1'))[0], { outcome: 'Received', agent_id: agent, attempt_no: 1 })
      t.match(await h.lead('PR-1'), { call_count: 1, isReserved: 0 })
      await h.until('counted for the governor', async () => Number((await stats()).answered) >= 1)
    },
  )

  t.test(
    'customer hangs up while waiting for an agent: Abandoned, retried after ABANDON_RETRY_SECONDS',
    async (t) => {
      const h = await harness(t, database, { env: { ...PREDICTIVE, HOLD_TIMEOUT_SECONDS: '30' } })
      await h.addAgent('7002')
      h.sim.setOutcome('5557000002', { kind: 'hangupWhileWaiting', ringSeconds: 10, patienceSeconds: 2 })
      await h.push(lead('PR-2', '5557000002'))
      // Once the call is ringing, the only agent goes busy on another line.
      await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557000002'))
      h.sim.setAgentDevice('7002', 'busy')
      await h.until('Abandoned', async () => (await h.lead('PR-2'))?.dial_status === 'Abandoned')
      const row = await h.lead('PR-2')
      t.match(row, { call_count: 1, isReserved: 0 })
      const gap =
        new Date(`${String(row?.next_retry_at)}Z`).getTime() -
        new Date(`${String(row?.last_attempt_at)}Z`).getTime()
      t.ok(gap >= 299_000 && gap <= 330_000, `retry ${gap} ms after the attempt`)
      t.match((await h.attempts('PR-2'))[0], { outcome: 'Abandoned', agent_id: null })
      t.equal(h.sim.calls.find((c) => c.number === '5557000002')?.outcome, 'abandoned')
    },
  )

  t.test('no agent free within HOLD_TIMEOUT_SECONDS: the dialer hangs up, Abandoned', async (t) => {
    const h = await harness(t, database, { env: PREDICTIVE })
    await h.addAgent('7003')
    h.sim.setOutcome('5557000003', { kind: 'answer', ringSeconds: 10, talkSeconds: 5 })
    await h.push(lead('PR-3', '5557000003'))
    await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557000003'))
    h.sim.setAgentDevice('7003', 'busy')
    await h.until('Abandoned', async () => (await h.lead('PR-3'))?.dial_status === 'Abandoned')
    t.equal(h.sim.calls.find((c) => c.number === '5557000003')?.bridgedAt, null, 'never bridged')
  })

  t.test('not answered: busy and no answer are Not Connected, a reject is Rejected', async (t) => {
    const h = await harness(t, database, { env: PREDICTIVE })
    await h.addAgent('7004')
    h.sim.setOutcome('5557000004', { kind: 'busy' })
    h.sim.setOutcome('5557000005', { kind: 'noanswer', ringSeconds: 2 })
    h.sim.setOutcome('5557000006', { kind: 'reject' })
    await h.push([lead('PR-4', '5557000004'), lead('PR-5', '5557000005'), lead('PR-6', '5557000006')])
    await h.until('settled', async () =>
      (await Promise.all(['PR-4', 'PR-5', 'PR-6'].map((o) => h.lead(o)))).every((r) => r?.call_count === 1),
    )
    t.match(await h.lead('PR-4'), { dial_status: 'Not Connected' })
    t.match(await h.lead('PR-5'), { dial_status: 'Not Connected' })
    t.match(await h.lead('PR-6'), { dial_status: 'Rejected' })
  })

  t.test(
    'pinned mode: a pinned lead waits for its own agent, is bridged only to that extension',
    async (t) => {
      const h = await harness(t, database, {
        env: { ...PREDICTIVE, CALLBACK_MODE: 'pinned', HOLD_TIMEOUT_SECONDS: '20' },
      })
      const mine = await h.addAgent('7005', { presence: 'paused' })
      await h.addAgent('7006')
      h.sim.setOutcome('5557000007', { kind: 'answer', ringSeconds: 1, talkSeconds: 3 })
      await h.push(lead('PP-1', '5557000007', { agent_id: mine }))
      await h.dialer.claimRounds()
      t.equal(h.sim.calls.filter((c) => c.number === '5557000007').length, 0, 'not in the overdial pool')
      await database.handle.kysely
        .updateTable('dialer_employee')
        .set({ presence: 'ready' })
        .where('id', '=', mine)
        .execute()
      await h.until('Received', async () => (await h.lead('PP-1'))?.dial_status === 'Received')
      t.equal(h.sim.calls.find((c) => c.number === '5557000007')?.agentExtension, '7005')
      t.match(await h.lead('PP-1'), { agent_id: mine })
    },
  )

  t.test(
    'pinned mode: its agent busy after the customer answers: held until free, then bridged',
    async (t) => {
      const h = await harness(t, database, {
        env: { ...PREDICTIVE, CALLBACK_MODE: 'pinned', HOLD_TIMEOUT_SECONDS: '20' },
      })
      const mine = await h.addAgent('7007')
      h.sim.setOutcome('5557000008', { kind: 'answer', ringSeconds: 10, talkSeconds: 3 })
      await h.push(lead('PP-2', '5557000008', { agent_id: mine }))
      await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557000008'))
      h.sim.setAgentDevice('7007', 'busy')
      await h.until('answered', () =>
        h.sim.calls.some((c) => c.number === '5557000008' && c.answeredAt !== null),
      )
      await h.dialer.claimRounds()
      t.equal(
        h.sim.calls.find((c) => c.number === '5557000008')?.bridgedAt,
        null,
        'held while the agent is busy',
      )
      h.sim.setAgentDevice('7007', 'idle')
      await h.until('Received', async () => (await h.lead('PP-2'))?.dial_status === 'Received')
      t.equal(h.sim.calls.find((c) => c.number === '5557000008')?.agentExtension, '7007')
    },
  )

  t.test(
    'pinned mode: hold timeout: Abandoned, rescheduled by the Not Connected scheduler, pin kept',
    async (t) => {
      const h = await harness(t, database, {
        env: { ...PREDICTIVE, CALLBACK_MODE: 'pinned', RETRY_SECONDS: '3600', RETRY_PATTERN: '[2,2,1]' },
      })
      const mine = await h.addAgent('7008')
      h.sim.setOutcome('5557000009', { kind: 'answer', ringSeconds: 10, talkSeconds: 3 })
      await h.push(lead('PP-3', '5557000009', { agent_id: mine }))
      await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557000009'))
      h.sim.setAgentDevice('7008', 'busy')
      await h.until('Abandoned', async () => (await h.lead('PP-3'))?.dial_status === 'Abandoned')
      const row = await h.lead('PP-3')
      t.match(row, { agent_id: mine, call_count: 1, isReserved: 0 })
      const gap =
        new Date(`${String(row?.next_retry_at)}Z`).getTime() -
        new Date(`${String(row?.last_attempt_at)}Z`).getTime()
      t.ok(
        gap >= 3_599_000,
        `next try an hour later (RETRY_SECONDS), not after ABANDON_RETRY_SECONDS: ${gap} ms`,
      )
    },
  )

  t.test('pool mode: a due callback is dialed after hours and held until any agent is idle', async (t) => {
    const h = await harness(t, database, {
      env: { ...PREDICTIVE, HOLD_TIMEOUT_SECONDS: '20', WORK_START: '09:00', WORK_END: '18:00' },
      now: '2026-11-23T20:00:00.000Z',
    })
    await h.addAgent('7010')
    h.sim.setOutcome('5557000010', { kind: 'answer', ringSeconds: 10, talkSeconds: 3 })
    await h.push(
      lead('PC-1', '5557000010', { priority_id: 2, callback_scheduled_at: '2026-11-23T19:00:00Z' }),
    )
    await h.push(lead('PC-PENDING', '5557000011'))
    await h.until('dialing', () => h.sim.calls.some((c) => c.number === '5557000010'))
    h.sim.setAgentDevice('7010', 'busy')
    await h.until('answered', () =>
      h.sim.calls.some((c) => c.number === '5557000010' && c.answeredAt !== null),
    )
    await h.dialer.claimRounds()
    t.equal(h.sim.calls.find((c) => c.number === '5557000010')?.bridgedAt, null, 'held: no agent idle')
    h.sim.setAgentDevice('7010', 'idle')
    await h.until('Received', async () => (await h.lead('PC-1'))?.dial_status === 'Received')
    t.match(
      await h.lead('PC-PENDING'),
      { dial_status: 'Pending', call_count: 0 },
      'Pending waits for working hours',
    )
    t.equal(h.sim.calls.filter((c) => c.number === '5557000011').length, 0)
  })

  t.test('the heartbeat carries the governor state', async (t) => {
    const h = await harness(t, database, { env: { ...PREDICTIVE, HEARTBEAT_SECONDS: '1' } })
    await h.addAgent('7009')
    await h.until('heartbeat with governor', async () => {
      const beat = await database.handle.kysely
        .selectFrom('hold_dialer_heartbeat')
        .select('details')
        .where('dialer_id', '=', 'dialer-test')
        .executeTakeFirst()
      return Boolean(beat?.details && JSON.parse(beat.details).governor)
    })
    const beat = await database.handle.kysely
      .selectFrom('hold_dialer_heartbeat')
      .select('details')
      .where('dialer_id', '=', 'dialer-test')
      .executeTakeFirstOrThrow()
    t.match(JSON.parse(beat.details ?? '{}').governor, {
      window: '30d',
      answered: Number,
      abandoned: Number,
      dialLevel: Number,
    })
  })
})
