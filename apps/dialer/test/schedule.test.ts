import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { harness, lead } from './harness.js'

const HOURS = { WORK_START: '09:00', WORK_END: '18:00' }

forEachDialect(t, async (t, database) => {
  t.test(
    'outside working hours: Pending waits, a due callback is dialed after WORK_END, a future one waits unreserved',
    async (t) => {
      const h = await harness(t, database, { env: HOURS, now: '2026-11-23T20:00:00.000Z' })
      await h.addAgent('2001')
      await h.push(lead('W-PENDING', '5551000001'))
      await h.push(
        lead('W-DUE', '5551000002', { priority_id: 2, callback_scheduled_at: '2026-11-23T19:30:00Z' }),
      )
      await h.push(
        lead('W-FUTURE', '5551000003', { priority_id: 2, callback_scheduled_at: '2026-11-23T21:00:00Z' }),
      )
      await h.until(
        'the due callback is dialed',
        async () => (await h.lead('W-DUE'))?.dial_status === 'Received',
      )
      await h.dialer.claimRounds()
      t.match(await h.lead('W-PENDING'), { dial_status: 'Pending', isReserved: 0, call_count: 0 })
      t.match(await h.lead('W-FUTURE'), { dial_status: 'Callback', isReserved: 0, call_count: 0 })
      t.equal(h.sim.originateCount(), 1, 'only the due callback was originated')
      await h.setClock('2026-11-23T21:00:01.000Z')
      await h.until(
        'the callback is dialed once due',
        async () => (await h.lead('W-FUTURE'))?.dial_status === 'Received',
      )
      t.match(await h.lead('W-PENDING'), { dial_status: 'Pending' })
      await h.setClock('2026-11-24T09:00:00.000Z')
      await h.until(
        'Pending dialed at WORK_START',
        async () => (await h.lead('W-PENDING'))?.dial_status === 'Received',
      )
    },
  )

  t.test(
    'a due callback that is Not Connected resumes the retry schedule inside working hours',
    async (t) => {
      const h = await harness(t, database, { env: HOURS, now: '2026-11-23T19:00:00.000Z' })
      await h.addAgent('2002')
      h.sim.setOutcome('5551000004', { kind: 'noanswer', ringSeconds: 2 })
      await h.push(
        lead('W-CB', '5551000004', { priority_id: 2, callback_scheduled_at: '2026-11-23 18:30:00' }),
      )
      await h.until('Not Connected', async () => (await h.lead('W-CB'))?.dial_status === 'Not Connected')
      const row = await h.lead('W-CB')
      t.match(row, { callback_scheduled_at: null, call_count: 1 })
      // Settled at 19:00 after WORK_END: the next slot is the next day's WORK_START.
      t.equal(row?.next_retry_at, '2026-11-24 09:00:00.000')
    },
  )

  t.test('pool mode: max_tries reached moves the lead to hold_dialer_disposed as Archived', async (t) => {
    const h = await harness(t, database, {
      env: { RETRY_PATTERN: '[2]', MAX_TRIES: '2', RETRY_SECONDS: '0' },
    })
    await h.addAgent('2003')
    h.sim.setOutcome('5551000005', { kind: 'busy' })
    await h.push(lead('M-1', '5551000005'))
    await h.until('archived', async () => (await h.lead('M-1')) === undefined)
    const disposed = await database.handle.kysely
      .selectFrom('hold_dialer_disposed')
      .selectAll()
      .where('oli_id', '=', 'M-1')
      .execute()
    t.equal(disposed.length, 1)
    t.match(disposed[0], {
      dial_status: 'Archived',
      disposed_reason: 'max_tries',
      call_count: 2,
      isReserved: 0,
    })
    t.equal((await h.attempts('M-1')).length, 2)
  })

  t.test('priority 3 is never dialed; Received and Rejected are not claimed again', async (t) => {
    const h = await harness(t, database)
    await h.addAgent('2004')
    await h.push(lead('N-3', '5551000006', { priority_id: 3 }))
    h.sim.setOutcome('5551000007', { kind: 'reject' })
    await h.push(lead('N-R', '5551000007'))
    await h.push(lead('N-OK', '5551000008'))
    await h.until(
      'settled',
      async () =>
        (await h.lead('N-OK'))?.dial_status === 'Received' &&
        (await h.lead('N-R'))?.dial_status === 'Rejected',
    )
    await h.dialer.claimRounds()
    t.match(await h.lead('N-3'), { dial_status: 'Pending', isReserved: 0, call_count: 0 })
    t.equal(h.sim.originateCount(), 2)
  })

  t.test('claim order: due callbacks first, then due retries, then Pending by push_date', async (t) => {
    const h = await harness(t, database, { startDialer: false })
    await h.addAgent('2005')
    await h.push(lead('O-PENDING', '5551000010'))
    await h.push(
      lead('O-CALLBACK', '5551000011', { priority_id: 2, callback_scheduled_at: '2020-01-01T00:00:00Z' }),
    )
    await h.push(lead('O-RETRY', '5551000012'))
    await database.handle.kysely
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Not Connected', next_retry_at: '2020-01-01 00:00:00.000', call_count: 1 })
      .where('oli_id', '=', 'O-RETRY')
      .execute()
    await h.startDialer()
    await h.until('all three dialed', async () => h.dialer.stats.settled >= 3)
    const order = await database.handle.kysely
      .selectFrom('hold_dialer_call_attempts')
      .select('oli_id')
      .where('oli_id', 'like', 'O-%')
      .orderBy('id')
      .execute()
    t.same(
      order.map((r) => r.oli_id),
      ['O-CALLBACK', 'O-RETRY', 'O-PENDING'],
    )
  })
})
