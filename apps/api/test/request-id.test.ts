import { forEachDialect } from '@hold-dialer/db/testing'
import pino from 'pino'
import t from 'tap'
import { buildApp } from '../src/app.js'
import { ApiMetrics } from '../src/metrics.js'
import { AUTH, apiFixture, lead } from './fixture.js'
import { httpText, listeningApp, rawRequest } from './raw-http.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)

  t.test('a well-formed X-Request-Id is kept and returned; otherwise a fresh UUID', async (t) => {
    for (const id of ['abc-123', 'A.b_C-9', 'x'.repeat(64), 'req-1']) {
      const res = await fx.call({
        method: 'POST',
        url: '/api/leads',
        payload: lead(),
        headers: { 'x-request-id': id },
      })
      t.equal(res.statusCode, 201)
      t.equal(res.headers['x-request-id'], id, id)
    }
    const seen = new Set<string>()
    for (const id of [undefined, '', 'x'.repeat(65), 'has space', 'semi;colon', 'ünï', '../etc', 'a/b']) {
      const res = await fx.call({
        method: 'POST',
        url: '/api/leads',
        payload: lead(),
        headers: id === undefined ? {} : { 'x-request-id': id },
      })
      const given = String(res.headers['x-request-id'])
      t.match(given, UUID, `${JSON.stringify(id)} -> ${given}`)
      t.notOk(seen.has(given), 'never repeated')
      seen.add(given)
    }
  })

  t.test('every answer carries its id: 2xx, 4xx, 404, 500-type bodies name the same one', async (t) => {
    for (const [method, url, payload, auth] of [
      ['POST', '/api/leads', lead(), true],
      ['POST', '/api/leads', '{', true],
      ['POST', '/api/leads', lead(), false],
      ['GET', '/nope', undefined, true],
      ['GET', '/healthz', undefined, false],
      ['PUT', '/api/escalated-tickets', { oliId: 'RID-NONE', status: 'Close' }, true],
    ] as const) {
      const res = await fx.call({
        method,
        url,
        auth,
        headers: { 'x-request-id': 'trace-me' },
        ...(payload === undefined ? {} : { payload }),
      })
      t.equal(res.headers['x-request-id'], 'trace-me', `${method} ${url} ${res.statusCode}`)
    }
  })

  t.test('the id is on every log line of the request', async (t) => {
    const lines: Record<string, unknown>[] = []
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const app = await buildApp(fx.ctx, { logger })
    t.teardown(() => app.close())
    await app.inject({
      method: 'POST',
      url: '/api/leads',
      payload: '{',
      headers: { ...AUTH, 'x-request-id': 'log-me' },
    })
    const mine = lines.filter((l) => l.reqId === 'log-me')
    t.ok(
      mine.some((l) => l.msg === 'request'),
      `its request line among the ${mine.length} line(s) with its id`,
    )
    const requestLines = lines.filter((l) => 'req' in l || 'res' in l || l.msg === 'request')
    t.ok(
      requestLines.every((l) => l.reqId === 'log-me'),
      'no request line without it',
    )
  })

  t.test('one line per request, at REQUEST_LOG_LEVEL (silent: none), without headers', async (t) => {
    for (const level of ['info', 'debug', 'silent'] as const) {
      const lines: Record<string, unknown>[] = []
      const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
      const app = await buildApp(
        { ...fx.ctx, config: { ...fx.ctx.config, requestLogLevel: level } },
        { logger },
      )
      await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': `level-${level}` } })
      await app.close()
      const requests = lines.filter((l) => l.msg === 'request')
      if (level === 'silent') {
        t.equal(requests.length, 0, 'silent: no request line')
        continue
      }
      t.equal(requests.length, 1, `${level}: one line`)
      t.match(requests[0], {
        level: pino.levels.values[level],
        reqId: `level-${level}`,
        method: 'GET',
        route: '/healthz',
        status: 200,
      })
      t.type(requests[0]?.ms, 'number')
      t.notOk(
        lines.some((l) => 'req' in l || 'res' in l),
        "Fastify's own request lines (with the headers) are off",
      )
    }
  })

  t.test('ids of answers sent before any route (HTTP parser errors) are UUIDs too', async (t) => {
    const { port } = await listeningApp(t, fx.ctx)
    const res = await rawRequest(port, httpText('POST', '/api/leads', { 'Content-Length': 'abc' }))
    t.equal(res.status, 400)
    t.match(res.headers['x-request-id'], UUID)
  })

  t.test('hold_dialer_api_responses_total counts every answer by route pattern and status', async (t) => {
    const counts = async () => {
      const metrics = await fx.ctx.metrics.snapshot()
      return (route: string, status: number) =>
        metrics[`hold_dialer_api_responses_total{route=${route},status=${status}}`] ?? 0
    }
    const before = await counts()
    await fx.push(lead())
    await fx.push(lead())
    await fx.call({ method: 'POST', url: '/api/master', payload: '{' })
    await fx.call({ method: 'POST', url: '/api/leads', auth: false, payload: lead() })
    await fx.call({ method: 'GET', url: '/api/leads/some-id-that-must-not-become-a-label' })
    await fx.call({ method: 'GET', url: '/healthz' })
    const after = await counts()
    t.equal(after('/api/leads', 201) - before('/api/leads', 201), 2)
    t.equal(after('/api/master', 400) - before('/api/master', 400), 1)
    t.equal(after('/api/leads', 401) - before('/api/leads', 401), 1)
    t.equal(after('not_found', 404) - before('not_found', 404), 1)
    t.equal(after('/healthz', 200) - before('/healthz', 200), 1)
    const text = await fx.ctx.metrics.registry.metrics()
    t.notMatch(text, /some-id-that-must-not-become-a-label/, 'raw paths never become labels')
    const served = await fx.call({ method: 'GET', url: '/metrics' })
    t.match(served.body, /hold_dialer_api_responses_total\{route="\/api\/leads",status="201"\} \d+/)
  })

  t.test(
    'hold_dialer_api_request_duration_seconds times each answer by route pattern and status',
    async (t) => {
      await fx.call({ method: 'GET', url: '/api/leads/some-lead-id' })
      await fx.push(lead())
      const text = await fx.ctx.metrics.registry.metrics()
      t.match(
        text,
        /hold_dialer_api_request_duration_seconds_count\{route="\/api\/leads",status="201"\} [1-9]/,
      )
      t.match(
        text,
        /hold_dialer_api_request_duration_seconds_bucket\{le="\+Inf",route="\/api\/leads",status="201"\}/,
      )
      t.match(text, /hold_dialer_api_request_duration_seconds_count\{route="not_found",status="404"\} [1-9]/)
      t.notMatch(text, /some-lead-id/, 'the route pattern, never the raw URL')
      const health = await fx.ctx.metrics.snapshot()
      t.notOk(
        Object.keys(health).some((k) => k.includes('duration')),
        'the health body keeps the counters only',
      )
    },
  )

  t.test('a server registry has the process defaults', async (t) => {
    const metrics = new ApiMetrics({ defaultMetrics: true })
    const text = await metrics.registry.metrics()
    t.match(text, /^process_cpu_user_seconds_total /m)
    t.match(text, /^nodejs_eventloop_lag_seconds /m)
    t.match(text, /^process_resident_memory_bytes /m)
    t.notMatch(await new ApiMetrics().registry.metrics(), /process_cpu/, 'none unless asked')
  })
})
