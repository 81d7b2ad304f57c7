import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { AFTER_HOURS, apiFixture, lead, masterRow } from './fixture.js'

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const db = database.handle.kysely

  t.test('new oli_id: 201, inserted, Pending with the push reset', async (t) => {
    const body = lead({ oli_id: 'P-1' })
    const res = await fx.push(body)
    t.equal(res.statusCode, 201)
    t.same(res.json(), {
      ok: true,
      leads: [{ oli_id: 'P-1', status: 'inserted', callback_scheduled_at: null }],
    })
    const row = await masterRow(fx, 'P-1')
    t.match(row, {
      oli_id: 'P-1',
      phone_number: '919876543210',
      client_name: body.client_name,
      form_type: 'hold',
      priority_id: 1,
      agent_id: null,
      dial_status: 'Pending',
      last_dial_result: null,
      hangup_by: null,
      hangup_cause: null,
      last_attempt_at: null,
      first_attempt_at: null,
      next_retry_at: null,
      callback_scheduled_at: null,
      call_count: 0,
      isReserved: 0,
      isRnrSent: 0,
      status: 1,
      push_date: '2026-11-23 06:00:00.000',
    })
  })

  t.test('existing oli_id: updated, contact fields and priority refreshed, dial state reset', async (t) => {
    await fx.push(lead({ oli_id: 'P-2' }))
    await db
      .updateTable('hold_dialer_master_data')
      .set({
        dial_status: 'Not Connected',
        last_dial_result: 'NOANSWER',
        hangup_by: 'customer',
        hangup_cause: '19',
        last_attempt_at: '2026-11-22 10:00:00.000',
        first_attempt_at: '2026-11-22 09:00:00.000',
        next_retry_at: '2026-11-22 12:00:00.000',
        call_count: 3,
        isRnrSent: 1,
        status: 0,
      })
      .where('oli_id', '=', 'P-2')
      .execute()
    fx.clock.set('2026-11-23T07:00:00.000Z')
    const res = await fx.push(
      lead({ oli_id: 'P-2', client_name: 'Renamed', phone_number: '0044 20 7946 0018', priority_id: 8 }),
    )
    t.equal(res.json().leads[0].status, 'updated')
    t.match(await masterRow(fx, 'P-2'), {
      client_name: 'Renamed',
      phone_number: '00442079460018',
      priority_id: 8,
      dial_status: 'Pending',
      last_dial_result: null,
      hangup_by: null,
      hangup_cause: null,
      last_attempt_at: null,
      first_attempt_at: null,
      next_retry_at: null,
      call_count: 0,
      isReserved: 0,
      isRnrSent: 0,
      status: 1,
      push_date: '2026-11-23 07:00:00.000',
    })
    fx.clock.set('2026-11-23T06:00:00.000Z')
  })

  t.test('outside working hours next_retry_at is the next WORK_START', async (t) => {
    fx.clock.set(AFTER_HOURS)
    await fx.push(lead({ oli_id: 'P-3' }))
    // 19:30 IST -> next day 09:00 IST = 03:30 UTC
    t.equal((await masterRow(fx, 'P-3'))?.next_retry_at, '2026-11-24 03:30:00.000')
    fx.clock.set('2026-11-23T06:00:00.000Z')
  })

  t.test(
    'callback time on a callback priority: Callback, next_retry_at NULL, raw value echoed',
    async (t) => {
      fx.clock.set(AFTER_HOURS)
      const res = await fx.push(
        lead({ oli_id: 'P-4', priority_id: 2, callback_scheduled_at: '2026-11-24 10:15:00' }),
      )
      t.same(res.json().leads[0], {
        oli_id: 'P-4',
        status: 'inserted',
        callback_scheduled_at: '2026-11-24 10:15:00',
      })
      t.match(await masterRow(fx, 'P-4'), {
        dial_status: 'Callback',
        callback_scheduled_at: '2026-11-24 04:45:00.000',
        next_retry_at: null,
      })
      fx.clock.set('2026-11-23T06:00:00.000Z')
    },
  )

  t.test('a push without a callback time clears an earlier one', async (t) => {
    await fx.push(lead({ oli_id: 'P-5', priority_id: 2, callback_scheduled_at: '2026-11-24T10:15:00+05:30' }))
    await fx.push(lead({ oli_id: 'P-5', priority_id: 2 }))
    t.match(await masterRow(fx, 'P-5'), { dial_status: 'Pending', callback_scheduled_at: null })
  })

  t.test('batch: one entry per lead in request order, /api/master is the same handler', async (t) => {
    await fx.push(lead({ oli_id: 'B-2' }))
    const res = await fx.call({
      method: 'POST',
      url: '/api/master',
      payload: { leads: [lead({ oli_id: 'B-3' }), lead({ oli_id: 'B-2' }), lead({ oli_id: 'B-1' })] },
    })
    t.equal(res.statusCode, 201)
    t.same(
      res.json().leads.map((l: { oli_id: string; status: string }) => [l.oli_id, l.status]),
      [
        ['B-3', 'inserted'],
        ['B-2', 'updated'],
        ['B-1', 'inserted'],
      ],
    )
  })

  t.test(
    'a live (Calling + reserved) row is skipped_in_flight and left byte-for-byte unchanged',
    async (t) => {
      await fx.push(lead({ oli_id: 'L-1' }))
      await db
        .updateTable('hold_dialer_master_data')
        .set({
          dial_status: 'Calling',
          isReserved: 1,
          reserved_by: 'dialer-a',
          reserved_at: '2026-11-23 05:59:00.000',
          call_count: 1,
        })
        .where('oli_id', '=', 'L-1')
        .execute()
      const before = await masterRow(fx, 'L-1')
      fx.clock.set('2026-11-23T06:30:00.000Z')
      const res = await fx.push({
        leads: [lead({ oli_id: 'L-1', client_name: 'Changed' }), lead({ oli_id: 'L-2' })],
      })
      t.same(
        res.json().leads.map((l: { status: string }) => l.status),
        ['skipped_in_flight', 'inserted'],
      )
      t.same(await masterRow(fx, 'L-1'), before)
      fx.clock.set('2026-11-23T06:00:00.000Z')
    },
  )

  t.test('Calling but not reserved is not live: it is updated', async (t) => {
    await fx.push(lead({ oli_id: 'L-3' }))
    await db
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Calling', isReserved: 0 })
      .where('oli_id', '=', 'L-3')
      .execute()
    const res = await fx.push(lead({ oli_id: 'L-3' }))
    t.equal(res.json().leads[0].status, 'updated')
    t.equal((await masterRow(fx, 'L-3'))?.dial_status, 'Pending')
  })

  t.test('JSON is parsed whatever the Content-Type says', async (t) => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
    ]) {
      const res = await fx.call({
        method: 'POST',
        url: '/api/leads',
        headers: { 'content-type': type },
        payload: JSON.stringify(lead()),
      })
      t.equal(res.statusCode, 201, type)
    }
    const none = await fx.call({
      method: 'POST',
      url: '/api/leads',
      payload: Buffer.from(JSON.stringify(lead())),
    })
    t.equal(none.statusCode, 201, 'no content-type')
  })
})
