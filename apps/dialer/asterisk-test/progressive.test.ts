import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// Progressive mode, pool callbacks (Mode A), on a real Asterisk 22: every row of the spec's state
// table that a call decides. Customers' numbers script the outcome (packages/asterisk-testbed).
const asterisk = await startAsterisk(t)

forEachDialect(t, async (t, database) => {
  t.test('answered and talked: Received, the connected agent on the attempt', async (t) => {
    const r = await asteriskRig(t, database, asterisk)
    const agentId = await agent(r, '1001')
    await r.push(lead('P-ANS', '5550001001'))
    const row = await settled(r, 'P-ANS')
    t.match(row, {
      dial_status: 'Received',
      call_count: 1,
      last_dial_result: 'ANSWER',
      hangup_by: 'customer',
      hangup_cause: '16 Normal Clearing',
      reserved_by: null,
    })
    const [attempt] = await r.attempts('P-ANS')
    t.match(attempt, { outcome: 'Received', agent_id: agentId, agent_extension: '1001', hangup_cause: 16 })
    t.ok(attempt?.answered_at, 'answered_at recorded')
    t.ok(Number(attempt?.talk_seconds) >= 1, 'talked')
  })

  const notConnected = [
    { name: 'busy', number: '5550002001', status: 'BUSY', cause: '17 User busy' },
    {
      name: 'congestion',
      number: '5550003001',
      status: 'CONGESTION',
      cause: '34 Circuit/channel congestion',
    },
    { name: 'no answer', number: '5550004001', status: 'NOANSWER', cause: '0 Unknown' },
    {
      name: 'unreachable (cause 20)',
      number: '5550006001',
      status: 'CHANUNAVAIL',
      cause: '20 Subscriber absent',
    },
    {
      name: 'number not in service (cause 1)',
      number: '5550007001',
      status: 'NOANSWER',
      cause: '1 Unallocated (unassigned) number',
    },
  ]
  for (const c of notConnected) {
    t.test(`${c.name}: Not Connected with a retry, cause from the customer's side`, async (t) => {
      const r = await asteriskRig(t, database, asterisk)
      await agent(r, '1001')
      const oli = `P-NC-${c.number}`
      await r.push(lead(oli, c.number))
      const row = await settled(r, oli)
      t.match(row, {
        dial_status: 'Not Connected',
        call_count: 1,
        last_dial_result: c.status,
        hangup_cause: c.cause,
      })
      t.ok(row.next_retry_at, 'a retry is scheduled')
      t.match((await r.attempts(oli))[0], { outcome: 'Not Connected', ami_dial_status: c.status })
    })
  }

  t.test('an unknown number (no route): Not Connected, not Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk)
    await agent(r, '1001')
    await r.push(lead('P-UNK', '5559999001'))
    const row = await settled(r, 'P-UNK')
    t.match(row, { dial_status: 'Not Connected', call_count: 1 })
    t.not(row.dial_status, 'Received')
  })

  t.test('rejected (cause 21): Rejected, never claimed again', async (t) => {
    const r = await asteriskRig(t, database, asterisk)
    await agent(r, '1001')
    await r.push(lead('P-REJ', '5550005001'))
    const row = await settled(r, 'P-REJ')
    t.match(row, {
      dial_status: 'Rejected',
      call_count: 1,
      hangup_cause: '21 Call Rejected',
      hangup_by: 'customer',
    })
  })

  t.test('Not Connected until max_tries: retried, then Archived to hold_dialer_disposed', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: { RETRY_SECONDS: '0', MAX_TRIES: '2' } })
    await agent(r, '1001')
    await r.push(lead('P-MAX', '5550002002'))
    await r.until('archived', async () => (await r.lead('P-MAX')) === undefined)
    const archived = await database.handle.kysely
      .selectFrom('hold_dialer_disposed')
      .selectAll()
      .where('oli_id', '=', 'P-MAX')
      .executeTakeFirst()
    t.match(archived, { disposed_reason: 'max_tries', call_count: 2 })
    t.equal((await r.attempts('P-MAX')).length, 2, 'two attempts, both busy')
  })

  const agentFailures = [
    { name: 'does not answer', extension: '2001', reason: 3 },
    { name: 'is busy', extension: '3001', reason: 5 },
    { name: 'is congested', extension: '4001', reason: 8 },
    { name: 'hangs up without answering', extension: '5001', reason: 1 },
  ]
  for (const a of agentFailures) {
    t.test(`the agent's desk ${a.name}: previous status restored, nothing counted`, async (t) => {
      // A rest longer than any loaded machine needs for the claim rounds below.
      const r = await asteriskRig(t, database, asterisk, { timing: { agentRestMs: 120_000 } })
      await agent(r, a.extension)
      const oli = `P-AG-${a.extension}`
      const from = asterisk.events.length
      await r.push(lead(oli, '5550002003'))
      await r.until('restored', () => r.dialer.stats.restored > 0)
      await r.push(lead(`${oli}-2`, '5550002004'))
      await r.dialer.claimRounds(3)
      const rung = asterisk.events
        .slice(from)
        .filter(
          (e) => e.event === 'Newchannel' && String(e.channel).startsWith(`Local/${a.extension}@agents`),
        )
      t.equal(rung.length, 2, 'the desk (both Local halves) rung once: the agent rests before another lead')
      const row = await r.lead(oli)
      t.match(row, { dial_status: 'Pending', call_count: 0, isReserved: 0, reserved_by: null, isRnrSent: 0 })
      t.equal((await r.attempts(oli)).length, 0, 'no attempt counted against the customer')
      const desk = await database.handle.kysely
        .selectFrom('dialer_employee')
        .select('on_call_by')
        .where('extension', '=', a.extension)
        .executeTakeFirst()
      t.equal(desk?.on_call_by, null, 'agent released')
    })
  }

  t.test("the agent's desk cannot be reached (Reason 0): restored, nothing counted", async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: {
        AGENT_CHANNEL_TEMPLATE: 'Local/{extension}@no-such-context',
        AGENT_DEVICE_TEMPLATE: 'Custom:desk{extension}',
      },
    })
    await asterisk.setCustomDeviceState('desk1031', 'NOT_INUSE')
    await agent(r, '1031')
    await r.push(lead('P-AG0', '5550002031'))
    await r.until('restored', () => r.dialer.stats.restored > 0)
    t.match(await r.lead('P-AG0'), { dial_status: 'Pending', call_count: 0, isReserved: 0 })
    t.equal((await r.attempts('P-AG0')).length, 0, 'no attempt counted against the customer')
  })

  t.test(
    "a due callback whose agent's desk does not answer: restored to Callback, its time kept",
    async (t) => {
      const r = await asteriskRig(t, database, asterisk)
      await agent(r, '2032')
      await r.push(
        lead('P-CBR', '5550001032', { priority_id: 2, callback_scheduled_at: '2020-01-01T10:00:00Z' }),
      )
      await r.until('restored', () => r.dialer.stats.restored > 0)
      const row = await r.lead('P-CBR')
      t.match(row, { dial_status: 'Callback', call_count: 0, isReserved: 0 })
      t.match(String(row?.callback_scheduled_at), /^2020-01-01 10:00:00/)
    },
  )

  t.test(
    'a desk context whose Local pair Asterisk optimises out mid-call: hung up by the customer',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: { AGENT_CHANNEL_TEMPLATE: 'Local/{extension}@fpbx-desk' },
      })
      await agent(r, '1022')
      const from = asterisk.events.length
      await r.push(lead('P-OPT', '5550011022'))
      const row = await settled(r, 'P-OPT')
      t.ok(
        asterisk.events.slice(from).some((e) => e.event === 'LocalOptimizationBegin'),
        "Asterisk optimised the desk context's Local pair out",
      )
      t.match(row, { dial_status: 'Received', hangup_by: 'customer', hangup_cause: '16 Normal Clearing' })
    },
  )

  t.test(
    'a FreePBX-style desk that dials the phone itself: busy is Not Connected, answered is Received',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: { AGENT_CHANNEL_TEMPLATE: 'Local/{extension}@fpbx-desk' },
      })
      await agent(r, '1021')
      await r.push(lead('P-FPBX-B', '5550002021'))
      t.match(await settled(r, 'P-FPBX-B'), { dial_status: 'Not Connected', last_dial_result: 'BUSY' })
      await r.push(lead('P-FPBX-A', '5550001021'))
      t.match(await settled(r, 'P-FPBX-A'), { dial_status: 'Received', last_dial_result: 'ANSWER' })
    },
  )

  t.test('a due callback is dialed and reaches the customer: Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk)
    await agent(r, '1001')
    await r.push(
      lead('P-CB', '5550001002', { priority_id: 2, callback_scheduled_at: '2020-01-01T10:00:00Z' }),
    )
    t.match(await settled(r, 'P-CB'), { dial_status: 'Received', call_count: 1 })
  })
})
