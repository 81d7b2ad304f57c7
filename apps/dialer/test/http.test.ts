// The dialer's own HTTP listener: /healthz for anyone, the rest only with DIALER_HTTP_SECRET
// (every copy of every auth header must carry it, as at the API).
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { forEachDialect } from '@hold-dialer/db/testing'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import t, { type Test } from 'tap'
import { dialerHealth, liveStateRoute } from '../src/http/routes.js'
import { buildDialerHttp, type DialerHttpOptions, startDialerHttp } from '../src/http/server.js'
import { harness, lead } from './harness.js'

const HTTP_SECRET = 'http-test-secret'
const silent = pino({ level: 'silent' })
const TRUNK_CLOSED = { state: 'closed' as const, failures: 0, since: null, nextProbeAt: null, trying: false }
const health = () => ({
  dialer: 'd1',
  ami: 'connected',
  database: 'available' as const,
  trunk: TRUNK_CLOSED,
  idle: null,
})
const secured: DialerHttpOptions['secured'] = [
  (app) => {
    app.get('/secured', async () => ({ ok: true }))
  },
]

async function app(t: Test, secret: string | undefined): Promise<FastifyInstance> {
  const a = await buildDialerHttp({ host: '127.0.0.1', port: 0, secret, logger: silent, health, secured })
  t.teardown(() => a.close())
  return a
}

/** A GET over real HTTP with raw headers (a header may be repeated). */
function rawGet(port: number, path: string, headers: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const raw = ['Host', `127.0.0.1:${port}`, ...headers]
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: raw }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('/healthz is public and says the AMI and database state', async (t) => {
  const a = await app(t, HTTP_SECRET)
  const res = await a.inject({ url: '/healthz' })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), {
    dialer: 'd1',
    ami: 'connected',
    database: 'available',
    trunk: TRUNK_CLOSED,
    idle: null,
  })
  t.notOk(res.body.includes(HTTP_SECRET))
  t.equal(res.body.split('\n').length, 1, 'one line')
})

t.test('a secured route: the right secret in any of the three headers, nothing else', async (t) => {
  const a = await app(t, HTTP_SECRET)
  for (const headers of [
    { authorization: `Bearer ${HTTP_SECRET}` },
    { 'x-api-key': HTTP_SECRET },
    { 'x-access-key': HTTP_SECRET },
  ]) {
    const res = await a.inject({ url: '/secured', headers })
    t.equal(res.statusCode, 200, Object.keys(headers).join())
  }
  for (const [why, headers] of [
    ['missing', {}],
    ['wrong', { 'x-api-key': 'nope' }],
    ['wrong scheme', { authorization: `Basic ${HTTP_SECRET}` }],
    ['one right, one wrong header', { 'x-api-key': HTTP_SECRET, 'x-access-key': 'nope' }],
  ] as const) {
    const res = await a.inject({ url: '/secured', headers })
    t.equal(res.statusCode, 401, why)
    t.strictSame(res.json(), { ok: false, error: 'unauthorized' }, why)
  }
})

t.test('over HTTP, a repeated header with one wrong copy is refused', async (t) => {
  const a = await app(t, HTTP_SECRET)
  await a.listen({ host: '127.0.0.1', port: 0 })
  const { port } = a.server.address() as AddressInfo
  t.equal(await rawGet(port, '/secured', ['Authorization', `Bearer ${HTTP_SECRET}`]), 200)
  t.equal(
    await rawGet(port, '/secured', [
      'Authorization',
      `Bearer ${HTTP_SECRET}`,
      'Authorization',
      'Bearer nope',
    ]),
    401,
  )
  t.equal(await rawGet(port, '/secured', ['X-API-Key', 'nope', 'X-API-Key', HTTP_SECRET]), 401)
  t.equal(await rawGet(port, '/secured', ['X-API-Key', HTTP_SECRET, 'X-API-Key', HTTP_SECRET]), 200)
})

t.test('without a secret only /healthz is served', async (t) => {
  const a = await app(t, undefined)
  t.equal((await a.inject({ url: '/healthz' })).statusCode, 200)
  t.equal((await a.inject({ url: '/secured', headers: { 'x-api-key': 'anything' } })).statusCode, 404)
})

t.test('start: port 0 turns the listener off; without a secret it warns once', async (t) => {
  t.equal(
    await startDialerHttp({ host: '127.0.0.1', port: 0, secret: HTTP_SECRET, logger: silent, health }),
    undefined,
  )
  const warnings: string[] = []
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) })
  // A free port: taken by a listener that is closed at once.
  const probe = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: undefined,
    logger: silent,
    health,
  })
  await probe.listen({ host: '127.0.0.1', port: 0 })
  const { port } = probe.server.address() as AddressInfo
  await probe.close()
  const started = await startDialerHttp({ host: '127.0.0.1', port, secret: undefined, logger, health })
  t.ok(started)
  t.teardown(() => started?.app.close())
  t.equal(started?.url, `http://127.0.0.1:${port}`)
  t.equal(await rawGet(port, '/healthz', []), 200)
  t.strictSame(warnings, [
    'DIALER_HTTP_SECRET is not set: the dialer serves only /healthz and the agent interface; metrics and the console need it',
  ])
  await started?.app.close()
  await t.rejects(rawGet(port, '/healthz', []), 'closed')
})

forEachDialect(t, async (t, database) => {
  const h = await harness(t, database)
  const agentId = await h.addAgent('1001')
  const a = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: HTTP_SECRET,
    logger: silent,
    health: () => dialerHealth(h.dialer, h.ami),
    secured: [liveStateRoute(h.dialer)],
  })
  t.teardown(() => a.close())

  t.test('/healthz of a running dialer', async (t) => {
    await h.until('AMI connected', () => h.ami.state === 'connected')
    // An agent ready and no lead: the dialer says why nothing is dialed (idle/idle-report.ts).
    await h.until('no lead due said', () => h.dialer.idle()?.reasons[0]?.code === 'no-lead-due')
    const res = await a.inject({ url: '/healthz' })
    const { idle, ...rest } = res.json()
    t.strictSame(rest, {
      dialer: 'dialer-test',
      ami: 'connected',
      database: 'available',
      trunk: TRUNK_CLOSED,
    })
    t.strictSame(idle.reasons, [{ code: 'no-lead-due', text: 'no lead is due' }])
    t.match(idle.since, /^\d{4}-\d\d-\d\dT/)
  })

  t.test('/live-state follows an agent and a call', async (t) => {
    const get = async () =>
      (await a.inject({ url: '/live-state', headers: { 'x-api-key': HTTP_SECRET } })).json()
    t.equal((await a.inject({ url: '/live-state' })).statusCode, 401)
    await h.until('agent idle', async () => (await get()).agents[0]?.state === 'idle')
    const idle = await get()
    t.match(idle, {
      dialerId: 'dialer-test',
      dialMode: 'progressive',
      ami: { connected: true, state: 'connected' },
      agents: [
        {
          agentId,
          extension: '1001',
          name: 'Agent 1001',
          presence: 'ready',
          paused: false,
          deskState: 'NOT_INUSE',
          leadId: null,
        },
      ],
      calls: [],
      reservedLeads: 0,
      dialLevel: null,
      abandonRate: null,
      abandonRateMax: null,
    })
    h.sim.setOutcome('5550000101', { kind: 'answer', ringSeconds: 2, talkSeconds: 30 })
    await h.push(lead('LS-1', '5550000101'))
    await h.until('talking', async () => (await get()).agents[0]?.state === 'talking')
    const talking = await get()
    const row = await h.lead('LS-1')
    t.match(talking.agents[0], { state: 'talking', leadId: row?.id })
    t.match(talking.calls, [{ leadId: row?.id, agentId, mode: 'progressive', phase: 'connected' }])
    t.equal(talking.reservedLeads, 1)
    t.ok(talking.calls[0].phaseSince >= talking.calls[0].startedAt)
    t.equal(talking.agents[0].since, talking.calls[0].phaseSince, 'the agent talks since the answer')
    await h.until('Received', async () => (await h.lead('LS-1'))?.dial_status === 'Received')
    await h.until('no call', async () => (await get()).calls.length === 0)
  })
})
