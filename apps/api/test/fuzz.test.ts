import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { forEachDialect } from '@hold-dialer/db/testing'
import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import t, { type Test } from 'tap'
import { type ApiFixture, apiFixture, lead } from './fixture.js'
import {
  byteEdits,
  callbackBody,
  contentEncoding,
  contentType,
  credentials,
  LEAD_FIELDS,
  mutated,
  pushBody,
  randomHeaders,
  rawText,
  requestId,
  SEEDED,
  ticketBody,
  validLead,
  withSecret,
} from './fuzz/arbitraries.js'
import { type Answer, answerProblem, firstDifference, tableState } from './fuzz/check.js'
import { httpText, listeningApp, rawRequest } from './raw-http.js'

/**
 * Random and mutated requests against the whole API, on both databases: JSON bodies of every kind
 * through `inject`, and valid pushes, tickets and callback requests mutated byte by byte and header
 * by header over real HTTP (so Node's own parser is in the way too). Whatever is sent: never a 5xx
 * (but the unhealthy detailed health's 503), every body in the contract's shape, and a rejected
 * request leaves the master and disposed tables exactly as they were.
 *
 * Seeded: FUZZ_SEED (default below) makes a run repeatable; a failure prints its seed and path.
 * CI runs the fixed counts of RUNS (a few seconds); FUZZ_SECONDS=N runs each property for N
 * seconds instead, and the count of requests each sent is printed either way.
 */

const SEED = Number(process.env.FUZZ_SEED || 20261124)
const SECONDS = Number(process.env.FUZZ_SECONDS || 0)
const RUNS = {
  push: 500,
  ticket: 250,
  callback: 250,
  any: 500,
  pinned: 250,
  wirePush: 300,
  wireTicket: 150,
  wireCallback: 150,
}

let properties = 0
/** Runs `check` on generated values and reports how many it sent. */
async function property<V>(
  t: Test,
  name: string,
  arb: fc.Arbitrary<V>,
  runs: number,
  check: (value: V) => Promise<void>,
): Promise<void> {
  properties += 1
  const seed = SEED + properties
  let count = 0
  await fc.assert(
    fc.asyncProperty(arb, async (value) => {
      count += 1
      await check(value)
    }),
    SECONDS > 0
      ? {
          seed,
          numRuns: Number.MAX_SAFE_INTEGER,
          interruptAfterTimeLimit: SECONDS * 1000,
          markInterruptAsFailure: false,
          endOnFailure: true,
        }
      : { seed, numRuns: runs, endOnFailure: true },
  )
  t.comment(`${name}: ${count} requests (seed ${seed})`)
  t.pass(`${name}: ${count} requests`)
}

// ---- JSON level, through inject ---------------------------------------------------------------

type Method = NonNullable<InjectOptions['method']>

interface FuzzRequest {
  method: Method
  url: string
  payload?: string
  headers: Record<string, string>
  remoteAddress: string
}

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

function describe(method: string, url: string, answer: Answer, payload: unknown): string {
  return `${method} ${url} -> ${answer.status} ${answer.body.slice(0, 300)} (payload ${String(JSON.stringify(payload)).slice(0, 300)})`
}

async function injectAndCheck(fx: ApiFixture, req: FuzzRequest): Promise<void> {
  const before = await tableState(fx.database.handle.kysely)
  const res = await fx.app.inject({
    method: req.method,
    url: req.url,
    headers: req.headers,
    remoteAddress: req.remoteAddress,
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
  })
  const answer = { status: res.statusCode, body: res.body, headers: res.headers }
  const path = req.url.split('?')[0] ?? ''
  const problem = answerProblem(answer, { method: req.method, path, requestId: req.headers['x-request-id'] })
  if (problem) throw new Error(`${problem}: ${describe(req.method, req.url, answer, req.payload)}`)
  if (res.statusCode >= 200 && res.statusCode < 300) return
  const after = await tableState(fx.database.handle.kysely)
  if (after !== before)
    throw new Error(
      `a rejected request changed the tables: ${describe(req.method, req.url, answer, req.payload)}: ${firstDifference(before, after)}`,
    )
}

// ---- byte and header level, over HTTP ---------------------------------------------------------

interface WireRequest {
  method: string
  path: string
  headers: Record<string, string | string[]>
  body: Buffer
  requestId: string | undefined
}

const ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: gzipSync,
  'x-gzip': gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
}

/** A valid request (`valid`) mutated: its body's bytes, its Content-Type and Content-Encoding, its headers. */
function onTheWire(
  method: string,
  paths: readonly string[],
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<WireRequest> {
  return fc
    .record({
      path: fc.constantFrom(...paths),
      value: valid,
      edit: fc.option(byteEdits, { freq: 2, nil: undefined }),
      type: fc.option(contentType, { nil: undefined }),
      encoding: contentEncoding,
      editEncoded: fc.option(byteEdits, { freq: 6, nil: undefined }),
      credentials,
      requestId,
      extra: randomHeaders,
      chunked: fc.boolean(),
      client: fc.ipV4(),
    })
    .map((r) => {
      let bytes: Buffer = Buffer.from(JSON.stringify(r.value))
      if (r.edit) bytes = r.edit(bytes)
      const encode = r.encoding === undefined ? undefined : ENCODERS[r.encoding.toLowerCase()]
      if (encode) bytes = encode(bytes)
      if (encode && r.editEncoded) bytes = r.editEncoded(bytes)
      const { 'x-request-id': randomId, ...extra } = r.extra
      const sentId = r.requestId ?? randomId
      const headers: Record<string, string | string[]> = { ...extra, ...r.credentials }
      if (r.type !== undefined) headers['Content-Type'] = r.type
      if (r.encoding !== undefined) headers['Content-Encoding'] = r.encoding
      if (sentId !== undefined) headers['X-Request-Id'] = sentId
      // Last, so it is the nearest address whatever a random header put before it.
      headers['X-Forwarded-For'] = r.client
      let body = bytes
      if (r.chunked) {
        headers['Transfer-Encoding'] = 'chunked'
        const half = Math.floor(bytes.length / 2)
        const chunk = (b: Buffer) =>
          b.length === 0 ? [] : [Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]
        body = Buffer.concat([
          ...chunk(bytes.subarray(0, half)),
          ...chunk(bytes.subarray(half)),
          Buffer.from('0\r\n\r\n'),
        ])
      }
      return { method, path: r.path, headers, body, requestId: sentId }
    })
}

const validPush = fc.oneof(
  validLead,
  fc.array(validLead, { minLength: 1, maxLength: 4 }).map((leads) => ({ leads })),
)
const validTicket = fc.record({
  oliId: fc.constantFrom(...SEEDED),
  status: fc.constantFrom('Close', 'Callback Schedule', ' callback  SCHEDULE '),
  scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24t10:00:00z', '2026-11-24T10:00:00+05:30'),
})
const validCallback = fc.record({
  oliId: fc.constantFrom(...SEEDED),
  scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24T10:00:00Z'),
})

async function sendAndCheck(fx: ApiFixture, port: number, req: WireRequest): Promise<void> {
  const before = await tableState(fx.database.handle.kysely)
  const res = await rawRequest(port, httpText(req.method, req.path, req.headers, req.body))
  // HTTP drops white space around a header's value before the server sees it.
  const problem = answerProblem(res, { method: req.method, path: req.path, requestId: req.requestId?.trim() })
  const shown = () =>
    `${req.method} ${req.path} ${JSON.stringify(req.headers)} ${JSON.stringify(req.body.toString('latin1').slice(0, 200))} -> ${res.status} ${res.body.slice(0, 300)}`
  if (problem) throw new Error(`${problem}: ${shown()}`)
  if (res.status >= 200 && res.status < 300) return
  const after = await tableState(fx.database.handle.kysely)
  if (after !== before)
    throw new Error(`a rejected request changed the tables: ${shown()}: ${firstDifference(before, after)}`)
}

/**
 * A listening server for the HTTP runs. It trusts the test's own address as a proxy, so each
 * request's X-Forwarded-For gives it a client address of its own and the rate limit stays out of
 * the way of the checks.
 */
async function wireServer(t: Test, fx: ApiFixture): Promise<number> {
  const ctx = { ...fx.ctx, config: { ...fx.ctx.config, trustProxy: ['127.0.0.1'] } }
  const { port } = await listeningApp(t, ctx, { requestTimeoutMs: 2_000 })
  return port
}

// ---- the runs ---------------------------------------------------------------------------------

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
  await fx.database.handle.kysely
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

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  await seed(fx)
  const inject = (req: FuzzRequest) => injectAndCheck(fx, req)

  await t.test('JSON level: push endpoints', (t) => property(t, 'push', pushRequest, RUNS.push, inject))
  await t.test('JSON level: escalated tickets', (t) =>
    property(t, 'ticket', ticketRequest, RUNS.ticket, inject),
  )
  await t.test('JSON level: callback requests', (t) =>
    property(t, 'callback', callbackRequest, RUNS.callback, inject),
  )
  await t.test('JSON level: any method, any path', (t) => property(t, 'any', anyRequest, RUNS.any, inject))

  const wire = async (t: Test, name: string, arb: fc.Arbitrary<WireRequest>, runs: number) => {
    const port = await wireServer(t, fx)
    await property(t, name, arb, runs, (req) => sendAndCheck(fx, port, req))
  }
  await t.test('bytes and headers: pushes over HTTP', (t) =>
    wire(t, 'wire push', onTheWire('POST', ['/api/leads', '/api/master'], validPush), RUNS.wirePush),
  )
  await t.test('bytes and headers: tickets over HTTP', (t) =>
    wire(t, 'wire ticket', onTheWire('PUT', ['/api/escalated-tickets'], validTicket), RUNS.wireTicket),
  )
  await t.test('bytes and headers: callback requests over HTTP', (t) =>
    wire(
      t,
      'wire callback',
      onTheWire('POST', ['/api/send-callback-request'], validCallback),
      RUNS.wireCallback,
    ),
  )

  await t.test('the live row was never touched', async (t) => {
    const row = await fx.database.handle.kysely
      .selectFrom('hold_dialer_master_data')
      .select(['dial_status', 'isReserved', 'reserved_by'])
      .where('oli_id', '=', 'FZ-LIVE')
      .executeTakeFirst()
    t.strictSame(row, { dial_status: 'Calling', isReserved: 1, reserved_by: 'fuzz' })
  })
})

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: 'pinned' } })
  const agent = await fx.database.handle.kysely
    .insertInto('dialer_employee')
    .values({ name: 'Asha', extension: '1001' })
    .executeTakeFirstOrThrow()
  await seed(fx, Number(agent.insertId))
  const pinnedLead = mutated(validLead, [...LEAD_FIELDS, 'agent_id', 'agent_id'])
  await t.test('pinned mode push', (t) =>
    property(t, 'pinned push', requestTo('POST', '/api/leads', body(pinnedLead)), RUNS.pinned, (req) =>
      injectAndCheck(fx, req),
    ),
  )
  await t.test('pinned mode push over HTTP', async (t) => {
    const port = await wireServer(t, fx)
    const valid = validLead.map((l) => ({ ...l, agent_id: Number(agent.insertId) }))
    await property(t, 'pinned wire push', onTheWire('POST', ['/api/leads'], valid), RUNS.wirePush, (req) =>
      sendAndCheck(fx, port, req),
    )
  })
})
