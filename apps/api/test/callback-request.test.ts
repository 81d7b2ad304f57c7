import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import t from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

/** A used dial state on a row, so that every column the reset writes visibly changes. */
async function dirty(fx: ApiFixture, oliId: string): Promise<void> {
  await fx.database.handle.kysely
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: 'Not Connected',
      last_dial_result: 'BUSY',
      hangup_by: 'customer',
      hangup_cause: '17',
      last_attempt_at: '2026-11-22 10:00:00.000',
      first_attempt_at: '2026-11-22 09:00:00.000',
      next_retry_at: '2026-11-23 12:00:00.000',
      call_count: 2,
      // Reserved but not Calling: not live, so the write goes ahead and must clear the flag.
      isReserved: 1,
      isRnrSent: 1,
      reserved_by: 'dialer-b',
      reserved_at: '2026-11-22 10:00:00.000',
      previous_status: 'Pending',
    })
    .where('oli_id', '=', oliId)
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
  const request = (payload: Record<string, unknown>) =>
    fx.call({ method: 'POST', url: '/api/send-callback-request', payload })

  async function existing(oliId: string, priority = 1) {
    const res = await fx.push(lead({ oli_id: oliId, priority_id: priority }))
    if (res.statusCode !== 201) throw new Error(`push of ${oliId} failed: ${res.body}`)
    await dirty(fx, oliId)
    return (await masterRow(fx, oliId))!
  }

  t.test('any priority is accepted and kept; Callback at the time with every reset column', async (t) => {
    for (const priority of [1, 2, 3, 8]) {
      const oliId = `CR-P${priority}`
      const before = await existing(oliId, priority)
      const res = await request({ oliId, scheduledAt: '2026-11-24 10:15:00' })
      t.equal(res.statusCode, 200, `priority ${priority}`)
      t.strictSame(res.json(), {
        ok: true,
        lead: { oli_id: oliId, dial_status: 'Callback', callback_scheduled_at: '2026-11-24 10:15:00' },
      })
      t.strictSame(
        await masterRow(fx, oliId),
        {
          ...before,
          ...CALLBACK_RESET,
          callback_scheduled_at: '2026-11-24 04:45:00.000',
          priority_id: priority,
        },
        `priority ${priority}: reset applied, time stored in UTC, nothing else changed`,
      )
    }
  })

  t.test('the ScheduledAt alias works the same', async (t) => {
    const before = await existing('CR-ALIAS', 2)
    const res = await request({ oliId: 'CR-ALIAS', ScheduledAt: '2026-11-25T18:30:00+05:30' })
    t.equal(res.statusCode, 200)
    t.strictSame(res.json(), {
      ok: true,
      lead: { oli_id: 'CR-ALIAS', dial_status: 'Callback', callback_scheduled_at: '2026-11-25 18:30:00' },
    })
    t.strictSame(await masterRow(fx, 'CR-ALIAS'), {
      ...before,
      ...CALLBACK_RESET,
      callback_scheduled_at: '2026-11-25 13:00:00.000',
    })
  })

  t.test('the response gives callback_scheduled_at in TIMEZONE whatever form was sent', async (t) => {
    await existing('CR-ZULU')
    const res = await request({ oliId: 'CR-ZULU', scheduledAt: '2026-11-24T23:00:00Z' })
    t.equal(res.statusCode, 200)
    t.equal(res.json().lead.callback_scheduled_at, '2026-11-25 04:30:00', 'next local day')
    t.equal((await masterRow(fx, 'CR-ZULU'))?.callback_scheduled_at, '2026-11-24 23:00:00.000')
  })

  t.test('scheduledAt and ScheduledAt together are a 400 and nothing is written', async (t) => {
    const before = await existing('CR-BOTH')
    const res = await request({
      oliId: 'CR-BOTH',
      scheduledAt: '2026-11-24 10:15:00',
      ScheduledAt: '2026-11-24 10:15:00',
    })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error, 'validation_failed')
    t.ok(res.json().details.some((d: { field: string }) => d.field === 'scheduledAt'))
    t.strictSame(await masterRow(fx, 'CR-BOTH'), before)
  })

  t.test('a missing or invalid time is a 400 listing scheduledAt and nothing is written', async (t) => {
    const before = await existing('CR-NO-TIME')
    for (const extra of [
      {},
      { scheduledAt: '' },
      { scheduledAt: 'soon' },
      { scheduledAt: '2026-11-24' },
      { ScheduledAt: '2026-11-24' },
      { scheduledAt: '2026-13-01 10:00:00' },
      { scheduledAt: '0000-01-01 00:00:00' },
      { scheduledAt: null },
      { ScheduledAt: 20261124 },
    ]) {
      const res = await request({ oliId: 'CR-NO-TIME', ...extra })
      t.equal(res.statusCode, 400, JSON.stringify(extra))
      t.equal(res.json().error, 'validation_failed')
      t.ok(
        res.json().details.some((d: { field: string }) => /^scheduledAt$/i.test(d.field)),
        `${JSON.stringify(extra)} reported on scheduledAt`,
      )
    }
    t.strictSame(await masterRow(fx, 'CR-NO-TIME'), before)
  })

  t.test('a missing oliId is a 400; an unknown one is a 404 lead_not_found', async (t) => {
    const missing = await request({ scheduledAt: '2026-11-24 10:15:00' })
    t.equal(missing.statusCode, 400)
    t.ok(missing.json().details.some((d: { field: string }) => d.field === 'oliId'))
    const unknown = await request({ oliId: 'CR-NOBODY', scheduledAt: '2026-11-24 10:15:00' })
    t.equal(unknown.statusCode, 404)
    t.strictSame(unknown.json(), { ok: false, error: 'lead_not_found' })
    t.equal(await masterRow(fx, 'CR-NOBODY'), undefined, 'no row created')
  })

  t.test('a live (Calling + reserved) row: 409 lead_in_flight, byte-for-byte unchanged', async (t) => {
    await fx.push(lead({ oli_id: 'CR-LIVE', priority_id: 2 }))
    await fx.database.handle.kysely
      .updateTable('hold_dialer_master_data')
      .set({
        dial_status: 'Calling',
        isReserved: 1,
        reserved_by: 'dialer-a',
        reserved_at: '2026-11-23 05:59:00.000',
        previous_status: 'Pending',
        call_count: 1,
      })
      .where('oli_id', '=', 'CR-LIVE')
      .execute()
    const before = await masterRow(fx, 'CR-LIVE')
    const res = await request({ oliId: 'CR-LIVE', scheduledAt: '2026-11-24 10:15:00' })
    t.equal(res.statusCode, 409)
    t.strictSame(res.json(), { ok: false, error: 'lead_in_flight' })
    t.strictSame(await masterRow(fx, 'CR-LIVE'), before)
  })

  t.test('a past time is accepted: the row is due at once', async (t) => {
    const before = await existing('CR-PAST', 3)
    const res = await request({ oliId: 'CR-PAST', scheduledAt: '2026-11-20 08:00:00' })
    t.equal(res.statusCode, 200)
    t.strictSame(res.json(), {
      ok: true,
      lead: { oli_id: 'CR-PAST', dial_status: 'Callback', callback_scheduled_at: '2026-11-20 08:00:00' },
    })
    const row = await masterRow(fx, 'CR-PAST')
    t.strictSame(row, { ...before, ...CALLBACK_RESET, callback_scheduled_at: '2026-11-20 02:30:00.000' })
    t.ok(row!.callback_scheduled_at! < toDbTime(fx.clock.now()), 'callback time is before now')
  })

  t.test('a second request replaces the time of the first', async (t) => {
    await existing('CR-TWICE')
    await request({ oliId: 'CR-TWICE', scheduledAt: '2026-11-24 10:15:00' })
    const res = await request({ oliId: 'CR-TWICE', scheduledAt: '2026-11-26 11:00:00' })
    t.equal(res.statusCode, 200)
    t.match(await masterRow(fx, 'CR-TWICE'), {
      dial_status: 'Callback',
      callback_scheduled_at: '2026-11-26 05:30:00.000',
    })
  })

  t.test('extra keys are rejected by name and nothing is written', async (t) => {
    const before = await existing('CR-EXTRA')
    for (const [key, value] of [
      ['status', 'Callback Schedule'],
      ['oli_id', 'CR-EXTRA'],
      ['scheduled_at', '2026-11-24 10:15:00'],
      ['agent_id', 1],
    ] as const) {
      const res = await request({ oliId: 'CR-EXTRA', scheduledAt: '2026-11-24 10:15:00', [key]: value })
      t.equal(res.statusCode, 400, key)
      t.ok(
        res
          .json()
          .details.some(
            (d: { field: string; message: string }) =>
              d.field === key && d.message === 'extra field rejected',
          ),
        `${key} rejected`,
      )
    }
    t.strictSame(await masterRow(fx, 'CR-EXTRA'), before)
  })
})
