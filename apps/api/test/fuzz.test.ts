import { forEachDialect } from '@hold-dialer/db/testing'
import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { type ApiFixture, apiFixture, lead, SECRET } from './fixture.js'

/**
 * Random bodies, types, sizes, nesting, Unicode and headers at every endpoint, with a valid secret so
 * bodies are parsed. Whatever is sent: never a 5xx (but the detailed health's 503), every non-2xx
 * body is JSON with `ok: false` and an `error` string, and a rejected request leaves the master and
 * disposed tables exactly as they were.
 */

type Method = NonNullable<InjectOptions['method']>

interface FuzzRequest {
  method: Method
  url: string
  payload?: string
  headers: Record<string, string>
  remoteAddress: string
}

const SEEDED = ['FZ-1', 'FZ-TICKET', 'FZ-CB', 'FZ-LIVE', 'FZ-CLOSED']
const HEALTH_URLS = new Set(['/health', '/api/health'])

// ---- values ---------------------------------------------------------------------------------

const nastyText = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\udc00\ud800',
  '\u{1F600}',
  '\u202e\u0301',
  '\ufeff',
  '0',
  '-1',
  '1e999',
  'null',
  'NaN',
  '__proto__',
  'constructor',
  "'; DROP TABLE hold_dialer_master_data; --",
  '2026-11-24',
  '2026-02-30 10:00:00',
  '2026-11-24 24:00:01',
  '2026-11-24T10:00:00+25:00',
  '2026-11-24T10:00:00.123456789Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01 00:00:00',
  '+91 98765 43210',
  'close',
  ' Callback  SCHEDULE ',
)

/** Strings of every kind: any code point (lone surrogates included), the nasty list, and huge ones. */
const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 3, arbitrary: nastyText },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(99, 100, 101, 149, 150, 151, 255, 256, 10_000, 900_000, 1_100_000)
      .map((n) => 'x'.repeat(n)),
  },
)

const anyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, 2, 3, 8, 1.5, -1, 2 ** 31, 2 ** 53, 1e300, Number.MAX_SAFE_INTEGER + 2),
)

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  { weight: 2, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
)

const keyName = fc.oneof(
  fc.constantFrom(
    'foo',
    'agent_id',
    'leads',
    'oliId',
    'oli_id',
    'ScheduledAt',
    'status',
    '',
    '7',
    'a.b',
    '[0]',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
)

/** A valid-looking object with one or two fields replaced, removed or added. */
function mutated(base: fc.Arbitrary<Record<string, unknown>>, fields: string[]): fc.Arbitrary<unknown> {
  const change = fc.tuple(
    fc.oneof(fc.constantFrom(...fields), keyName),
    fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 5, arbitrary: anyValue }),
  )
  return fc.tuple(base, fc.array(change, { minLength: 1, maxLength: 2 })).map(([object, changes]) => {
    const out: Record<string, unknown> = { ...object }
    for (const [key, value] of changes) {
      if (value === undefined) delete out[key]
      else out[key] = value
    }
    return out
  })
}

const validLead = fc.record({
  oli_id: fc.constantFrom(...SEEDED, 'FZ-NEW-1', 'FZ-NEW-2'),
  phone_number: fc.constantFrom('9876543210', '+91 98765-43210', '(212) 555 0100 99'),
  client_name: fc.constantFrom('Fuzz', 'Ünïcödé \u{1F600}'),
  form_type: fc.constantFrom('hold', ''),
  priority_id: fc.constantFrom(1, 2, 3, 8),
})
const LEAD_FIELDS = [
  'oli_id',
  'phone_number',
  'client_name',
  'form_type',
  'priority_id',
  'callback_scheduled_at',
]

const pushBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: mutated(validLead, LEAD_FIELDS) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(validLead, mutated(validLead, LEAD_FIELDS)), { minLength: 0, maxLength: 6 })
      .map((leads) => ({ leads })),
  },
  { weight: 1, arbitrary: mutated(fc.constant({ leads: [lead({ oli_id: 'FZ-NEW-3' })] }), ['leads']) },
  { weight: 1, arbitrary: anyValue },
)

const ticketBody = mutated(
  fc.record({
    oliId: fc.constantFrom(...SEEDED, 'FZ-NONE'),
    status: fc.constantFrom('Close', 'Callback Schedule', 'callbackschedule', 'Open'),
    scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24T10:00:00Z', 'tomorrow'),
  }),
  ['oliId', 'status', 'scheduledAt'],
)

const callbackBody = mutated(
  fc.record({
    oliId: fc.constantFrom(...SEEDED, 'FZ-NONE'),
    scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24T10:00:00+05:30', ''),
  }),
  ['oliId', 'scheduledAt', 'ScheduledAt'],
)

/** JSON the serializer would never write: deep nesting, broken text, duplicate keys. */
const rawText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom('array', 'object', 'leads', 'field', 'open'))
    .map(([depth, kind]) => {
      const arrays = '['.repeat(depth) + ']'.repeat(depth)
      if (kind === 'array') return arrays
      if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
      if (kind === 'leads') return `{"leads":[${arrays}]}`
      if (kind === 'field') return JSON.stringify(lead()).replace('"hold"', arrays)
      return '['.repeat(depth)
    }),
  fc.constant(`${'['.repeat(5000)}${']'.repeat(5000)}`),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom(
    '',
    '{',
    '{"oli_id":"a","oli_id":1}',
    '{"__proto__":{"ok":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '\ufeff{}',
    '{"leads":[{"oli_id":"\\ud800"}]}',
    '"\\udfff"',
    '1e999',
    '-',
    '{"a":1}garbage',
  ),
)

// ---- headers --------------------------------------------------------------------------------

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
})

const randomHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'content-type',
      'accept',
      'accept-encoding',
      'content-encoding',
      'x-forwarded-for',
      'x-real-ip',
      'x-request-id',
      'user-agent',
      'origin',
      'cookie',
      'range',
    ),
    fc.stringMatching(/^x-[a-z0-9-]{1,20}$/).filter((h) => !['x-api-key', 'x-access-key'].includes(h)),
  ),
  fc.oneof(
    printable,
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-16',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'gzip',
      '*/*',
      '',
    ),
  ),
  { maxKeys: 4 },
)

const withSecret = fc
  .tuple(
    randomHeaders,
    fc.constantFrom<Record<string, string>>(
      { authorization: `Bearer ${SECRET}` },
      { 'x-api-key': SECRET },
      { 'x-access-key': SECRET },
    ),
  )
  .map(([headers, secret]) => ({ ...headers, ...secret }))

// ---- requests -------------------------------------------------------------------------------

const body = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: arb.map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: rawText },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )

function requestTo(
  method: Method,
  url: string,
  bodies: fc.Arbitrary<string | undefined>,
): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    method: fc.constant(method),
    url: fc.constant(url),
    payload: bodies,
    headers: withSecret,
    // A fresh client address per request keeps the rate limit out of the way of the checks.
    remoteAddress: fc.ipV4(),
  })
}

const pushRequest = fc.oneof(
  requestTo('POST', '/api/leads', body(pushBody)),
  requestTo('POST', '/api/master', body(pushBody)),
)
const ticketRequest = requestTo('PUT', '/api/escalated-tickets', body(ticketBody))
const callbackRequest = requestTo('POST', '/api/send-callback-request', body(callbackBody))

const anyRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom<Method>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  url: fc.oneof(
    fc.constantFrom(
      '/api/leads',
      '/api/master',
      '/api/escalated-tickets',
      '/api/send-callback-request',
      '/health',
      '/api/health',
      '/healthz',
      '/openapi.json',
      '/metrics',
      '/api/leads?x=1&x=2',
      '/api/leads/FZ-1',
      '/API/LEADS',
      '//api//leads',
      '/api/leads%00',
      '/api/../api/leads',
    ),
    fc.webSegment().map((s) => `/api/${s}`),
    fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
  ),
  payload: body(fc.oneof(pushBody, ticketBody, callbackBody)),
  headers: withSecret,
  remoteAddress: fc.ipV4(),
})

// ---- the property ---------------------------------------------------------------------------

async function tableState(fx: ApiFixture): Promise<string> {
  const db = fx.database.handle.db
  const master = await db.selectFrom('hold_dialer_master_data').selectAll().orderBy('id').execute()
  const disposed = await db.selectFrom('hold_dialer_disposed').selectAll().orderBy('id').execute()
  return JSON.stringify({ master, disposed })
}

function describe(req: FuzzRequest, status: number, body: string): string {
  return `${req.method} ${req.url} -> ${status} ${body.slice(0, 300)} (payload ${JSON.stringify(req.payload?.slice(0, 200))})`
}

async function sendAndCheck(fx: ApiFixture, req: FuzzRequest): Promise<void> {
  const before = await tableState(fx)
  const res = await fx.app.inject({
    method: req.method,
    url: req.url,
    headers: req.headers,
    remoteAddress: req.remoteAddress,
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
  })
  const path = req.url.split('?')[0] ?? ''
  const healthStatus = HEALTH_URLS.has(path) && res.statusCode === 503
  if (res.statusCode >= 500 && !healthStatus)
    throw new Error(`server error: ${describe(req, res.statusCode, res.body)}`)
  if (res.statusCode >= 200 && res.statusCode < 300) return
  if (req.method !== 'HEAD') {
    let parsed: { ok?: unknown; error?: unknown; details?: unknown }
    try {
      parsed = JSON.parse(res.body)
    } catch {
      throw new Error(`non-JSON error body: ${describe(req, res.statusCode, res.body)}`)
    }
    if (parsed.ok !== false)
      throw new Error(`error body without ok:false: ${describe(req, res.statusCode, res.body)}`)
    // The unhealthy detailed health is checked on its own in auth.test.ts.
    if (!healthStatus && typeof parsed.error !== 'string')
      throw new Error(`error body without an error string: ${describe(req, res.statusCode, res.body)}`)
    if (parsed.error === 'validation_failed') {
      const details = parsed.details
      const wellFormed =
        Array.isArray(details) &&
        details.length > 0 &&
        details.every(
          (d) =>
            typeof d === 'object' &&
            d !== null &&
            Object.keys(d).sort().join() === 'field,message' &&
            typeof d.field === 'string' &&
            typeof d.message === 'string',
        )
      if (!wellFormed) throw new Error(`malformed details: ${describe(req, res.statusCode, res.body)}`)
    }
  }
  const after = await tableState(fx)
  if (after !== before)
    throw new Error(`a rejected request changed the tables: ${describe(req, res.statusCode, res.body)}`)
}

async function seed(fx: ApiFixture, agentId?: number): Promise<void> {
  const pin = agentId === undefined ? {} : { agent_id: agentId }
  const seeded = await fx.push({
    leads: [
      lead({ oli_id: 'FZ-1' }),
      lead({ oli_id: 'FZ-TICKET', priority_id: 8 }),
      lead({ oli_id: 'FZ-CB', priority_id: 2, callback_scheduled_at: '2026-11-24 10:00:00', ...pin }),
      lead({ oli_id: 'FZ-LIVE', priority_id: 8 }),
      lead({ oli_id: 'FZ-CLOSED', priority_id: 8 }),
    ],
  })
  if (seeded.statusCode !== 201) throw new Error(`seed: ${seeded.body}`)
  await fx.database.handle.db
    .updateTable('hold_dialer_master_data')
    .set({
      dial_status: 'Calling',
      isReserved: 1,
      reserved_by: 'fuzz',
      reserved_at: '2026-11-23 05:59:00.000',
    })
    .where('oli_id', '=', 'FZ-LIVE')
    .execute()
  const closed = await fx.call({
    method: 'PUT',
    url: '/api/escalated-tickets',
    payload: { oliId: 'FZ-CLOSED', status: 'Close' },
  })
  if (closed.statusCode !== 200) throw new Error(`seed: ${closed.body}`)
}

const RUNS = { push: 800, ticket: 400, callback: 400, any: 800, pinned: 400 }

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  await seed(fx)

  const property = (arb: fc.Arbitrary<FuzzRequest>, numRuns: number) =>
    fc.assert(
      fc.asyncProperty(arb, (req) => sendAndCheck(fx, req)),
      { numRuns, endOnFailure: true },
    )

  t.test('push endpoints', async (t) => {
    await property(pushRequest, RUNS.push)
    t.pass(`${RUNS.push} random pushes`)
  })
  t.test('escalated tickets', async (t) => {
    await property(ticketRequest, RUNS.ticket)
    t.pass(`${RUNS.ticket} random ticket writes`)
  })
  t.test('callback requests', async (t) => {
    await property(callbackRequest, RUNS.callback)
    t.pass(`${RUNS.callback} random callback requests`)
  })
  t.test('any method, any path', async (t) => {
    await property(anyRequest, RUNS.any)
    t.pass(`${RUNS.any} random requests`)
  })
  t.test('the live row was never touched', async (t) => {
    const row = await fx.database.handle.db
      .selectFrom('hold_dialer_master_data')
      .select(['dial_status', 'isReserved', 'reserved_by'])
      .where('oli_id', '=', 'FZ-LIVE')
      .executeTakeFirst()
    t.strictSame(row, { dial_status: 'Calling', isReserved: 1, reserved_by: 'fuzz' })
  })
})

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: 'pinned' } })
  const agent = await fx.database.handle.db
    .insertInto('dialer_employee')
    .values({ name: 'Asha', extension: '1001' })
    .executeTakeFirstOrThrow()
  await seed(fx, Number(agent.insertId))
  const pinnedLead = mutated(validLead, [...LEAD_FIELDS, 'agent_id', 'agent_id'])
  t.test('pinned mode push', async (t) => {
    await fc.assert(
      fc.asyncProperty(requestTo('POST', '/api/leads', body(pinnedLead)), (req) => sendAndCheck(fx, req)),
      { numRuns: RUNS.pinned, endOnFailure: true },
    )
    t.pass(`${RUNS.pinned} random pinned-mode pushes`)
  })
})
