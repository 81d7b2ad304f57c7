import { forEachDialect } from '@hold-dialer/db/testing'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

const LIMIT = 120
const REDIS_URL = 'redis://127.0.0.1:6379'

/**
 * The limiter's window runs on `Date.now()`; stopping that clock at a later instant stands in for
 * waiting (no sleeps). Restored when the test ends.
 */
const realDateNow = Date.now
function freezeDateNowAt(t: Test, at: number): void {
  Date.now = () => at
  t.teardown(() => {
    Date.now = realDateNow
  })
}

/** The two rate-limited endpoints, both on one priority-8 row. */
type Endpoint = 'ticket' | 'callback'

function limitedRequest(endpoint: Endpoint, oliId: string, minute = 0): InjectOptions {
  const scheduledAt = `2026-11-24 10:${String(minute % 60).padStart(2, '0')}:00`
  return endpoint === 'ticket'
    ? {
        method: 'PUT',
        url: '/api/escalated-tickets',
        payload: { oliId, status: 'Callback Schedule', scheduledAt },
      }
    : { method: 'POST', url: '/api/send-callback-request', payload: { oliId, scheduledAt } }
}

async function escalatedLead(fx: ApiFixture, oliId: string): Promise<void> {
  const res = await fx.push(lead({ oli_id: oliId, priority_id: 8 }))
  if (res.statusCode !== 201) throw new Error(`push failed: ${res.body}`)
}

/** Sends `count` requests one after the other and returns their status codes. */
async function send(
  fx: ApiFixture,
  count: number,
  make: (i: number) => InjectOptions & { auth?: boolean },
): Promise<number[]> {
  const codes: number[] = []
  for (let i = 0; i < count; i++) codes.push((await fx.call(make(i))).statusCode)
  return codes
}

function expectRateLimited(t: Test, res: LightMyRequestResponse, what: string): void {
  t.equal(res.statusCode, 429, what)
  t.strictSame(res.json(), { ok: false, error: 'rate_limited' }, `${what}: body`)
  const retryAfter = Number(res.headers['retry-after'])
  t.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `${what}: Retry-After is 1-60 s (${res.headers['retry-after']})`,
  )
}

const all = (codes: number[], code: number) => codes.every((c) => c === code)

forEachDialect(t, async (t, database) => {
  for (const endpoint of ['ticket', 'callback'] as const) {
    t.test(
      `${endpoint}: 120 requests pass, the 121st within the window is 429 and writes nothing`,
      async (t) => {
        const fx = await apiFixture(t, database)
        const oliId = `RL-${endpoint}-1`
        await escalatedLead(fx, oliId)
        // The window opens at the first request, somewhere between these two readings.
        const firstSent = Date.now()
        const first = await fx.call(limitedRequest(endpoint, oliId))
        const firstAnswered = Date.now()
        const codes = [
          first.statusCode,
          ...(await send(fx, LIMIT - 1, (i) => limitedRequest(endpoint, oliId, i))),
        ]
        t.ok(all(codes, 200), `the first ${LIMIT} answer 200 (${[...new Set(codes)]})`)
        const before = await masterRow(fx, oliId)
        const res = await fx.call(limitedRequest(endpoint, oliId, 59))
        expectRateLimited(t, res, '121st')
        t.strictSame(await masterRow(fx, oliId), before, 'the limited request changed nothing')
        expectRateLimited(t, await fx.call(limitedRequest(endpoint, oliId, 58)), '122nd')

        // The window is 60 s: still limited just before it ends, open again once it has passed.
        freezeDateNowAt(t, firstSent + 59_000)
        expectRateLimited(t, await fx.call(limitedRequest(endpoint, oliId)), '59 s after the first')
        freezeDateNowAt(t, firstAnswered + 60_000)
        t.equal((await fx.call(limitedRequest(endpoint, oliId))).statusCode, 200, '60 s after the first')
      },
    )
  }

  t.test('one bucket per IP shared by both endpoints: 60 + 60, then either is 429', async (t) => {
    const fx = await apiFixture(t, database)
    await escalatedLead(fx, 'RL-SHARED')
    const tickets = await send(fx, 60, (i) => limitedRequest('ticket', 'RL-SHARED', i))
    const callbacks = await send(fx, 60, (i) => limitedRequest('callback', 'RL-SHARED', i))
    t.ok(all(tickets, 200) && all(callbacks, 200), 'the first 120 pass')
    expectRateLimited(t, await fx.call(limitedRequest('ticket', 'RL-SHARED')), 'ticket after 60 + 60')
    expectRateLimited(t, await fx.call(limitedRequest('callback', 'RL-SHARED')), 'callback after 60 + 60')
  })

  t.test('errors count too: 404 and 400 answers use up the bucket', async (t) => {
    const fx = await apiFixture(t, database)
    await escalatedLead(fx, 'RL-ERR')
    const unknown = await send(fx, 60, () => limitedRequest('callback', 'RL-NOBODY'))
    const invalid = await send(fx, 59, () => ({
      method: 'PUT',
      url: '/api/escalated-tickets',
      payload: { oliId: 'RL-ERR', status: 'Reopen' },
    }))
    t.ok(all(unknown, 404) && all(invalid, 400))
    t.equal((await fx.call(limitedRequest('ticket', 'RL-ERR'))).statusCode, 200, '120th')
    expectRateLimited(t, await fx.call(limitedRequest('ticket', 'RL-ERR')), '121st')
  })

  t.test('another IP has its own bucket', async (t) => {
    const fx = await apiFixture(t, database)
    await escalatedLead(fx, 'RL-IP')
    t.ok(all(await send(fx, LIMIT, (i) => limitedRequest('callback', 'RL-IP', i)), 200))
    expectRateLimited(t, await fx.call(limitedRequest('callback', 'RL-IP')), 'first IP')
    const other = await fx.call({ ...limitedRequest('ticket', 'RL-IP'), remoteAddress: '10.1.2.3' })
    t.equal(other.statusCode, 200, 'a second IP still passes')
    expectRateLimited(t, await fx.call(limitedRequest('ticket', 'RL-IP')), 'first IP still limited')
  })

  t.test('TRUST_PROXY=true: the client IP comes from X-Forwarded-For', async (t) => {
    const fx = await apiFixture(t, database, { env: { TRUST_PROXY: 'true' } })
    await escalatedLead(fx, 'RL-XFF')
    const from = (ip: string, i = 0) => ({
      ...limitedRequest(i % 2 === 0 ? 'ticket' : 'callback', 'RL-XFF', i),
      remoteAddress: '10.0.0.1',
      headers: { 'x-forwarded-for': ip },
    })
    t.ok(all(await send(fx, LIMIT, (i) => from('203.0.113.7', i)), 200))
    expectRateLimited(t, await fx.call(from('203.0.113.7')), '203.0.113.7')
    t.equal((await fx.call(from('203.0.113.8'))).statusCode, 200, 'another forwarded client')
    t.equal(
      (await fx.call({ ...limitedRequest('ticket', 'RL-XFF'), remoteAddress: '10.0.0.1' })).statusCode,
      200,
      'the proxy itself is yet another bucket',
    )
  })

  for (const [setting, proxy] of [
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.0/8, 192.168.0.1', '10.4.5.6'],
    ['1', '10.0.0.1'],
  ] as const) {
    t.test(
      `TRUST_PROXY=${setting}: a client writing its own X-Forwarded-For cannot open new buckets`,
      async (t) => {
        const fx = await apiFixture(t, database, { env: { TRUST_PROXY: setting } })
        await escalatedLead(fx, 'RL-SPOOF')
        // The proxy appends the address it saw (203.0.113.9); whatever the client put before it is
        // its own writing, and differs each time.
        const spoofed = (i: number) => ({
          ...limitedRequest(i % 2 === 0 ? 'ticket' : 'callback', 'RL-SPOOF', i),
          remoteAddress: proxy,
          headers: { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.9` },
        })
        t.ok(all(await send(fx, LIMIT, spoofed), 200), `${LIMIT} pass`)
        expectRateLimited(t, await fx.call(spoofed(LIMIT)), 'the 121st, with yet another made-up address')
        const other = await fx.call({
          ...limitedRequest('ticket', 'RL-SPOOF'),
          remoteAddress: proxy,
          headers: { 'x-forwarded-for': '203.0.113.10' },
        })
        t.equal(other.statusCode, 200, 'another client behind the same proxy has its own bucket')
        if (setting !== '1') {
          // (A hop count trusts whoever is one hop away; only addresses tell a proxy from a client.)
          const direct = await fx.call({
            ...limitedRequest('ticket', 'RL-SPOOF'),
            remoteAddress: '203.0.113.9',
            headers: { 'x-forwarded-for': '198.51.100.77' },
          })
          t.equal(direct.statusCode, 429, 'a client that is not a trusted proxy is its own address')
        }
      },
    )
  }

  t.test('without TRUST_PROXY, X-Forwarded-For is ignored', async (t) => {
    const fx = await apiFixture(t, database)
    await escalatedLead(fx, 'RL-NOXFF')
    const codes = await send(fx, LIMIT, (i) => ({
      ...limitedRequest('callback', 'RL-NOXFF', i),
      headers: { 'x-forwarded-for': `198.51.100.${i}` },
    }))
    t.ok(all(codes, 200))
    const res = await fx.call({
      ...limitedRequest('callback', 'RL-NOXFF'),
      headers: { 'x-forwarded-for': '198.51.100.250' },
    })
    expectRateLimited(t, res, 'a new X-Forwarded-For value does not open a new bucket')
  })

  t.test(
    'unauthenticated requests get 401, do not use up the bucket, and stay 401 once it is full',
    async (t) => {
      const fx = await apiFixture(t, database)
      await escalatedLead(fx, 'RL-AUTH')
      const anonymous = await send(fx, 150, (i) => ({
        ...limitedRequest(i % 2 === 0 ? 'ticket' : 'callback', 'RL-AUTH', i),
        auth: false,
        headers: i % 3 === 0 ? { 'x-api-key': 'wrong' } : {},
      }))
      t.ok(all(anonymous, 401), '150 unauthenticated requests are 401')
      t.ok(all(await send(fx, LIMIT, (i) => limitedRequest('ticket', 'RL-AUTH', i)), 200), 'then 120 pass')
      expectRateLimited(t, await fx.call(limitedRequest('ticket', 'RL-AUTH')), '121st authenticated')
      const late = await fx.call({ ...limitedRequest('ticket', 'RL-AUTH'), auth: false })
      t.equal(late.statusCode, 401, 'the secret is checked before the limit')
      t.strictSame(late.json(), { ok: false, error: 'unauthorized' })
    },
  )

  t.test('lead pushes are never limited and do not use up the bucket', async (t) => {
    const fx = await apiFixture(t, database)
    await escalatedLead(fx, 'RL-PUSH')
    const pushes = await send(fx, 130, (i) => ({
      method: 'POST',
      url: i % 2 === 0 ? '/api/leads' : '/api/master',
      payload: lead({ oli_id: `RL-PUSH-${i % 7}` }),
    }))
    t.ok(all(pushes, 201), '130 pushes')
    t.ok(all(await send(fx, LIMIT, (i) => limitedRequest('callback', 'RL-PUSH', i)), 200), 'then 120 pass')
    expectRateLimited(t, await fx.call(limitedRequest('callback', 'RL-PUSH')), '121st')
    const after = await fx.push({ leads: [lead(), lead()] })
    t.equal(after.statusCode, 201, 'a push still passes once the bucket is full')
  })

  t.test('with Redis, two API instances on one database share one limit', async (t) => {
    // A namespace of our own, so the test neither sees nor removes anyone else's keys.
    const prefix = `hold-dialer-test:${process.pid}:${database.dialect}:${Date.now()}:`
    const clients = [new Redis(REDIS_URL, { keyPrefix: prefix }), new Redis(REDIS_URL, { keyPrefix: prefix })]
    const admin = new Redis(REDIS_URL)
    t.teardown(async () => {
      const keys = await admin.keys(`${prefix}*`)
      if (keys.length > 0) await admin.del(...keys)
      await admin.quit()
      for (const c of clients) await c.quit()
    })
    const a = await apiFixture(t, database, { redis: clients[0]! })
    const b = await apiFixture(t, database, { redis: clients[1]! })
    await escalatedLead(a, 'RL-REDIS')

    t.ok(all(await send(a, 60, (i) => limitedRequest('ticket', 'RL-REDIS', i)), 200), '60 via A')
    t.ok(all(await send(b, 60, (i) => limitedRequest('callback', 'RL-REDIS', i)), 200), '60 via B')
    expectRateLimited(t, await b.call(limitedRequest('callback', 'RL-REDIS')), '61st via B')
    expectRateLimited(t, await a.call(limitedRequest('ticket', 'RL-REDIS')), 'and A agrees')
    t.equal(
      (await a.call({ ...limitedRequest('ticket', 'RL-REDIS'), remoteAddress: '10.9.8.7' })).statusCode,
      200,
      'another IP passes',
    )
    const keys = await admin.keys(`${prefix}*`)
    t.ok(keys.length >= 1, 'the counters live in Redis')
  })

  t.test('Redis unreachable: the limit falls open rather than failing the writes', async (t) => {
    // The authenticated callers are our own CRM: an outage of the limiter must not stop
    // ticket and callback writes (server.ts logs the Redis error).
    const broken = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    broken.on('error', () => {})
    t.teardown(() => broken.disconnect())
    const fx = await apiFixture(t, database, { redis: broken })
    await escalatedLead(fx, 'RL-REDIS-DOWN')
    const codes = await send(fx, LIMIT + 5, (i) => limitedRequest('callback', 'RL-REDIS-DOWN', i))
    t.ok(all(codes, 200), `all ${LIMIT + 5} answered 200 (${[...new Set(codes)]})`)
  })
})
