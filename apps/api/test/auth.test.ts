import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { forEachDialect } from '@hold-dialer/db/testing'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import pino from 'pino'
import t, { type Test } from 'tap'
import { buildApp } from '../src/app.js'
import { apiFixture, lead, masterRow, SECRET } from './fixture.js'
import { httpText, listeningApp, rawRequest } from './raw-http.js'

type Method = NonNullable<InjectOptions['method']>

interface Endpoint {
  method: Method
  url: string
  body?: () => object
  /** The status an authorised request with `body` gets (whatever it is, it is not 401). */
  authorised: number
}

const SECURED: Endpoint[] = [
  { method: 'POST', url: '/api/leads', body: () => lead(), authorised: 201 },
  { method: 'POST', url: '/api/master', body: () => lead(), authorised: 201 },
  {
    method: 'PUT',
    url: '/api/escalated-tickets',
    body: () => ({ oliId: 'AUTH-NONE', status: 'Close' }),
    authorised: 404,
  },
  {
    method: 'POST',
    url: '/api/send-callback-request',
    body: () => ({ oliId: 'AUTH-NONE', scheduledAt: '2026-11-24 10:00:00' }),
    authorised: 404,
  },
  // No AMI in these tests, so the detailed health is unhealthy: 503, but past the secret.
  { method: 'GET', url: '/health', authorised: 503 },
  { method: 'GET', url: '/api/health', authorised: 503 },
]

const UNAUTHORISED = '{"ok":false,"error":"unauthorized"}'

/** Header sets that must not pass: none, wrong values in each header, other schemes, near misses. */
const BAD_CREDENTIALS: Record<string, string>[] = [
  {},
  { authorization: 'Bearer wrong-secret' },
  { authorization: `Bearer ${SECRET}x` },
  { authorization: `Bearer ${SECRET.slice(0, -1)}` },
  { authorization: `Bearer ${SECRET.toUpperCase()}` },
  { authorization: 'Bearer ' },
  { authorization: 'Bearer' },
  { authorization: SECRET },
  { authorization: `Basic ${SECRET}` },
  { authorization: `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}` },
  { authorization: `Basic ${Buffer.from(`${SECRET}:`).toString('base64')}` },
  { authorization: `Token ${SECRET}` },
  { 'x-api-key': 'wrong-secret' },
  { 'x-api-key': '' },
  { 'x-api-key': `Bearer ${SECRET}` },
  { 'x-access-key': 'wrong-secret' },
  { 'x-access-key': `${SECRET} ` },
  { 'x-secret': SECRET },
  { 'ws-secret': SECRET },
  { cookie: `WS_SECRET=${SECRET}` },
]

const GOOD_CREDENTIALS: Record<string, string>[] = [
  { authorization: `Bearer ${SECRET}` },
  { 'x-api-key': SECRET },
  { 'x-access-key': SECRET },
  { 'X-API-Key': SECRET },
  { 'X-Access-Key': SECRET },
]

function expectUnauthorised(t: Test, res: LightMyRequestResponse, label: string): void {
  t.equal(res.statusCode, 401, label)
  t.equal(res.body, UNAUTHORISED, label)
}

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const send = (e: Endpoint, headers: Record<string, string>, payload?: string | object) =>
    fx.call({
      method: e.method,
      url: e.url,
      auth: false,
      headers,
      ...(payload !== undefined ? { payload } : e.body ? { payload: e.body() } : {}),
    })

  t.test(
    'every secured endpoint: 401 {"ok":false,"error":"unauthorized"} without the right secret',
    async (t) => {
      for (const e of SECURED) {
        for (const headers of BAD_CREDENTIALS) {
          expectUnauthorised(t, await send(e, headers), `${e.method} ${e.url} ${JSON.stringify(headers)}`)
        }
        const viaQuery = await fx.call({ method: e.method, url: `${e.url}?api_key=${SECRET}`, auth: false })
        expectUnauthorised(t, viaQuery, `${e.url} secret in the query string`)
      }
    },
  )

  t.test('an unauthenticated push writes nothing', async (t) => {
    const body = lead()
    const res = await fx.call({ method: 'POST', url: '/api/leads', auth: false, payload: body })
    t.equal(res.statusCode, 401)
    t.equal(await masterRow(fx, body.oli_id as string), undefined)
  })

  t.test('each of the three headers carries the secret on every secured endpoint', async (t) => {
    for (const e of SECURED) {
      for (const headers of GOOD_CREDENTIALS) {
        const res = await send(e, headers)
        t.equal(res.statusCode, e.authorised, `${e.method} ${e.url} ${Object.keys(headers)[0]}`)
        t.not(res.json().error, 'unauthorized')
      }
    }
  })

  t.test('a wrong secret in one header is 401 even when another header carries the right one', async (t) => {
    // Repeated copies of one header are checked over real HTTP below (inject merges them).
    const mixed: Record<string, string>[] = [
      { authorization: 'Bearer nope', 'x-access-key': SECRET },
      { authorization: `Bearer ${SECRET}`, 'x-api-key': 'nope' },
      { 'x-api-key': SECRET, 'x-access-key': '' },
      { authorization: 'Basic abc', 'x-api-key': SECRET },
    ]
    for (const e of SECURED) {
      for (const headers of mixed) {
        const res = await fx.call({
          method: e.method,
          url: e.url,
          auth: false,
          headers,
          ...(e.body ? { payload: e.body() } : {}),
        })
        expectUnauthorised(t, res, `${e.method} ${e.url} ${JSON.stringify(headers)}`)
      }
    }
  })

  t.test('over HTTP, a repeated Authorization header with one wrong copy is 401', async (t) => {
    // Node keeps only the first Authorization header in `headers`; every copy must be checked.
    const { port } = await listeningApp(t, fx.ctx)
    const body = JSON.stringify(lead())
    for (const [copies, status] of [
      [[`Bearer ${SECRET}`, 'Bearer nope'], 401],
      [['Bearer nope', `Bearer ${SECRET}`], 401],
      [[`Bearer ${SECRET}`, `Bearer ${SECRET}`], 201],
    ] as const) {
      const res = await rawRequest(port, httpText('POST', '/api/leads', { Authorization: [...copies] }, body))
      t.equal(res.status, status, copies.join(' + '))
    }
    for (const [copies, status] of [
      [[SECRET, 'nope'], 401],
      [['nope', SECRET], 401],
      [[SECRET, SECRET], 201],
    ] as const) {
      const res = await rawRequest(port, httpText('POST', '/api/leads', { 'X-API-Key': [...copies] }, body))
      t.equal(res.status, status, `X-API-Key ${copies.join(' + ')}`)
    }
  })

  t.test('every header right is accepted: all three, any case of Bearer', async (t) => {
    for (const headers of [
      { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET, 'x-access-key': SECRET },
      { authorization: `bearer ${SECRET}` },
      { authorization: `BEARER   ${SECRET}` },
    ]) {
      const res = await fx.call({ method: 'POST', url: '/api/leads', auth: false, headers, payload: lead() })
      t.equal(res.statusCode, 201, JSON.stringify(headers))
    }
  })

  t.test('/healthz and /openapi.json need no secret', async (t) => {
    const healthz = await fx.call({ method: 'GET', url: '/healthz', auth: false })
    t.equal(healthz.statusCode, 200)
    t.strictSame(healthz.json(), { ok: false, ami: false, db: true })
    const wrong = await fx.call({
      method: 'GET',
      url: '/healthz',
      auth: false,
      headers: { 'x-api-key': 'nope' },
    })
    t.equal(wrong.statusCode, 200, 'a wrong secret on a public endpoint is ignored')
    t.equal((await fx.call({ method: 'GET', url: '/openapi.json', auth: false })).statusCode, 200)
  })

  t.test('an unhealthy detailed health (503) carries ok:false and an error string', async (t) => {
    for (const url of ['/health', '/api/health']) {
      const res = await fx.call({ method: 'GET', url })
      t.equal(res.statusCode, 503)
      t.equal(res.json().ok, false)
      t.type(res.json().error, 'string', 'the spec: all error bodies carry ok:false and an error string')
    }
  })

  t.test('unknown paths and wrong methods are 404 not_found, before the secret is checked', async (t) => {
    const notFound = { ok: false, error: 'not_found' }
    const cases: [Method, string][] = [
      ['GET', '/api/nope'],
      ['POST', '/api/nope'],
      ['GET', '/api/leads/OLI-1'],
      ['POST', '/api/leads/'],
      ['POST', '/api/lead'],
      ['GET', '/api/leads'],
      ['DELETE', '/api/leads'],
      ['PATCH', '/api/leads'],
      ['PUT', '/api/leads'],
      ['GET', '/api/master'],
      ['DELETE', '/api/master'],
      ['PATCH', '/api/master'],
      ['GET', '/api/escalated-tickets'],
      ['POST', '/api/escalated-tickets'],
      ['DELETE', '/api/escalated-tickets'],
      ['GET', '/api/send-callback-request'],
      ['PUT', '/api/send-callback-request'],
      ['POST', '/health'],
      ['DELETE', '/api/health'],
      ['POST', '/healthz'],
      ['GET', '/nope'],
    ]
    for (const [method, url] of cases) {
      for (const auth of [false, true]) {
        const plain = await fx.call({ method, url, auth })
        t.equal(plain.statusCode, 404, `${method} ${url} auth=${auth}`)
        t.strictSame(plain.json(), notFound)
      }
      if (method === 'GET') continue
      // A body of any kind does not change that: the route is checked first.
      for (const payload of ['{', JSON.stringify(lead()), ' '.repeat(2 * 1024 * 1024)]) {
        const res = await fx.call({ method, url, auth: false, payload })
        t.equal(res.statusCode, 404, `${method} ${url} with a body of ${payload.length} bytes`)
        t.strictSame(res.json(), notFound)
      }
    }
  })

  t.test('an unauthenticated request with a bad or oversized body is 401, not 400 or 413', async (t) => {
    for (const e of SECURED.filter((x) => x.method !== 'GET')) {
      for (const payload of ['{', '', 'x', '[]', ' '.repeat(2 * 1024 * 1024)]) {
        expectUnauthorised(t, await send(e, {}, payload), `${e.url} body ${payload.slice(0, 5)}`)
        expectUnauthorised(t, await send(e, { 'x-api-key': 'wrong' }, payload), e.url)
      }
    }
  })

  t.test('an unauthenticated body is never read: the 401 comes before the body is sent', async (t) => {
    const server = await buildApp(fx.ctx)
    t.teardown(() => server.close())
    await server.listen({ port: 0, host: '127.0.0.1' })
    const { port } = server.server.address() as AddressInfo
    for (const [method, path] of [
      ['POST', '/api/leads'],
      ['PUT', '/api/escalated-tickets'],
    ] as const) {
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: { 'content-type': 'application/json', 'content-length': '100000', 'x-api-key': 'wrong' },
        })
        req.on('error', reject)
        req.on('response', (response) => {
          let body = ''
          response.setEncoding('utf8')
          response.on('data', (c: string) => {
            body += c
          })
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body })
            req.destroy()
          })
        })
        // Only a fraction of the announced body is ever sent.
        req.write('{"oli_id":')
      })
      t.equal(res.status, 401, path)
      t.equal(res.body, UNAUTHORISED)
    }
  })

  t.test('the secret never appears in a log line, even at trace level', async (t) => {
    const lines: string[] = []
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) })
    const logged = await buildApp(fx.ctx, { logger })
    t.teardown(() => logged.close())
    const call = (headers: Record<string, string>, options: Partial<InjectOptions> = {}) =>
      logged.inject({ method: 'POST', url: '/api/leads', payload: lead(), headers, ...options })
    for (const headers of [...GOOD_CREDENTIALS, ...BAD_CREDENTIALS]) {
      await call(headers)
      await call(headers, { payload: '{' })
      await call(headers, { payload: { leads: [] } })
      await call(headers, { method: 'GET', url: '/health' })
      await call(headers, {
        method: 'PUT',
        url: '/api/escalated-tickets',
        payload: { oliId: 'X', status: 'Close' },
      })
      await call(headers, { method: 'GET', url: '/api/nope' })
      await call(headers, { payload: ' '.repeat(2 * 1024 * 1024) })
    }
    t.ok(lines.length > 100, `the logger saw the requests (${lines.length} lines)`)
    t.ok(
      lines.some((l) => l.includes('"route":"/api/leads"')),
      'request lines are logged',
    )
    const leaking = lines.filter((l) => l.includes(SECRET))
    t.strictSame(leaking, [], 'no line holds the secret')
  })
})
