import { forEachDialect } from '@hold-dialer/db/testing'
import {
  CALLBACK_TIME_CALENDAR_MESSAGE,
  CALLBACK_TIME_FORMAT_MESSAGE,
  CALLBACK_TIME_RANGE_MESSAGE,
  PHONE_MESSAGE,
} from '@hold-dialer/rules'
import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

interface Detail {
  field: string
  message: string
}

const byField = (a: Detail, b: Detail) =>
  a.field === b.field ? (a.message < b.message ? -1 : 1) : a.field < b.field ? -1 : 1

/** Every 400 but `invalid_json` has exactly this shape; the order of `details` is not part of it. */
function expectDetails(t: Test, res: LightMyRequestResponse, details: Detail[]): void {
  t.equal(res.statusCode, 400, res.body)
  const body = res.json()
  t.strictSame(Object.keys(body).sort(), ['details', 'error', 'ok'])
  t.equal(body.ok, false)
  t.equal(body.error, 'validation_failed')
  t.strictSame([...body.details].sort(byField), [...details].sort(byField))
}

function expectInvalidJson(t: Test, res: LightMyRequestResponse): void {
  t.equal(res.statusCode, 400, res.body)
  t.strictSame(res.json(), { ok: false, error: 'invalid_json' })
}

async function countMaster(fx: ApiFixture): Promise<number> {
  const row = await fx.database.handle.kysely
    .selectFrom('hold_dialer_master_data')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Sends raw text, so the JSON can hold what `JSON.stringify` would never write. */
function sendRaw(fx: ApiFixture, url: string, payload: string, headers: Record<string, string> = {}) {
  return fx.call({ method: url === '/api/escalated-tickets' ? 'PUT' : 'POST', url, payload, headers })
}

const WRITE_URLS = ['/api/leads', '/api/master', '/api/escalated-tickets', '/api/send-callback-request']

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const db = database.handle.kysely

  t.test('unparseable JSON is 400 invalid_json on every write endpoint, nothing written', async (t) => {
    const before = await countMaster(fx)
    for (const url of WRITE_URLS) {
      for (const text of ['{', '{"oli_id":', 'x', "{'oli_id':'a'}", '{"a":1,}', '{"a":1}{"b":2}', 'nul']) {
        expectInvalidJson(t, await sendRaw(fx, url, text, { 'content-type': 'application/json' }))
      }
    }
    t.equal(await countMaster(fx), before)
  })

  t.test('an empty body without Content-Type is invalid_json, not validation_failed', async (t) => {
    for (const url of WRITE_URLS) {
      expectInvalidJson(t, await sendRaw(fx, url, ''))
      expectInvalidJson(t, await sendRaw(fx, url, '', { 'content-type': 'application/json' }))
      expectInvalidJson(t, await sendRaw(fx, url, '', { 'content-type': 'text/plain' }))
    }
  })

  t.test('a body that is JSON but not an object is a validation_failed on field body', async (t) => {
    for (const url of WRITE_URLS) {
      for (const text of ['"x"', '5', '-1.5', '[]', JSON.stringify([lead()]), 'null', 'true']) {
        expectDetails(t, await sendRaw(fx, url, text), [{ field: 'body', message: 'must be object' }])
      }
    }
  })

  t.test('every missing required field is reported by name', async (t) => {
    for (const field of ['oli_id', 'phone_number', 'client_name', 'form_type', 'priority_id']) {
      const body = lead()
      delete body[field]
      expectDetails(t, await fx.push(body), [{ field, message: 'is required' }])
      const batch = { leads: [lead(), body] }
      expectDetails(t, await fx.push(batch), [{ field: `leads[1].${field}`, message: 'is required' }])
    }
    expectDetails(
      t,
      await fx.push({}),
      ['oli_id', 'phone_number', 'client_name', 'form_type', 'priority_id'].map((field) => ({
        field,
        message: 'is required',
      })),
    )
  })

  t.test('types are strict: no coercion of numbers, strings or booleans', async (t) => {
    const before = await countMaster(fx)
    const cases: [Record<string, unknown>, string, string][] = [
      [{ oli_id: 123 }, 'oli_id', 'must be string'],
      [{ priority_id: '1' }, 'priority_id', 'must be integer'],
      [{ priority_id: 1.5 }, 'priority_id', 'must be integer'],
      [{ priority_id: true }, 'priority_id', 'must be integer'],
      [{ priority_id: null }, 'priority_id', 'must be integer'],
      [{ phone_number: 9876543210 }, 'phone_number', 'must be string'],
      [{ client_name: null }, 'client_name', 'must be string'],
      [{ form_type: false }, 'form_type', 'must be string'],
      [{ form_type: ['hold'] }, 'form_type', 'must be string'],
      [
        { callback_scheduled_at: 1764000000, priority_id: 2 },
        'callback_scheduled_at',
        'must be string or null',
      ],
    ]
    for (const [override, field, message] of cases) {
      expectDetails(t, await fx.push(lead(override)), [{ field, message }])
    }
    expectDetails(t, await fx.push({ leads: { 0: lead() } }), [{ field: 'leads', message: 'must be array' }])
    expectDetails(t, await fx.push({ leads: [lead(), 'OLI-9'] }), [
      { field: 'leads[1]', message: 'must be object' },
    ])
    t.equal(await countMaster(fx), before, 'no coerced lead was stored')
  })

  t.test('an unknown key is reported with its own name: extra field rejected', async (t) => {
    expectDetails(t, await fx.push(lead({ foo: 1 })), [{ field: 'foo', message: 'extra field rejected' }])
    expectDetails(t, await fx.push(lead({ foo: 1, Oli_Id: 'x' })), [
      { field: 'foo', message: 'extra field rejected' },
      { field: 'Oli_Id', message: 'extra field rejected' },
    ])
    expectDetails(t, await fx.push({ leads: [lead()], foo: 1 }), [
      { field: 'foo', message: 'extra field rejected' },
    ])
    expectDetails(t, await fx.push({ leads: [lead(), lead(), lead(), lead({ foo: 'bar' })] }), [
      { field: 'leads[3].foo', message: 'extra field rejected' },
    ])
  })

  t.test('agent_id is an extra field in pool mode, whatever its value', async (t) => {
    const before = await countMaster(fx)
    for (const agentId of [1, null, '1']) {
      expectDetails(t, await fx.push(lead({ agent_id: agentId })), [
        { field: 'agent_id', message: 'extra field rejected' },
      ])
    }
    expectDetails(t, await fx.push({ leads: [lead(), lead({ agent_id: 1 })] }), [
      { field: 'leads[1].agent_id', message: 'extra field rejected' },
    ])
    t.equal(await countMaster(fx), before)
  })

  t.test(
    'an extra key spelled in digits is a property, reported as leads[0].7 not leads[0][7]',
    async (t) => {
      expectDetails(t, await fx.push({ leads: [lead({ 7: 'x' })] }), [
        { field: 'leads[0].7', message: 'extra field rejected' },
      ])
      expectDetails(t, await fx.push(lead({ 7: 'x' })), [{ field: '7', message: 'extra field rejected' }])
      expectDetails(t, await fx.push(lead({ '': 'x' })), [{ field: '', message: 'extra field rejected' }])
    },
  )

  t.test('unknown priority_id', async (t) => {
    for (const priorityId of [99, 0, -1, 4, 2 ** 40]) {
      expectDetails(t, await fx.push(lead({ priority_id: priorityId })), [
        { field: 'priority_id', message: 'unknown priority_id' },
      ])
    }
  })

  t.test('an inactive priority is rejected like an unknown one', async (t) => {
    const setActive = (active: number) =>
      db.updateTable('hold_dialer_priority').set({ is_active: active }).where('id', '=', 3).execute()
    t.equal((await fx.push(lead({ priority_id: 3 }))).statusCode, 201, 'priority 3 is active at first')
    await setActive(0)
    t.teardown(() => setActive(1))
    const body = lead({ priority_id: 3 })
    expectDetails(t, await fx.push(body), [{ field: 'priority_id', message: 'unknown priority_id' }])
    t.equal(await masterRow(fx, body.oli_id as string), undefined)
  })

  t.test('callback_scheduled_at on a non-callback priority', async (t) => {
    for (const priorityId of [1, 3, 8]) {
      const body = lead({ priority_id: priorityId, callback_scheduled_at: '2026-11-24 10:15:00' })
      expectDetails(t, await fx.push(body), [
        {
          field: 'callback_scheduled_at',
          message: 'callback_scheduled_at only allowed for callback priorities',
        },
      ])
      t.equal(await masterRow(fx, body.oli_id as string), undefined)
    }
    // A priority flagged is_callback later is accepted: the rule reads the flag, not the id 2.
    await db.updateTable('hold_dialer_priority').set({ is_callback: 1 }).where('id', '=', 8).execute()
    t.teardown(() =>
      db.updateTable('hold_dialer_priority').set({ is_callback: 0 }).where('id', '=', 8).execute(),
    )
    const res = await fx.push(lead({ priority_id: 8, callback_scheduled_at: '2026-11-24 10:15:00' }))
    t.equal(res.statusCode, 201)
  })

  t.test('callback_scheduled_at null means omitted and is allowed on any priority', async (t) => {
    const body = lead({ priority_id: 1, callback_scheduled_at: null })
    const res = await fx.push(body)
    t.equal(res.statusCode, 201)
    t.equal(res.json().leads[0].callback_scheduled_at, null)
    t.match(await masterRow(fx, body.oli_id as string), {
      dial_status: 'Pending',
      callback_scheduled_at: null,
    })
  })

  t.test('rejected callback-time forms', async (t) => {
    const cases: [string, string][] = [
      ['2026-11-24', CALLBACK_TIME_FORMAT_MESSAGE],
      ['', CALLBACK_TIME_FORMAT_MESSAGE],
      ['   ', CALLBACK_TIME_FORMAT_MESSAGE],
      ['garbage', CALLBACK_TIME_FORMAT_MESSAGE],
      ['tomorrow 10am', CALLBACK_TIME_FORMAT_MESSAGE],
      ['2026-11-24 10:15', CALLBACK_TIME_FORMAT_MESSAGE],
      ['24/11/2026 10:15:00', CALLBACK_TIME_FORMAT_MESSAGE],
      ['1764000000', CALLBACK_TIME_FORMAT_MESSAGE],
      ['2026-02-30 10:00:00', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['2026-02-30T10:00:00Z', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['2026-11-24 24:00:01', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['2026-11-24T24:00:01', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['2026-13-01 10:00:00', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['2026-11-24 10:60:00', CALLBACK_TIME_CALENDAR_MESSAGE],
      ['0000-01-01 00:00:00', CALLBACK_TIME_RANGE_MESSAGE],
      ['10000-01-01 00:00:00', CALLBACK_TIME_FORMAT_MESSAGE],
      ['9999-12-31T23:59:59-05:00', CALLBACK_TIME_RANGE_MESSAGE],
    ]
    const before = await countMaster(fx)
    for (const [value, message] of cases) {
      const res = await fx.push(lead({ priority_id: 2, callback_scheduled_at: value }))
      expectDetails(t, res, [{ field: 'callback_scheduled_at', message }])
    }
    t.equal(await countMaster(fx), before)
  })

  t.test(
    'accepted callback-time forms are stored as the right UTC instant (TIMEZONE Asia/Kolkata)',
    async (t) => {
      const cases: [string, string][] = [
        ['2026-11-24 10:15:00', '2026-11-24 04:45:00.000'],
        ['2026-11-24T10:15:00', '2026-11-24 04:45:00.000'],
        ['2026-11-24T10:15', '2026-11-24 04:45:00.000'],
        ['2026-11-24T10:15:00Z', '2026-11-24 10:15:00.000'],
        ['2026-11-24T10:15:00.250Z', '2026-11-24 10:15:00.250'],
        ['2026-11-24T10:15:00+02:00', '2026-11-24 08:15:00.000'],
        ['2026-11-24T10:15:00-04:00', '2026-11-24 14:15:00.000'],
        ['2026-11-24T23:30:00+05:30', '2026-11-24 18:00:00.000'],
        // Past: accepted, due at once.
        ['2020-02-29 23:59:59', '2020-02-29 18:29:59.000'],
        ['2026-11-23T00:00:00Z', '2026-11-23 00:00:00.000'],
      ]
      for (const [value, stored] of cases) {
        const body = lead({ priority_id: 2, callback_scheduled_at: value })
        const res = await fx.push(body)
        t.equal(res.statusCode, 201, value)
        t.strictSame(res.json().leads, [
          { oli_id: body.oli_id, status: 'inserted', callback_scheduled_at: value },
        ])
        t.match(
          await masterRow(fx, body.oli_id as string),
          { dial_status: 'Callback', callback_scheduled_at: stored, next_retry_at: null },
          value,
        )
      }
    },
  )

  t.test('details lists every problem of a lead, not only the first', async (t) => {
    // Three problems the schema finds.
    expectDetails(t, await fx.push(lead({ oli_id: 123, client_name: '', priority_id: '1' })), [
      { field: 'oli_id', message: 'must be string' },
      { field: 'client_name', message: 'must NOT have fewer than 1 characters' },
      { field: 'priority_id', message: 'must be integer' },
    ])
    // Three problems found after the schema.
    expectDetails(
      t,
      await fx.push(lead({ phone_number: '12345', priority_id: 99, callback_scheduled_at: 'soon' })),
      [
        { field: 'phone_number', message: PHONE_MESSAGE },
        { field: 'priority_id', message: 'unknown priority_id' },
        { field: 'callback_scheduled_at', message: CALLBACK_TIME_FORMAT_MESSAGE },
      ],
    )
    // Both a bad time and a non-callback priority on the same field.
    expectDetails(t, await fx.push(lead({ priority_id: 1, callback_scheduled_at: '2026-02-30 10:00:00' })), [
      { field: 'callback_scheduled_at', message: CALLBACK_TIME_CALENDAR_MESSAGE },
      {
        field: 'callback_scheduled_at',
        message: 'callback_scheduled_at only allowed for callback priorities',
      },
    ])
  })

  t.test(
    'regression: problems the schema finds and problems found after it are listed together',
    async (t) => {
      expectDetails(t, await fx.push(lead({ oli_id: 123, phone_number: '123', priority_id: 99 })), [
        { field: 'oli_id', message: 'must be string' },
        { field: 'phone_number', message: PHONE_MESSAGE },
        { field: 'priority_id', message: 'unknown priority_id' },
      ])
      expectDetails(
        t,
        await fx.push({
          leads: [lead({ oli_id: 'D-1', extra: 1 }), lead({ oli_id: 'D-1', priority_id: 77 })],
        }),
        [
          { field: 'leads[0].extra', message: 'extra field rejected' },
          { field: 'leads[1].oli_id', message: 'duplicate oli_id in batch (also leads[0])' },
          { field: 'leads[1].priority_id', message: 'unknown priority_id' },
        ],
      )
    },
  )

  t.test('a batch lists the problems of every lead with leads[i].field paths', async (t) => {
    const before = await countMaster(fx)
    expectDetails(
      t,
      await fx.push({
        leads: [lead({ phone_number: '123' }), lead(), lead({ priority_id: 42 }), lead()],
      }),
      [
        { field: 'leads[0].phone_number', message: PHONE_MESSAGE },
        { field: 'leads[2].priority_id', message: 'unknown priority_id' },
      ],
    )
    expectDetails(
      t,
      await fx.push({ leads: [lead({ oli_id: '' }), lead(), lead({ client_name: 7, extra: true })] }),
      [
        { field: 'leads[0].oli_id', message: 'must NOT have fewer than 1 characters' },
        { field: 'leads[2].client_name', message: 'must be string' },
        { field: 'leads[2].extra', message: 'extra field rejected' },
      ],
    )
    t.equal(await countMaster(fx), before)
  })

  t.test('the same oli_id twice in one batch is a 400 and writes neither', async (t) => {
    const res = await fx.push({ leads: [lead({ oli_id: 'DUP-1' }), lead(), lead({ oli_id: 'DUP-1' })] })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error, 'validation_failed')
    t.equal(res.json().details.length, 1)
    t.match(res.json().details[0], { field: 'leads[2].oli_id', message: /^duplicate oli_id in batch/ })
    t.equal(await masterRow(fx, 'DUP-1'), undefined)
    // Differing only in case or trailing space is not a duplicate: they are different leads.
    const distinct = await fx.push({
      leads: [lead({ oli_id: 'DUP-2' }), lead({ oli_id: 'dup-2' }), lead({ oli_id: 'DUP-2 ' })],
    })
    t.equal(distinct.statusCode, 201)
    t.same(
      distinct.json().leads.map((l: { status: string }) => l.status),
      ['inserted', 'inserted', 'inserted'],
    )
  })

  t.test('a batch with one invalid lead writes nothing, not even updates', async (t) => {
    const existing = lead({ oli_id: 'ATOM-1' })
    await fx.push(existing)
    await db
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Not Connected', call_count: 2 })
      .where('oli_id', '=', 'ATOM-1')
      .execute()
    const before = await countMaster(fx)
    const rowBefore = await masterRow(fx, 'ATOM-1')
    const res = await fx.push({
      leads: [
        lead({ oli_id: 'ATOM-0' }),
        { ...existing, client_name: 'Changed' },
        lead({ oli_id: 'ATOM-2' }),
        lead({ oli_id: 'ATOM-3' }),
        lead({ oli_id: 'ATOM-4', phone_number: '98765' }),
      ],
    })
    expectDetails(t, res, [{ field: 'leads[4].phone_number', message: PHONE_MESSAGE }])
    t.equal(await countMaster(fx), before)
    t.strictSame(await masterRow(fx, 'ATOM-1'), rowBefore)
  })

  t.test('leads: [] and 501 leads are 400 on field leads', async (t) => {
    const before = await countMaster(fx)
    const empty = await fx.push({ leads: [] })
    t.equal(empty.statusCode, 400)
    t.equal(empty.json().details.length, 1)
    t.equal(empty.json().details[0].field, 'leads')
    const many = await fx.push({ leads: Array.from({ length: 501 }, () => lead()) })
    t.equal(many.statusCode, 400)
    t.equal(many.json().details.length, 1)
    t.equal(many.json().details[0].field, 'leads')
    t.equal(await countMaster(fx), before)
  })

  t.test('a lone UTF-16 surrogate in any string is a 400, not a 500', async (t) => {
    const before = await countMaster(fx)
    const base = {
      oli_id: 'SUR-1',
      phone_number: '9876543210',
      client_name: 'A',
      form_type: 'hold',
      priority_id: 2,
    }
    for (const field of ['oli_id', 'phone_number', 'client_name', 'form_type', 'callback_scheduled_at']) {
      for (const bad of ['\\ud800', '\\udfff', '\\udc00\\ud800', 'x\\ud83d']) {
        const value =
          field === 'callback_scheduled_at'
            ? `2026-11-24 10:15:00${bad}`
            : `${field === 'phone_number' ? '9876543210' : 'A'}${bad}`
        const text = JSON.stringify({ ...base, [field]: '@@' }).replace('"@@"', `"${value}"`)
        const single = await sendRaw(fx, '/api/leads', text)
        t.equal(single.statusCode, 400, `${field} ${bad}`)
        t.match(single.json(), { ok: false, error: 'validation_failed', details: [{ field }] })
        const batch = await sendRaw(fx, '/api/leads', `{"leads":[${JSON.stringify(lead())},${text}]}`)
        t.equal(batch.statusCode, 400)
        t.match(batch.json(), { details: [{ field: `leads[1].${field}` }] })
      }
    }
    t.equal(await countMaster(fx), before)
    // A well-formed pair written as escapes is text like any other.
    const ok = await sendRaw(
      fx,
      '/api/leads',
      JSON.stringify({ ...base, client_name: '@@' }).replace('"@@"', '"\\ud83d\\ude00"'),
    )
    t.equal(ok.statusCode, 201)
    t.equal((await masterRow(fx, 'SUR-1'))?.client_name, '\u{1F600}')
  })

  t.test(
    'a lone surrogate in oliId or scheduledAt of the ticket and callback endpoints is a 400',
    async (t) => {
      const tickets = await sendRaw(fx, '/api/escalated-tickets', '{"oliId":"T\\ud800","status":"Close"}')
      t.equal(tickets.statusCode, 400)
      t.match(tickets.json(), { error: 'validation_failed', details: [{ field: 'oliId' }] })
      const callback = await sendRaw(
        fx,
        '/api/send-callback-request',
        '{"oliId":"T\\udc00","scheduledAt":"2026-11-24 10:15:00\\ud800"}',
      )
      t.equal(callback.statusCode, 400)
      t.match(callback.json(), { error: 'validation_failed' })
      t.same(
        callback
          .json()
          .details.map((d: Detail) => d.field)
          .sort(),
        ['oliId', 'scheduledAt'],
      )
    },
  )

  t.test('ticket and callback-request bodies: each 400 of DECISIONS section 3', async (t) => {
    await fx.push(lead({ oli_id: 'TK-8', priority_id: 8 }))
    await fx.push(lead({ oli_id: 'TK-1', priority_id: 1 }))
    const ticket = (body: unknown) =>
      fx.call({ method: 'PUT', url: '/api/escalated-tickets', payload: body as object })
    const callback = (body: unknown) =>
      fx.call({ method: 'POST', url: '/api/send-callback-request', payload: body as object })
    expectDetails(t, await ticket({ status: 'Close' }), [{ field: 'oliId', message: 'is required' }])
    expectDetails(t, await ticket({ oliId: 'TK-8' }), [{ field: 'status', message: 'is required' }])
    expectDetails(t, await ticket({ oliId: 'TK-8', status: 'Close', foo: 1 }), [
      { field: 'foo', message: 'extra field rejected' },
    ])
    expectDetails(t, await ticket({ oliId: 'TK-8', status: 'Open' }), [
      { field: 'status', message: 'must be Close or Callback Schedule' },
    ])
    expectDetails(t, await ticket({ oliId: 'TK-8', status: 'Callback Schedule' }), [
      { field: 'scheduledAt', message: 'is required' },
    ])
    expectDetails(
      t,
      await ticket({ oliId: 'TK-8', status: 'callback schedule', scheduledAt: '2026-11-24' }),
      [{ field: 'scheduledAt', message: CALLBACK_TIME_FORMAT_MESSAGE }],
    )
    expectDetails(t, await ticket({ oliId: 'x'.repeat(101), status: 'Close' }), [
      { field: 'oliId', message: 'must NOT have more than 100 characters' },
    ])
    const notEscalated = await ticket({ oliId: 'TK-1', status: 'Close' })
    t.equal(notEscalated.statusCode, 400)
    t.match(notEscalated.json(), { ok: false, error: 'validation_failed', details: [{ field: 'oliId' }] })
    expectDetails(t, await callback({ oliId: 'TK-1' }), [{ field: 'scheduledAt', message: 'is required' }])
    expectDetails(t, await callback({ oliId: 'TK-1', scheduledAt: '' }), [
      { field: 'scheduledAt', message: CALLBACK_TIME_FORMAT_MESSAGE },
    ])
    const both = await callback({
      oliId: 'TK-1',
      scheduledAt: '2026-11-24 10:15:00',
      ScheduledAt: '2026-11-24 10:15:00',
    })
    t.equal(both.statusCode, 400)
    t.equal(both.json().error, 'validation_failed')
    expectDetails(t, await callback({ oliId: 'TK-1', scheduledAt: '2026-11-24 10:15:00', agent_id: 1 }), [
      { field: 'agent_id', message: 'extra field rejected' },
    ])
    expectDetails(t, await callback({ oliId: 1, scheduledAt: '2026-11-24 10:15:00' }), [
      { field: 'oliId', message: 'must be string' },
    ])
    t.match(await masterRow(fx, 'TK-8'), { dial_status: 'Pending', callback_scheduled_at: null })
    t.match(await masterRow(fx, 'TK-1'), { dial_status: 'Pending', callback_scheduled_at: null })
  })

  t.test('the 400 body is exactly {ok, error, details: [{field, message}]}', async (t) => {
    const res = await fx.push(lead({ phone_number: '(022) 1234' }))
    t.equal(res.statusCode, 400)
    t.match(res.headers['content-type'], /^application\/json/)
    t.strictSame(res.json(), {
      ok: false,
      error: 'validation_failed',
      details: [{ field: 'phone_number', message: PHONE_MESSAGE }],
    })
    t.match(PHONE_MESSAGE, /10-15 digits/)
  })
})

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: 'pinned' } })
  const db = database.handle.kysely
  const withExtension = await db
    .insertInto('dialer_employee')
    .values({ name: 'Asha', extension: '1001' })
    .executeTakeFirstOrThrow()
  const withoutExtension = await db
    .insertInto('dialer_employee')
    .values({ name: 'Ravi', extension: null })
    .executeTakeFirstOrThrow()
  const agentId = Number(withExtension.insertId)
  const noExtensionId = Number(withoutExtension.insertId)

  t.test("pinned mode: the 400s of the spec's push rules", async (t) => {
    const before = await countMaster(fx)
    expectDetails(t, await fx.push(lead({ priority_id: 2, callback_scheduled_at: '2026-11-24 10:15:00' })), [
      { field: 'agent_id', message: 'agent_id is required with callback_scheduled_at' },
    ])
    expectDetails(t, await fx.push(lead({ agent_id: 9999 })), [
      { field: 'agent_id', message: 'unknown agent_id, or the employee is inactive or has no extension' },
    ])
    expectDetails(t, await fx.push(lead({ agent_id: noExtensionId })), [
      { field: 'agent_id', message: 'unknown agent_id, or the employee is inactive or has no extension' },
    ])
    expectDetails(
      t,
      await fx.push(
        lead({ agent_id: agentId, priority_id: 8, callback_scheduled_at: '2026-11-24 10:15:00' }),
      ),
      [
        {
          field: 'callback_scheduled_at',
          message: 'callback_scheduled_at only allowed for callback priorities',
        },
      ],
    )
    expectDetails(t, await fx.push(lead({ agent_id: String(agentId) })), [
      { field: 'agent_id', message: 'must be integer or null' },
    ])
    t.equal(await countMaster(fx), before)
    const ok = await fx.push(
      lead({ agent_id: agentId, priority_id: 1, callback_scheduled_at: '2026-11-24 10:15:00' }),
    )
    t.equal(ok.statusCode, 201)
  })
})
