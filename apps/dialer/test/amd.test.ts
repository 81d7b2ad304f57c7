import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { harness, lead, memoryLogger } from './harness.js'

// Answering machine detection in predictive mode, on pbx-sim: the shipped HOLD_CONTEXT's AMD() and its
// HoldDialerAmd UserEvent as the simulator plays them (packages/pbx-sim), the real dialer and database.
const AMD = { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '30', AMD: 'predictive' }

forEachDialect(t, async (t, database) => {
  const stats = async () =>
    database.handle.kysely
      .selectFrom('hold_dialer_abandon_stats')
      .select((eb) => [
        eb.fn.sum<number>('answered').as('answered'),
        eb.fn.sum<number>('abandoned').as('abandoned'),
        eb.fn.sum<number>('machines').as('machines'),
      ])
      .executeTakeFirstOrThrow()

  t.test('a person: queued only after the verdict, connected, HUMAN on the attempt', async (t) => {
    const h = await harness(t, database, { env: AMD })
    const agent = await h.addAgent('7101')
    h.sim.setOutcome('5557100001', {
      kind: 'answer',
      ringSeconds: 1,
      talkSeconds: 5,
      amd: { status: 'HUMAN', seconds: 3 },
    })
    await h.push(lead('AMD-H', '5557100001'))
    await h.until('Received', async () => (await h.lead('AMD-H'))?.dial_status === 'Received')
    const call = h.sim.calls.find((c) => c.number === '5557100001')
    t.equal(call?.variables.HD_AMD, 'hangup', 'the Originate turned AMD() on')
    t.ok(
      call?.answeredAt && call.bridgedAt && call.bridgedAt - call.answeredAt >= 3000,
      'the agent was rung only after the 3 s of detection',
    )
    const [attempt] = await h.attempts('AMD-H')
    t.match(attempt, {
      outcome: 'Received',
      agent_id: agent,
      amd_status: 'HUMAN',
      amd_cause: 'HUMAN-800-800',
    })
    t.ok(Number(attempt?.amd_ms) >= 0, 'the detection time is recorded')
    await h.until('counted as answered', async () => Number((await stats()).answered) === 1)
    t.equal(Number((await stats()).machines), 0)
  })

  t.test(
    'a machine: hung up, no agent rung, Not Connected retried after AMD_RETRY_SECONDS, counted apart',
    async (t) => {
      const h = await harness(t, database, { env: { ...AMD, AMD_RETRY_SECONDS: '1800' } })
      await h.addAgent('7102')
      h.sim.setOutcome('5557100002', {
        kind: 'answer',
        ringSeconds: 1,
        talkSeconds: 30,
        amd: { status: 'MACHINE', seconds: 2 },
      })
      const before = await stats()
      await h.push(lead('AMD-M', '5557100002'))
      await h.until('settled', async () => (await h.lead('AMD-M'))?.call_count === 1)
      const row = await h.lead('AMD-M')
      t.match(row, { dial_status: 'Not Connected', isReserved: 0, hangup_by: 'system' })
      const gap =
        new Date(`${String(row?.next_retry_at)}Z`).getTime() -
        new Date(`${String(row?.last_attempt_at)}Z`).getTime()
      t.ok(gap >= 1_799_000 && gap <= 1_830_000, `retry ${gap} ms after the attempt`)
      t.match((await h.attempts('AMD-M'))[0], {
        outcome: 'Machine',
        attempt_no: 1,
        agent_id: null,
        amd_status: 'MACHINE',
        amd_cause: 'LONGGREETING-1500-1500',
      })
      const call = h.sim.calls.find((c) => c.number === '5557100002')
      t.equal(call?.outcome, 'machine', 'the dialplan hung the machine up')
      t.equal(call?.bridgedAt, null, 'never bridged')
      t.equal(call?.agentExtension, null, 'no agent was rung')
      const after = await stats()
      t.equal(Number(after.machines) - Number(before.machines), 1, 'one machine in the window')
      t.equal(Number(after.answered), Number(before.answered), 'not counted as an answered call')
      t.equal(Number(after.abandoned), Number(before.abandoned), 'nor as an abandoned one')
      const governor = h.dialer.governor()
      t.equal(governor?.machines, Number(after.machines), 'the governor read the machines')
      t.equal(
        governor?.abandoned,
        Number(after.abandoned) + 0.2 * Number(after.machines),
        'and counts 20% of them as abandoned',
      )
    },
  )

  t.test('no verdict in time (a lost UserEvent): taken as a person, with a warning', async (t) => {
    const { logger, lines } = memoryLogger()
    // AMD() stops listening after 300 ms: a verdict is overdue 2.3 s after the answer.
    const h = await harness(t, database, { env: { ...AMD, AMD_TOTAL_ANALYSIS_MS: '300' }, logger })
    const agent = await h.addAgent('7110')
    h.sim.setOutcome('5557100010', {
      kind: 'answer',
      ringSeconds: 1,
      talkSeconds: 2,
      amd: { status: 'MACHINE', seconds: 3600 },
    })
    await h.push(lead('AMD-LOST', '5557100010'))
    await h.until('Received', async () => (await h.lead('AMD-LOST'))?.dial_status === 'Received', 20_000)
    t.match((await h.attempts('AMD-LOST'))[0], { outcome: 'Received', agent_id: agent, amd_status: null })
    t.ok(
      lines.some((l) => String(l.msg).startsWith('no answering machine verdict in time')),
      'the missing verdict is logged',
    )
  })

  t.test('NOTSURE is taken as a person: connected to the agent', async (t) => {
    const h = await harness(t, database, { env: AMD })
    const agent = await h.addAgent('7103')
    h.sim.setOutcome('5557100003', {
      kind: 'answer',
      ringSeconds: 1,
      talkSeconds: 5,
      amd: { status: 'NOTSURE' },
    })
    await h.push(lead('AMD-N', '5557100003'))
    await h.until('Received', async () => (await h.lead('AMD-N'))?.dial_status === 'Received')
    t.match((await h.attempts('AMD-N'))[0], { outcome: 'Received', agent_id: agent, amd_status: 'NOTSURE' })
  })

  t.test('record-only: a machine goes to the agent too, the verdict written on the attempt', async (t) => {
    const h = await harness(t, database, { env: { ...AMD, AMD_RECORD_ONLY: 'true' } })
    const agent = await h.addAgent('7104')
    h.sim.setOutcome('5557100004', {
      kind: 'answer',
      ringSeconds: 1,
      talkSeconds: 5,
      amd: { status: 'MACHINE', seconds: 1 },
    })
    await h.push(lead('AMD-R', '5557100004'))
    await h.until('Received', async () => (await h.lead('AMD-R'))?.dial_status === 'Received')
    t.equal(h.sim.calls.find((c) => c.number === '5557100004')?.variables.HD_AMD, 'record')
    t.match((await h.attempts('AMD-R'))[0], { outcome: 'Received', agent_id: agent, amd_status: 'MACHINE' })
  })

  t.test("AMD()'s parameters set in the dialer reach the dialplan as channel variables", async (t) => {
    const h = await harness(t, database, {
      env: { ...AMD, AMD_GREETING_MS: '1200', AMD_TOTAL_ANALYSIS_MS: '4000' },
    })
    await h.addAgent('7105')
    h.sim.setOutcome('5557100005', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
    await h.push(lead('AMD-P', '5557100005'))
    await h.until('Received', async () => (await h.lead('AMD-P'))?.dial_status === 'Received')
    const vars = h.sim.calls.find((c) => c.number === '5557100005')?.variables ?? {}
    t.match(vars, { HD_AMD: 'hangup', HD_AMD_GREETING: '1200', HD_AMD_TOTAL_ANALYSIS_TIME: '4000' })
    t.notOk('HD_AMD_INITIAL_SILENCE' in vars, 'an unset parameter is left to amd.conf')
  })

  t.test(
    'detection time counts toward COMPLIANCE_SECONDS: a person connected late is counted abandoned',
    async (t) => {
      // Real seconds: the dialer measures the answer-to-agent time on its own clock.
      const h = await harness(t, database, { env: AMD, timeScale: 1 })
      await h.addAgent('7109')
      h.sim.setOutcome('5557100009', {
        kind: 'answer',
        ringSeconds: 0.2,
        talkSeconds: 0.5,
        amd: { status: 'HUMAN', seconds: 2.5 },
      })
      const before = await stats()
      await h.push(lead('AMD-LATE', '5557100009'))
      await h.until('Received', async () => (await h.lead('AMD-LATE'))?.dial_status === 'Received', 20_000)
      await h.until('counted', async () => Number((await stats()).answered) > Number(before.answered))
      const after = await stats()
      t.equal(Number(after.abandoned) - Number(before.abandoned), 1, '2.5 s of detection: over the 2 s rule')
      t.ok(Number((await h.attempts('AMD-LATE'))[0]?.amd_ms) >= 2400, 'the detection time is on the attempt')
    },
  )

  t.test('pacing learns the rate at which people answer: a machine is a line nobody answered', async (t) => {
    const h = await harness(t, database, { env: { ...AMD, WRAP_SECONDS: '0' } })
    await h.addAgent('7107')
    await h.addAgent('7108')
    const leads: ReturnType<typeof lead>[] = []
    for (let i = 0; i < 24; i++) {
      const number = `55571002${String(i).padStart(2, '0')}`
      h.sim.setOutcome(number, {
        kind: 'answer',
        ringSeconds: 1,
        talkSeconds: 2,
        amd: { status: i % 2 === 0 ? 'MACHINE' : 'HUMAN', seconds: 1 },
      })
      leads.push(lead(`AMD-RATE-${i}`, number))
    }
    await h.push(leads)
    await h.until(
      'all settled',
      async () => {
        const rows = await Promise.all(leads.map((_, i) => h.lead(`AMD-RATE-${i}`)))
        return rows.every((r) => Number(r?.call_count) === 1 && r?.isReserved === 0)
      },
      60_000,
    )
    const outcomes = (await Promise.all(leads.map((_, i) => h.attempts(`AMD-RATE-${i}`)))).map(
      (a) => a[0]?.outcome,
    )
    t.equal(outcomes.filter((o) => o === 'Machine').length, 12, 'twelve machines')
    t.equal(outcomes.filter((o) => o === 'Received').length, 12, 'twelve people')
    t.equal(h.dialer.governor()?.answerRate, 0.5, 'every line was picked up, but half by a machine')
  })

  const PROGRESSIVE = { DIAL_MODE: 'progressive', AMD: 'progressive' }

  t.test(
    'progressive, a person: the desk is connected after the verdict, HUMAN on the attempt',
    async (t) => {
      const h = await harness(t, database, { env: PROGRESSIVE })
      const agent = await h.addAgent('7111')
      h.sim.setOutcome('5557100011', {
        kind: 'answer',
        ringSeconds: 1,
        talkSeconds: 5,
        amd: { status: 'HUMAN', seconds: 3 },
      })
      await h.push(lead('AMD-PH', '5557100011'))
      await h.until('Received', async () => (await h.lead('AMD-PH'))?.dial_status === 'Received')
      const call = h.sim.calls.find((c) => c.number === '5557100011')
      t.equal(call?.variables.HD_AMD, 'hangup', 'the Originate turned AMD() on')
      t.ok(
        call?.answeredAt && call.bridgedAt && call.bridgedAt - call.answeredAt >= 3000,
        'the desk was bridged only after the 3 s of detection',
      )
      t.match((await h.attempts('AMD-PH'))[0], {
        outcome: 'Received',
        agent_id: agent,
        dial_mode: 'progressive',
        amd_status: 'HUMAN',
      })
    },
  )

  t.test(
    'progressive, a machine: hung up before the desk is connected, Not Connected, no wrap-up',
    async (t) => {
      const h = await harness(t, database, { env: { ...PROGRESSIVE, AMD_RETRY_SECONDS: '600' } })
      const agent = await h.addAgent('7112')
      h.sim.setOutcome('5557100012', {
        kind: 'answer',
        ringSeconds: 1,
        talkSeconds: 30,
        amd: { status: 'MACHINE', seconds: 2 },
      })
      await h.push(lead('AMD-PM', '5557100012'))
      await h.until('settled', async () => (await h.lead('AMD-PM'))?.call_count === 1)
      const row = await h.lead('AMD-PM')
      t.match(row, { dial_status: 'Not Connected', hangup_by: 'system' })
      const gap =
        new Date(`${String(row?.next_retry_at)}Z`).getTime() -
        new Date(`${String(row?.last_attempt_at)}Z`).getTime()
      t.ok(gap >= 599_000 && gap <= 630_000, `retry ${gap} ms after the attempt`)
      t.match((await h.attempts('AMD-PM'))[0], {
        outcome: 'Machine',
        amd_status: 'MACHINE',
        ami_dial_status: 'CONTINUE',
      })
      const call = h.sim.calls.find((c) => c.number === '5557100012')
      t.equal(call?.bridgedAt, null, 'the desk never talked to the machine')
      const desk = await database.handle.kysely
        .selectFrom('dialer_employee')
        .select(['wrap_until', 'on_call_by'])
        .where('id', '=', agent)
        .executeTakeFirstOrThrow()
      t.match(desk, { wrap_until: null, on_call_by: null }, 'the agent is free at once, no wrap-up')
    },
  )

  t.test('AMD=predictive leaves progressive calls alone', async (t) => {
    const h = await harness(t, database, { env: { DIAL_MODE: 'progressive', AMD: 'predictive' } })
    await h.addAgent('7113')
    h.sim.setOutcome('5557100013', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
    await h.push(lead('AMD-PO', '5557100013'))
    await h.until('Received', async () => (await h.lead('AMD-PO'))?.dial_status === 'Received')
    t.notOk('HD_AMD' in (h.sim.calls.find((c) => c.number === '5557100013')?.variables ?? {}))
    t.match((await h.attempts('AMD-PO'))[0], { amd_status: null })
  })

  t.test('AMD=both turns detection on for progressive calls too', async (t) => {
    const both = await harness(t, database, { env: { DIAL_MODE: 'progressive', AMD: 'both' } })
    await both.addAgent('7114')
    both.sim.setOutcome('5557100014', { kind: 'answer', ringSeconds: 1, talkSeconds: 2 })
    await both.push(lead('AMD-PB', '5557100014'))
    await both.until('Received', async () => (await both.lead('AMD-PB'))?.dial_status === 'Received')
    t.equal(both.sim.calls.find((c) => c.number === '5557100014')?.variables.HD_AMD, 'hangup')
  })

  t.test('AMD off (the default): no detection, nothing on the attempt', async (t) => {
    const h = await harness(t, database, { env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '30' } })
    await h.addAgent('7106')
    h.sim.setOutcome('5557100006', {
      kind: 'answer',
      ringSeconds: 1,
      talkSeconds: 2,
      amd: { status: 'MACHINE', seconds: 1 },
    })
    await h.push(lead('AMD-OFF', '5557100006'))
    await h.until('Received', async () => (await h.lead('AMD-OFF'))?.dial_status === 'Received')
    t.notOk('HD_AMD' in (h.sim.calls.find((c) => c.number === '5557100006')?.variables ?? {}))
    t.match((await h.attempts('AMD-OFF'))[0], { outcome: 'Received', amd_status: null, amd_ms: null })
  })
})
