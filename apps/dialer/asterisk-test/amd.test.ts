import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// Answering machine detection on a real Asterisk 22: the shipped dialer-hold runs AMD() on the
// answered customer (the test bed's customers greet with Playtones: a short burst then silence is a
// person, a long tone a machine, no audio at all runs out of analysis time: NOTSURE), and its verdict
// reaches the dialer as the dialplan's UserEvent.
const AMD = { DIAL_MODE: 'predictive', AMD: 'predictive', HOLD_TIMEOUT_SECONDS: '10' }
const asterisk = await startAsterisk(t)

const rungDesk = (from: number) =>
  asterisk.events
    .slice(from)
    .some((e) => e.event === 'DialBegin' && String(e.destchannel ?? '').startsWith('Local/1001@agents'))

forEachDialect(t, async (t, database) => {
  t.test(
    'a person (HUMAN): sent to the agent after the verdict, Received, HUMAN on the attempt',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: AMD })
      const agentId = await agent(r, '1001')
      const from = asterisk.events.length
      await r.push(lead('AMD-HUMAN', '5550012001'))
      const row = await settled(r, 'AMD-HUMAN')
      t.match(row, { dial_status: 'Received', call_count: 1 })
      const [attempt] = await r.attempts('AMD-HUMAN')
      t.match(attempt, { outcome: 'Received', agent_id: agentId, amd_status: 'HUMAN', amd_cause: /^HUMAN-/ })
      // 0.5 s of "hello" and 0.8 s of silence before AMD() says HUMAN.
      t.ok(Number(attempt?.amd_ms) >= 1000, `detection took ${attempt?.amd_ms} ms`)
      const verdict = asterisk.events
        .slice(from)
        .findIndex((e) => e.event === 'UserEvent' && e.userevent === 'HoldDialerAmd')
      const ring = asterisk.events
        .slice(from)
        .findIndex(
          (e) => e.event === 'DialBegin' && String(e.destchannel ?? '').startsWith('Local/1001@agents'),
        )
      t.ok(verdict >= 0 && ring > verdict, 'the desk was rung only after the verdict')
    },
  )

  t.test(
    'a machine: hung up by the dialplan, never reaches an agent, Not Connected with its retry',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: { ...AMD, AMD_RETRY_SECONDS: '1800' } })
      await agent(r, '1001')
      const machinesBefore = await machines()
      const from = asterisk.events.length
      await r.push(lead('AMD-MACHINE', '5550013001'))
      const row = await settled(r, 'AMD-MACHINE')
      t.match(row, { dial_status: 'Not Connected', call_count: 1, hangup_by: 'system' })
      const gap =
        new Date(`${String(row.next_retry_at)}Z`).getTime() -
        new Date(`${String(row.last_attempt_at)}Z`).getTime()
      t.ok(gap >= 1_799_000 && gap <= 1_860_000, `retried AMD_RETRY_SECONDS after the attempt (${gap} ms)`)
      const [attempt] = await r.attempts('AMD-MACHINE')
      t.match(attempt, {
        outcome: 'Machine',
        agent_id: null,
        amd_status: 'MACHINE',
        amd_cause: 'LONGGREETING-1500-1500',
      })
      t.ok(Number(attempt?.amd_ms) >= 1500, `detection took ${attempt?.amd_ms} ms`)
      t.notOk(rungDesk(from), "the agent's desk was never rung")
      t.equal((await machines()) - machinesBefore, 1, 'counted as a machine in the abandon-rate window')
    },
  )

  t.test('NOTSURE (no audio until AMD_TOTAL_ANALYSIS_MS) is handled as a person: Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: { ...AMD, AMD_TOTAL_ANALYSIS_MS: '2000' } })
    const agentId = await agent(r, '1001')
    await r.push(lead('AMD-NOTSURE', '5550014001'))
    t.match(await settled(r, 'AMD-NOTSURE'), { dial_status: 'Received', call_count: 1 })
    t.match((await r.attempts('AMD-NOTSURE'))[0], {
      outcome: 'Received',
      agent_id: agentId,
      amd_status: 'NOTSURE',
      amd_cause: /^TOOLONG-/,
    })
  })

  t.test('record-only: a machine goes to the agent anyway, MACHINE written on the attempt', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: { ...AMD, AMD_RECORD_ONLY: 'true' } })
    const agentId = await agent(r, '1001')
    await r.push(lead('AMD-RECORD', '5550013002'))
    t.match(await settled(r, 'AMD-RECORD'), { dial_status: 'Received', call_count: 1 })
    t.match((await r.attempts('AMD-RECORD'))[0], {
      outcome: 'Received',
      agent_id: agentId,
      amd_status: 'MACHINE',
    })
  })

  const PROGRESSIVE = { DIAL_MODE: 'progressive', AMD: 'progressive' }

  t.test('progressive, a person: connected to the desk after the verdict, Received, HUMAN', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: PROGRESSIVE })
    const agentId = await agent(r, '1001')
    const from = asterisk.events.length
    await r.push(lead('AMD-P-HUMAN', '5550012002'))
    t.match(await settled(r, 'AMD-P-HUMAN'), { dial_status: 'Received', call_count: 1 })
    const [attempt] = await r.attempts('AMD-P-HUMAN')
    t.match(attempt, {
      outcome: 'Received',
      agent_id: agentId,
      dial_mode: 'progressive',
      amd_status: 'HUMAN',
    })
    t.ok(Number(attempt?.amd_ms) >= 1000, `detection took ${attempt?.amd_ms} ms`)
    const events = asterisk.events.slice(from)
    const verdict = events.findIndex((e) => e.event === 'UserEvent' && e.userevent === 'HoldDialerAmd')
    const bridged = events.findIndex(
      (e) => e.event === 'BridgeEnter' && String(e.channel ?? '').includes('5550012002@customers'),
    )
    t.ok(verdict >= 0 && bridged > verdict, 'the customer was bridged to the desk only after the verdict')
  })

  t.test(
    'progressive, a machine: hung up before the desk is connected, Not Connected, Machine',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: PROGRESSIVE })
      const agentId = await agent(r, '1001')
      const from = asterisk.events.length
      await r.push(lead('AMD-P-MACHINE', '5550013006'))
      t.match(await settled(r, 'AMD-P-MACHINE'), {
        dial_status: 'Not Connected',
        call_count: 1,
        hangup_by: 'system',
      })
      t.match((await r.attempts('AMD-P-MACHINE'))[0], {
        outcome: 'Machine',
        amd_status: 'MACHINE',
        ami_dial_status: 'CONTINUE',
      })
      t.ok(
        asterisk.events.slice(from).some((e) => String(e.channel ?? '').includes('5550013006@customers')),
        'the customer was dialed',
      )
      t.notOk(
        asterisk.events
          .slice(from)
          .some((e) => e.event === 'BridgeEnter' && String(e.channel ?? '').includes('5550013006@customers')),
        'the machine was never bridged to the desk',
      )
      const desk = await database.handle.kysely
        .selectFrom('dialer_employee')
        .select(['wrap_until', 'on_call_by'])
        .where('id', '=', agentId)
        .executeTakeFirstOrThrow()
      t.match(desk, { wrap_until: null, on_call_by: null }, 'the agent is free at once')
    },
  )

  t.test('progressive, NOTSURE is handled as a person: Received', async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: { ...PROGRESSIVE, AMD_TOTAL_ANALYSIS_MS: '2000' },
    })
    const agentId = await agent(r, '1001')
    await r.push(lead('AMD-P-NOTSURE', '5550014002'))
    t.match(await settled(r, 'AMD-P-NOTSURE'), { dial_status: 'Received', call_count: 1 })
    t.match((await r.attempts('AMD-P-NOTSURE'))[0], {
      outcome: 'Received',
      agent_id: agentId,
      amd_status: 'NOTSURE',
    })
  })

  async function machines(): Promise<number> {
    const row = await database.handle.kysely
      .selectFrom('hold_dialer_abandon_stats')
      .select((eb) => eb.fn.sum<number>('machines').as('machines'))
      .executeTakeFirst()
    return Number(row?.machines ?? 0)
  }
})
