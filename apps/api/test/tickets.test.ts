import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

/** A used dial state on a row, so that every column the reset writes visibly changes. */
async function dirty(fx: ApiFixture, oliId: string): Promise<void> {
  await fx.database.handle.kysely
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: 'Not Connected',
      last_dial_result: 'NOANSWER',
      hangup_by: 'customer',
      hangup_cause: '19',
      last_attempt_at: '2026-11-22 10:00:00.000',
      first_attempt_at: '2026-11-22 09:00:00.000',
      next_retry_at: '2026-11-23 12:00:00.000',
      callback_scheduled_at: '2026-11-21 08:00:00.000',
      call_count: 3,
      // Reserved but not Calling: not live, so the write goes ahead and must clear the flag.
      isReserved: 1,
      isRnrSent: 1,
      reserved_by: 'dialer-a',
      reserved_at: '2026-11-22 10:00:00.000',
      previous_status: 'Pending',
    })
    .where('oli_id', '=', oliId)
    .execute()
}

/** What a dialer holding the row on a call leaves in it. */
async function makeLive(fx: ApiFixture, oliId: string): Promise<void> {
  await fx.database.handle.kysely
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: 'Calling',
      isReserved: 1,
      reserved_by: 'dialer-a',
      reserved_at: '2026-11-23 05:59:00.000',
      previous_status: 'Pending',
      call_count: 1,
      last_attempt_at: '2026-11-23 05:59:00.000',
    })
    .where('oli_id', '=', oliId)
    .execute()
}

async function disposedRows(fx: ApiFixture, oliId: string) {
  return fx.database.handle.kysely
    .selectFrom('hold_dialer_disposed')
    .selectAll()
    .where('oli_id', '=', oliId)
    .orderBy('id')
    .execute()
}

/** The reset columns of Callback Schedule / send-callback-request (spec, Dial-state reset). */
const CALLBACK_RESET = {
  dial_status: 'Callback',
  last_dial_result: null,
  hangup_by: null,
  hangup_cause: null,
  last_attempt_at: null,
  first_attempt_at: null,
  next_retry_at: null,
  call_count: 0,
  isReserved: 0,
  isRnrSent: 0,
  reserved_by: null,
  reserved_at: null,
  previous_status: null,
}

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const ticket = (payload: Record<string, unknown>) =>
    fx.call({ method: 'PUT', url: '/api/escalated-tickets', payload })

  /** Pushes a priority-8 lead and gives it a used dial state. */
  async function escalated(oliId: string, overrides: Record<string, unknown> = {}) {
    const res = await fx.push(lead({ oli_id: oliId, priority_id: 8, ...overrides }))
    if (res.statusCode !== 201) throw new Error(`push of ${oliId} failed: ${res.body}`)
    await dirty(fx, oliId)
    return (await masterRow(fx, oliId))!
  }

  t.test('Close: 200, row gone from master, archived copy with the Close reset applied first', async (t) => {
    const before = await escalated('T-CLOSE-1', { client_name: 'Asha Rao', form_type: 'renewal' })
    fx.clock.set('2026-11-23T06:30:00.000Z')
    const res = await ticket({ oliId: 'T-CLOSE-1', status: 'Close' })
    t.equal(res.statusCode, 200)
    t.strictSame(res.json(), { ok: true, lead: { oli_id: 'T-CLOSE-1', dial_status: 'Disposed' } })
    t.equal(await masterRow(fx, 'T-CLOSE-1'), undefined, 'deleted from master')

    const archived = await disposedRows(fx, 'T-CLOSE-1')
    t.equal(archived.length, 1, 'exactly one archived copy')
    // The claim token fences a reservation's writes; an archived copy has none to fence.
    const { id: masterId, claim_token: _token, ...kept } = before
    const { id: _archiveId, master_id, disposed_at, disposed_reason, ...copy } = archived[0]!
    t.equal(Number(master_id), Number(masterId), 'master_id is the master row id')
    t.equal(disposed_reason, 'ticket_close')
    t.equal(disposed_at, '2026-11-23 06:30:00.000', 'disposed_at is now (UTC)')
    t.strictSame(
      copy,
      {
        ...kept,
        dial_status: 'Disposed',
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
        reserved_by: null,
        reserved_at: null,
        previous_status: null,
      },
      'a copy of the master row after the Close reset; contact fields, priority and push data kept',
    )
    t.match(copy, {
      oli_id: 'T-CLOSE-1',
      client_name: 'Asha Rao',
      form_type: 'renewal',
      phone_number: '919876543210',
      priority_id: 8,
    })
    fx.clock.set('2026-11-23T06:00:00.000Z')
  })

  t.test(
    'Callback Schedule: 200 with local time, Callback at the UTC instant, priority 8 kept',
    async (t) => {
      const before = await escalated('T-CB-1')
      const res = await ticket({
        oliId: 'T-CB-1',
        status: 'Callback Schedule',
        scheduledAt: '2026-11-24 10:15:00',
      })
      t.equal(res.statusCode, 200)
      t.strictSame(res.json(), {
        ok: true,
        lead: { oli_id: 'T-CB-1', dial_status: 'Callback', callback_scheduled_at: '2026-11-24 10:15:00' },
      })
      const after = await masterRow(fx, 'T-CB-1')
      t.strictSame(
        after,
        { ...before, ...CALLBACK_RESET, callback_scheduled_at: '2026-11-24 04:45:00.000', priority_id: 8 },
        'reset applied, 10:15 IST stored as 04:45 UTC, everything else unchanged',
      )
      t.equal((await disposedRows(fx, 'T-CB-1')).length, 0, 'nothing archived')
    },
  )

  t.test('Callback Schedule with an offset: stored at that instant, answered in TIMEZONE', async (t) => {
    await escalated('T-CB-2')
    const res = await ticket({
      oliId: 'T-CB-2',
      status: 'Callback Schedule',
      scheduledAt: '2026-11-24T10:15:00Z',
    })
    t.equal(res.statusCode, 200)
    t.equal(res.json().lead.callback_scheduled_at, '2026-11-24 15:45:00', '10:15 UTC is 15:45 IST')
    t.equal((await masterRow(fx, 'T-CB-2'))?.callback_scheduled_at, '2026-11-24 10:15:00.000')
  })

  t.test('status is matched ignoring case and white space', async (t) => {
    let n = 0
    for (const status of ['close', ' CLOSE ', 'cLoSe', '\tClose\n']) {
      const oliId = `T-ST-${++n}`
      await escalated(oliId)
      const res = await ticket({ oliId, status })
      t.equal(res.statusCode, 200, JSON.stringify(status))
      t.equal(res.json().lead?.dial_status, 'Disposed', JSON.stringify(status))
      t.equal(await masterRow(fx, oliId), undefined, `${JSON.stringify(status)} closed the row`)
    }
    for (const status of [
      'callback schedule',
      'CallbackSchedule',
      'Callback  Schedule',
      ' CALLBACK SCHEDULE ',
    ]) {
      const oliId = `T-ST-${++n}`
      await escalated(oliId)
      const res = await ticket({ oliId, status, scheduledAt: '2026-11-24 10:15:00' })
      t.equal(res.statusCode, 200, JSON.stringify(status))
      t.equal(res.json().lead?.dial_status, 'Callback', JSON.stringify(status))
      t.equal((await masterRow(fx, oliId))?.dial_status, 'Callback', JSON.stringify(status))
    }
  })

  t.test('any other status is a 400 on field status and the row is unchanged', async (t) => {
    const before = await escalated('T-BAD-STATUS')
    for (const status of ['', 'Closed', 'Callback-Schedule', 'Callback Scheduled', 'Disposed', 'Cl ose x']) {
      const res = await ticket({ oliId: 'T-BAD-STATUS', status, scheduledAt: '2026-11-24 10:15:00' })
      t.equal(res.statusCode, 400, JSON.stringify(status))
      t.equal(res.json().error, 'validation_failed')
      t.ok(
        res.json().details.some((d: { field: string }) => d.field === 'status'),
        `${JSON.stringify(status)} reported on status`,
      )
    }
    t.strictSame(await masterRow(fx, 'T-BAD-STATUS'), before)
  })

  t.test('Callback Schedule without a valid scheduledAt is a 400 listing scheduledAt', async (t) => {
    const before = await escalated('T-NO-TIME')
    const bodies: Record<string, unknown>[] = [
      { oliId: 'T-NO-TIME', status: 'Callback Schedule' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: null },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: '' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: '   ' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: 'tomorrow at ten' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: '2026-11-24' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: '2026-02-30 10:00:00' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: '2026-11-24 24:00:01' },
      { oliId: 'T-NO-TIME', status: 'Callback Schedule', scheduledAt: 1_795_000_000 },
    ]
    for (const body of bodies) {
      const res = await ticket(body)
      t.equal(res.statusCode, 400, JSON.stringify(body.scheduledAt))
      t.equal(res.json().error, 'validation_failed')
      t.ok(
        res.json().details.some((d: { field: string }) => d.field === 'scheduledAt'),
        `${JSON.stringify(body.scheduledAt)} reported on scheduledAt`,
      )
    }
    t.strictSame(await masterRow(fx, 'T-NO-TIME'), before, 'row unchanged')
  })

  t.test('scheduledAt is ignored on Close, even when it is not a valid time', async (t) => {
    let n = 0
    for (const scheduledAt of ['not a time', '2026-11-24', '2026-11-24 10:15:00', null]) {
      const oliId = `T-CLOSE-IGN-${++n}`
      await escalated(oliId)
      const res = await ticket({ oliId, status: 'Close', scheduledAt })
      t.equal(res.statusCode, 200, JSON.stringify(scheduledAt))
      t.strictSame(res.json(), { ok: true, lead: { oli_id: oliId, dial_status: 'Disposed' } })
      const [archived] = await disposedRows(fx, oliId)
      t.equal(archived?.callback_scheduled_at, null, 'the time is not stored on the archived copy')
      t.equal(archived?.dial_status, 'Disposed')
    }
  })

  t.test('unknown oliId: 404 lead_not_found for both actions', async (t) => {
    for (const body of [
      { oliId: 'T-NOBODY', status: 'Close' },
      { oliId: 'T-NOBODY', status: 'Callback Schedule', scheduledAt: '2026-11-24 10:15:00' },
    ]) {
      const res = await ticket(body)
      t.equal(res.statusCode, 404)
      t.strictSame(res.json(), { ok: false, error: 'lead_not_found' })
    }
    t.equal((await disposedRows(fx, 'T-NOBODY')).length, 0)
  })

  t.test(
    'oliId matches exactly: another case or a trailing space is a different, unknown lead',
    async (t) => {
      const before = await escalated('T-Exact')
      for (const oliId of ['T-EXACT', 't-exact', 'T-Exact ', ' T-Exact']) {
        const res = await ticket({ oliId, status: 'Close' })
        t.equal(res.statusCode, 404, JSON.stringify(oliId))
        t.strictSame(res.json(), { ok: false, error: 'lead_not_found' })
      }
      t.strictSame(await masterRow(fx, 'T-Exact'), before)
    },
  )

  t.test('a row without priority_id 8 is a 400 validation_failed on oliId and unchanged', async (t) => {
    for (const priority of [1, 2, 3]) {
      const oliId = `T-P${priority}`
      await fx.push(lead({ oli_id: oliId, priority_id: priority }))
      await dirty(fx, oliId)
      const before = await masterRow(fx, oliId)
      for (const body of [
        { oliId, status: 'Close' },
        { oliId, status: 'Callback Schedule', scheduledAt: '2026-11-24 10:15:00' },
      ]) {
        const res = await ticket(body)
        t.equal(res.statusCode, 400, `priority ${priority} ${body.status}`)
        t.equal(res.json().error, 'validation_failed')
        t.same(
          res.json().details.map((d: { field: string }) => d.field),
          ['oliId'],
        )
      }
      t.strictSame(await masterRow(fx, oliId), before, `priority ${priority} row unchanged`)
      t.equal((await disposedRows(fx, oliId)).length, 0, 'nothing archived')
    }
  })

  t.test('a live (Calling + reserved) row: 409 lead_in_flight, byte-for-byte unchanged', async (t) => {
    await fx.push(lead({ oli_id: 'T-LIVE', priority_id: 8 }))
    await makeLive(fx, 'T-LIVE')
    const before = await masterRow(fx, 'T-LIVE')
    for (const body of [
      { oliId: 'T-LIVE', status: 'Close' },
      { oliId: 'T-LIVE', status: 'Callback Schedule', scheduledAt: '2026-11-24 10:15:00' },
    ]) {
      const res = await ticket(body)
      t.equal(res.statusCode, 409, body.status)
      t.strictSame(res.json(), { ok: false, error: 'lead_in_flight' })
    }
    t.strictSame(await masterRow(fx, 'T-LIVE'), before)
    t.equal((await disposedRows(fx, 'T-LIVE')).length, 0, 'nothing archived')
  })

  t.test('extra keys are rejected by name and nothing is written', async (t) => {
    const before = await escalated('T-EXTRA')
    for (const body of [
      { oliId: 'T-EXTRA', status: 'Close', reason: 'done' },
      { oliId: 'T-EXTRA', status: 'Close', oli_id: 'T-EXTRA' },
      { oliId: 'T-EXTRA', status: 'Callback Schedule', scheduledAt: '2026-11-24 10:15:00', ScheduledAt: 'x' },
    ]) {
      const res = await ticket(body)
      t.equal(res.statusCode, 400)
      t.equal(res.json().error, 'validation_failed')
      const extra = Object.keys(body).find((k) => !['oliId', 'status', 'scheduledAt'].includes(k))
      t.ok(
        res
          .json()
          .details.some(
            (d: { field: string; message: string }) =>
              d.field === extra && d.message === 'extra field rejected',
          ),
        `${extra} rejected`,
      )
    }
    t.strictSame(await masterRow(fx, 'T-EXTRA'), before)
  })

  t.test('a closed oli_id pushed again is inserted anew; the archive keeps the old copy', async (t) => {
    await escalated('T-AGAIN')
    t.equal((await ticket({ oliId: 'T-AGAIN', status: 'Close' })).statusCode, 200)
    const res = await fx.push(lead({ oli_id: 'T-AGAIN', priority_id: 8, client_name: 'Second life' }))
    t.equal(res.statusCode, 201)
    t.equal(res.json().leads[0].status, 'inserted')
    t.match(await masterRow(fx, 'T-AGAIN'), {
      client_name: 'Second life',
      dial_status: 'Pending',
      priority_id: 8,
    })
    t.equal((await disposedRows(fx, 'T-AGAIN')).length, 1)
    // And it can be closed again: the archive holds both copies.
    t.equal((await ticket({ oliId: 'T-AGAIN', status: 'close' })).statusCode, 200)
    const archived = await disposedRows(fx, 'T-AGAIN')
    t.same(
      archived.map((r) => r.client_name),
      [archived[0]!.client_name, 'Second life'],
    )
    t.not(Number(archived[0]!.master_id), Number(archived[1]!.master_id), 'two different master rows')
  })
})
