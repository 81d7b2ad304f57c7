import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, settled, startAsterisk } from './testbed.js'

// Predictive mode, pool callbacks (Mode A), on a real Asterisk 22: customers dialed first into the
// shipped HOLD_CONTEXT, answered ones redirected to AGENT_CONTEXT and the agent's desk.
const PREDICTIVE = { DIAL_MODE: 'predictive' }
const asterisk = await startAsterisk(t)

forEachDialect(t, async (t, database) => {
  t.test('answered and connected to the idle agent: Received, that agent on the attempt', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE })
    const agentId = await agent(r, '1001')
    await r.push(lead('D-ANS', '5550008001'))
    const row = await settled(r, 'D-ANS')
    t.match(row, { dial_status: 'Received', call_count: 1, hangup_by: 'customer' })
    const [attempt] = await r.attempts('D-ANS')
    t.match(attempt, {
      outcome: 'Received',
      agent_id: agentId,
      agent_extension: '1001',
      dial_mode: 'predictive',
    })
  })

  const notConnected = [
    { name: 'busy', number: '5550002011', status: 'BUSY', reason: 5 },
    { name: 'congestion', number: '5550003011', status: 'CONGESTION', reason: 8 },
    { name: 'no answer', number: '5550004011', status: 'NOANSWER', reason: 3 },
  ]
  for (const c of notConnected) {
    t.test(`customer ${c.name}: Not Connected, no agent taken, no Redirect`, async (t) => {
      const { logger, lines } = memoryLogger()
      const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE, logger })
      await agent(r, '1001')
      const oli = `D-NC-${c.number}`
      await r.push(lead(oli, c.number))
      const row = await settled(r, oli)
      t.match(row, { dial_status: 'Not Connected', call_count: 1, last_dial_result: c.status })
      t.ok(row.next_retry_at, 'a retry is scheduled')
      t.match((await r.attempts(oli))[0], { originate_reason: c.reason, agent_id: null })
      t.notOk(
        lines.some((l) => l.msg === 'redirect to agent failed'),
        'no Redirect of a customer who never answered',
      )
    })
  }

  const unreachable = [
    { name: 'unreachable (cause 20)', number: '5550006011' },
    { name: 'not in service (cause 1)', number: '5550007011' },
    { name: 'unknown number (the route has no such extension)', number: '5559999011' },
  ]
  for (const c of unreachable) {
    t.test(`customer ${c.name}: Not Connected with a retry, never restored to be dialed again`, async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE })
      await agent(r, '1001')
      const oli = `D-UN-${c.number}`
      await r.push(lead(oli, c.number))
      const row = await settled(r, oli)
      t.match(row, { dial_status: 'Not Connected', call_count: 1 })
      t.ok(row.next_retry_at, 'a retry is scheduled')
      t.match((await r.attempts(oli))[0], { outcome: 'Not Connected', agent_id: null })
    })
  }

  t.test('the customer channel cannot be created: previous status restored, nothing counted', async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: { ...PREDICTIVE, CUSTOMER_CHANNEL_TEMPLATE: 'NoSuchTech/{number}' },
    })
    await agent(r, '1001')
    await r.push(lead('D-FAIL', '5550001013'))
    await r.until('restored', () => r.dialer.stats.restored > 0)
    const row = await r.lead('D-FAIL')
    t.match(row, { dial_status: 'Pending', call_count: 0, isReserved: 0, reserved_by: null })
    t.same(await r.attempts('D-FAIL'), [], 'no attempt recorded')
  })

  t.test('Not Connected until max_tries: Archived to hold_dialer_disposed', async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: { ...PREDICTIVE, RETRY_SECONDS: '0', MAX_TRIES: '2' },
    })
    await agent(r, '1001')
    await r.push(lead('D-MAX', '5550002013'))
    await r.until('archived', async () => (await r.lead('D-MAX')) === undefined)
    const archived = await database.handle.kysely
      .selectFrom('hold_dialer_disposed')
      .selectAll()
      .where('oli_id', '=', 'D-MAX')
      .executeTakeFirst()
    t.match(archived, { disposed_reason: 'max_tries', call_count: 2 })
    t.equal((await r.attempts('D-MAX')).length, 2, 'two attempts, both busy')
  })

  t.test('a due callback sits in the overdial pool: dialed, answered, connected: Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE })
    await agent(r, '1001')
    await r.push(
      lead('D-CB', '5550008012', { priority_id: 2, callback_scheduled_at: '2020-01-01T10:00:00Z' }),
    )
    t.match(await settled(r, 'D-CB'), { dial_status: 'Received', call_count: 1, callback_scheduled_at: null })
  })

  t.test('customer rejects (cause 21): Rejected', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE })
    await agent(r, '1001')
    await r.push(lead('D-REJ', '5550005011'))
    t.match(await settled(r, 'D-REJ'), {
      dial_status: 'Rejected',
      call_count: 1,
      hangup_cause: '21 Call Rejected',
    })
  })

  t.test(
    'the customer hangs up while the agent does not answer: Abandoned, retried after 5 minutes',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: { ...PREDICTIVE, HOLD_TIMEOUT_SECONDS: '30' },
      })
      await agent(r, '2001')
      await r.push(lead('D-AB', '5550001011'))
      const row = await settled(r, 'D-AB')
      t.match(row, { dial_status: 'Abandoned', call_count: 1 })
      const wait = new Date(`${row.next_retry_at}Z`).getTime() - new Date(`${row.last_attempt_at}Z`).getTime()
      t.ok(wait >= 300_000 && wait < 330_000, `retried ABANDON_RETRY_SECONDS after the attempt (${wait} ms)`)
      t.match((await r.attempts('D-AB'))[0], { outcome: 'Abandoned', agent_id: null })
    },
  )

  t.test('an Abandoned lead is claimed again when its retry is due, and can then be Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: { ...PREDICTIVE, ABANDON_RETRY_SECONDS: '0', HOLD_TIMEOUT_SECONDS: '30' },
    })
    // First call: the only agent's desk never answers and the customer hangs up on hold.
    const silent = await agent(r, '2051')
    await r.push(lead('D-RE', '5550001051'))
    await r.until('Abandoned', async () => (await r.lead('D-RE'))?.dial_status === 'Abandoned')
    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ is_active: 0 })
      .where('id', '=', silent)
      .execute()
    const answering = await agent(r, '1051')
    await r.until('Received', async () => (await r.lead('D-RE'))?.dial_status === 'Received')
    t.match(await r.lead('D-RE'), { call_count: 2, isReserved: 0 })
    t.match(
      (await r.attempts('D-RE')).map((a) => ({ outcome: a.outcome, agent_id: a.agent_id })),
      [
        { outcome: 'Abandoned', agent_id: null },
        { outcome: 'Received', agent_id: answering },
      ],
    )
  })

  t.test(
    'the agent is busy after the answer: back on hold, hung up at the hold timeout, Abandoned',
    async (t) => {
      const { logger, lines } = memoryLogger()
      const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE, logger })
      await agent(r, '3001')
      const from = asterisk.events.length
      await r.push(lead('D-HOLD', '5550009011'))
      const row = await settled(r, 'D-HOLD')
      t.match(row, { dial_status: 'Abandoned', call_count: 1 })
      const rings = asterisk.events
        .slice(from)
        .filter((e) => e.event === 'DialBegin' && String(e.destchannel ?? '').startsWith('Local/3001@agents'))
      t.equal(rings.length, 1, 'the busy desk is not tried again within the agent rest (10 s > hold timeout)')
      t.notOk(
        lines.some((l) => l.msg === 'redirect to agent failed'),
        'every Redirect named a live customer channel',
      )
    },
  )
})
