import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { harness, lead } from './harness.js'

forEachDialect(t, async (t, database) => {
  const h = await harness(t, database)
  const agentId = await h.addAgent('1001')

  t.test('answered and talked: Received, an attempt row with the connected agent, agent freed', async (t) => {
    h.sim.setOutcome('5550000001', { kind: 'answer', ringSeconds: 2, talkSeconds: 10 })
    await h.push(lead('R-1', '5550000001'))
    await h.until('Received', async () => (await h.lead('R-1'))?.dial_status === 'Received')
    const row = await h.lead('R-1')
    t.match(row, {
      dial_status: 'Received',
      call_count: 1,
      isReserved: 0,
      reserved_by: null,
      last_dial_result: 'ANSWER',
      hangup_by: 'customer',
    })
    t.ok(row?.first_attempt_at)
    t.equal(row?.first_attempt_at, row?.last_attempt_at)
    const attempts = await h.attempts('R-1')
    t.equal(attempts.length, 1)
    t.match(attempts[0], {
      attempt_no: 1,
      agent_id: agentId,
      agent_extension: '1001',
      outcome: 'Received',
      ami_dial_status: 'ANSWER',
      hangup_cause: 16,
    })
    t.ok(attempts[0]?.answered_at)
    t.ok(attempts[0]?.uniqueid)
    t.equal(h.sim.maxConcurrentCallsTo('5550000001'), 1)
    const agent = await database.handle.kysely
      .selectFrom('dialer_employee')
      .selectAll()
      .where('id', '=', agentId)
      .executeTakeFirst()
    t.equal(agent?.on_call_by, null)
  })

  t.test('busy: Not Connected with next_retry_at from the retry schedule', async (t) => {
    h.sim.setOutcome('5550000002', { kind: 'busy' })
    await h.push(lead('B-1', '5550000002'))
    await h.until('Not Connected', async () => (await h.lead('B-1'))?.dial_status === 'Not Connected')
    const row = await h.lead('B-1')
    t.match(row, { call_count: 1, isReserved: 0, last_dial_result: 'BUSY' })
    t.ok(row?.next_retry_at, 'a retry is scheduled')
    t.ok(String(row?.next_retry_at) > String(row?.last_attempt_at), 'after the attempt')
    t.match((await h.attempts('B-1'))[0], { outcome: 'Not Connected', hangup_cause: 17 })
  })

  t.test('rejected: Rejected and never claimed again', async (t) => {
    h.sim.setOutcome('5550000003', { kind: 'reject' })
    await h.push(lead('J-1', '5550000003'))
    await h.until('Rejected', async () => (await h.lead('J-1'))?.dial_status === 'Rejected')
    t.match(await h.lead('J-1'), { call_count: 1, isReserved: 0 })
    await h.dialer.claimRounds()
    t.equal((await h.attempts('J-1')).length, 1)
  })

  t.test('a desk the PBX reports unavailable is not rung: the lead waits unreserved', async (t) => {
    h.sim.setAgentDevice('1001', 'unavailable')
    // Let the DeviceStateChange reach the dialer first: a claim already under way would otherwise ring
    // the desk, fail, and put the lead in the failed-originate cool-down (60 s).
    await h.dialer.claimRounds()
    // The desk reports UNAVAILABLE, so the dialer does not even try: nothing is reserved.
    await h.push(lead('F-1', '5550000004'))
    await h.dialer.claimRounds()
    t.match(await h.lead('F-1'), { dial_status: 'Pending', isReserved: 0, call_count: 0 })
    h.sim.setAgentDevice('1001', 'idle')
    await h.until(
      'dialed once the desk is back',
      async () => (await h.lead('F-1'))?.dial_status === 'Received',
    )
  })

  t.test('an originate the PBX refuses restores the lead with call_count unchanged', async (t) => {
    h.sim.failNextOriginates(1)
    await h.push(lead('F-2', '5550000005'))
    await h.until('restored', async () => h.dialer.stats.restored > 0)
    const row = await h.lead('F-2')
    t.match(row, {
      dial_status: 'Pending',
      isReserved: 0,
      call_count: 0,
      previous_status: null,
      reserved_by: null,
    })
    t.equal((await h.attempts('F-2')).length, 0)
  })

  t.test(
    'congestion, no answer and the agent hanging up while the customer rings (CANCEL): Not Connected',
    async (t) => {
      h.sim.setOutcome('5550000006', { kind: 'congestion' })
      h.sim.setOutcome('5550000007', { kind: 'noanswer', ringSeconds: 2 })
      await h.push([lead('C-1', '5550000006'), lead('C-2', '5550000007')])
      await h.until(
        'both settled',
        async () => (await h.lead('C-1'))?.call_count === 1 && (await h.lead('C-2'))?.call_count === 1,
      )
      t.match(await h.lead('C-1'), { dial_status: 'Not Connected', last_dial_result: 'CONGESTION' })
      t.match(await h.lead('C-2'), { dial_status: 'Not Connected', last_dial_result: 'NOANSWER' })
      // The agent hangs up while the customer is still ringing: app_dial reports CANCEL.
      h.sim.setOutcome('5550000008', { kind: 'noanswer', ringSeconds: 20 })
      await h.push(lead('C-3', '5550000008'))
      await h.until('ringing', () => h.sim.channels().some((c) => c.name.startsWith('PJSIP/trunk-')))
      const agentLeg = h.sim.channels().find((c) => c.name.startsWith('PJSIP/1001-'))
      t.ok(agentLeg && h.sim.hangupChannel(agentLeg.name))
      await h.until('settled', async () => (await h.lead('C-3'))?.call_count === 1)
      // The customer neither answered nor refused: tried again, not Rejected for good.
      t.match(await h.lead('C-3'), { dial_status: 'Not Connected', last_dial_result: 'CANCEL' })
    },
  )
})
