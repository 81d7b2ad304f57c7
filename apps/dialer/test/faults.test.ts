import { forEachDialect, unlessAlreadyGone } from '@hold-dialer/db/testing'
import { startPbxSim } from '@hold-dialer/pbx-sim'
import { sql } from 'kysely'
import t from 'tap'
import { childDialer, simTarget } from './child-dialer.js'
import { harness, lead } from './harness.js'

const LONG_CALL = { kind: 'answer', ringSeconds: 1, talkSeconds: 150 } as const

forEachDialect(t, async (t, database) => {
  t.test('AMI connection dropped mid-call: the call is followed again and settled once', async (t) => {
    const h = await harness(t, database)
    await h.addAgent('4001')
    h.sim.setOutcome('5553000001', LONG_CALL)
    await h.push(lead('FA-1', '5553000001'))
    await h.until('customer answered', () =>
      h.sim.calls.some((c) => c.number === '5553000001' && c.answeredAt !== null),
    )
    h.sim.dropConnections()
    await h.until('Received', async () => (await h.lead('FA-1'))?.dial_status === 'Received')
    t.match(await h.lead('FA-1'), { call_count: 1, isReserved: 0 })
    t.equal((await h.attempts('FA-1')).length, 1)
    t.equal(h.sim.originateCount(), 1, 'never dialed twice')
  })

  t.test(
    'PBX restarted mid-call: the vanished call is settled from what was known, nothing stays reserved',
    async (t) => {
      const h = await harness(t, database)
      await h.addAgent('4002')
      h.sim.setOutcome('5553000002', LONG_CALL)
      await h.push(lead('FA-2', '5553000002'))
      await h.until('customer answered', () =>
        h.sim.calls.some((c) => c.number === '5553000002' && c.answeredAt !== null),
      )
      const port = h.sim.port
      await h.sim.close()
      const again = await startPbxSim({
        port,
        users: { dialer: 'dialer-pass' },
        agentExtensions: ['4002'],
        timeScale: 50,
      })
      t.teardown(() => again.close())
      await h.until('settled', async () => (await h.lead('FA-2'))?.isReserved === 0)
      t.match(await h.lead('FA-2'), { dial_status: 'Received', call_count: 1 })
      t.equal((await h.attempts('FA-2')).length, 1)
      t.equal(again.originateCount(), 0, 'not dialed again after the restart')
    },
  )

  t.test(
    'dialer killed with SIGKILL mid-call and restarted: it follows the live call and settles it once',
    async (t) => {
      const h = await harness(t, database, { startDialer: false })
      await h.addAgent('4003')
      // The customer talks until the test hangs up (below), after the new process has adopted the call:
      // a fixed talk time would end the call before a slow start on a loaded machine.
      h.sim.setOutcome('5553000003', { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 })
      const child = childDialer(t, simTarget(h), database, 'crash-test')
      await child.ready()
      await h.push(lead('FA-3', '5553000003'))
      await h.until(
        'answered',
        () => h.sim.calls.some((c) => c.number === '5553000003' && c.answeredAt !== null),
        20_000,
      )
      // The claim opened the call's attempt row; the answer is noted on it.
      await h.until('the answer noted on the open attempt row', async () =>
        (await h.attempts('FA-3')).some((a) => a.outcome === 'Dialing' && a.answered_at !== null),
      )
      const open = (await h.attempts('FA-3'))[0]
      await child.kill()
      t.match(
        await h.lead('FA-3'),
        { dial_status: 'Calling', isReserved: 1, reserved_by: 'crash-test' },
        'left reserved by the dead process',
      )
      await child.restart()
      await child.ready()
      await h.until('the new process follows the call', () =>
        child.output().includes('a call of a previous run is still live'),
      )
      const customer = h.sim.channels().find((c) => c.number === '5553000003' && c.role === 'customer')
      t.ok(customer && h.sim.hangupChannel(customer.name), 'the customer hangs up')
      await h.until(
        'Received after the call ends',
        async () => (await h.lead('FA-3'))?.dial_status === 'Received',
      )
      t.match(await h.lead('FA-3'), { call_count: 1, isReserved: 0, reserved_by: null })
      const attempts = await h.attempts('FA-3')
      t.equal(attempts.length, 1)
      t.match(
        attempts[0],
        { outcome: 'Received', started_at: open?.started_at, answered_at: open?.answered_at },
        'the adopted call keeps its real start and answer',
      )
      t.equal(h.sim.originateCount(), 1, 'never dialed twice')
      t.equal(h.sim.maxConcurrentCallsTo('5553000003'), 1)
      await child.stop()
    },
  )

  t.test(
    'a dialer that died leaving a reservation with no live call: released on its restart, call_count unchanged',
    async (t) => {
      const h = await harness(t, database, { startDialer: false })
      await h.push(lead('FA-4', '5553000004'))
      await database.handle.kysely
        .updateTable('hold_dialer_master_data')
        .set({
          dial_status: 'Calling',
          previous_status: 'Pending',
          isReserved: 1,
          reserved_by: 'dialer-test',
          reserved_at: '2026-11-22 00:00:00.000',
        })
        .where('oli_id', '=', 'FA-4')
        .execute()
      await h.startDialer()
      await h.until('released', async () => (await h.lead('FA-4'))?.isReserved === 0)
      t.match(await h.lead('FA-4'), { call_count: 0, reserved_by: null })
    },
  )

  t.test("another dialer's expired reservation is released by whoever sees it", async (t) => {
    const h = await harness(t, database, { env: { RESERVATION_TIMEOUT_SECONDS: '60' }, startDialer: false })
    await h.push(lead('FA-5', '5553000005', { priority_id: 3 }))
    await database.handle.kysely
      .updateTable('hold_dialer_master_data')
      .set({
        dial_status: 'Calling',
        previous_status: 'Not Connected',
        isReserved: 1,
        reserved_by: 'dead-dialer',
        reserved_at: '2020-01-01 00:00:00.000',
        call_count: 2,
      })
      .where('oli_id', '=', 'FA-5')
      .execute()
    await h.startDialer()
    await h.until('released', async () => (await h.lead('FA-5'))?.isReserved === 0)
    t.match(await h.lead('FA-5'), {
      dial_status: 'Not Connected',
      call_count: 2,
      reserved_by: null,
      previous_status: null,
    })
  })

  t.test('a result that cannot be written (a table gone) is kept and written when it is back', async (t) => {
    const h = await harness(t, database)
    await h.addAgent('4006')
    h.sim.setOutcome('5553000006', { kind: 'answer', ringSeconds: 1, talkSeconds: 50 })
    await h.push(lead('FA-6', '5553000006'))
    await h.until('answered', () =>
      h.sim.calls.some((c) => c.number === '5553000006' && c.answeredAt !== null),
    )
    const db = database.handle.kysely
    await sql`ALTER TABLE hold_dialer_call_attempts RENAME TO hold_dialer_call_attempts_away`.execute(db)
    await h.until('settle failed at least once', () => h.dialer.stats.settleErrors > 0)
    t.match(await h.lead('FA-6'), { dial_status: 'Calling', isReserved: 1 }, 'nothing half-written')
    await sql`ALTER TABLE hold_dialer_call_attempts_away RENAME TO hold_dialer_call_attempts`.execute(db)
    await h.until('Received', async () => (await h.lead('FA-6'))?.dial_status === 'Received')
    t.match(await h.lead('FA-6'), { call_count: 1, isReserved: 0 })
    t.equal((await h.attempts('FA-6')).length, 1)
  })

  if (database.dialect === 'mysql') {
    t.test(
      'every pooled MySQL connection cut mid-call (a server restart seen from the client)',
      async (t) => {
        const h = await harness(t, database)
        await h.addAgent('4007')
        h.sim.setOutcome('5553000007', { kind: 'answer', ringSeconds: 1, talkSeconds: 50 })
        await h.push(lead('FA-7', '5553000007'))
        await h.until('answered', () =>
          h.sim.calls.some((c) => c.number === '5553000007' && c.answeredAt !== null),
        )
        const { rows } = await sql<{
          id: number
        }>`SELECT id FROM information_schema.PROCESSLIST WHERE db = DATABASE() AND id <> CONNECTION_ID()`.execute(
          database.handle.kysely,
        )
        t.ok(rows.length > 0)
        for (const r of rows)
          await sql`KILL ${sql.raw(String(r.id))}`.execute(database.handle.kysely).catch(unlessAlreadyGone)
        await h.until('Received', async () => (await h.lead('FA-7'))?.dial_status === 'Received')
        t.match(await h.lead('FA-7'), { call_count: 1, isReserved: 0 })
        t.equal((await h.attempts('FA-7')).length, 1)
      },
    )
  }

  t.test(
    'a call whose final events never come is settled by the call timeout and its legs hung up',
    async (t) => {
      const h = await harness(t, database, { env: { CALL_TIMEOUT_SECONDS: '2', RING_TIMEOUT_SECONDS: '3' } })
      await h.addAgent('4008')
      h.sim.setOutcome('5553000008', { kind: 'answer', ringSeconds: 1, talkSeconds: 2000 })
      await h.push(lead('FA-8', '5553000008'))
      await h.until('answered', () =>
        h.sim.calls.some((c) => c.number === '5553000008' && c.answeredAt !== null),
      )
      h.sim.silenceEvents(true)
      await h.until('settled by timeout', async () => (await h.lead('FA-8'))?.isReserved === 0)
      h.sim.silenceEvents(false)
      t.match(await h.lead('FA-8'), { dial_status: 'Received', call_count: 1 })
      t.match((await h.attempts('FA-8'))[0]?.outcome, 'Received')
      await h.until('legs hung up', () => h.sim.activeCallsTo('5553000008') === 0)
    },
  )
})
