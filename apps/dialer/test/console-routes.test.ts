import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { NewCallAttempt, NewMasterRow } from '@hold-dialer/db'
import { forEachDialect } from '@hold-dialer/db/testing'
import Fastify from 'fastify'
import pino from 'pino'
import t from 'tap'
import { readCenter } from '../src/http/console/center-query.js'
import { ConsoleHub, type ConsoleLive } from '../src/http/console/console-hub.js'
import { consolePlugin, consoleRoutes, LOGIN_RATE_LIMIT, SESSION_COOKIE } from '../src/http/console/plugin.js'
import { buildDialerHttp } from '../src/http/server.js'

// 2026-11-23 20:00 UTC is 2026-11-24 01:30 in Kolkata: "today" there began at 18:30 UTC.
const NOW = new Date('2026-11-23T20:00:00.000Z')
const ZONE = 'Asia/Kolkata'
const SECRET = 'console-test-secret'

function lead(oli: string, fields: Partial<NewMasterRow> = {}): NewMasterRow {
  return {
    oli_id: oli,
    phone_number: `5551${oli.replace(/\D/g, '').padStart(6, '0')}`,
    phone_e164: `+15551${oli.replace(/\D/g, '').padStart(6, '0')}`,
    client_name: oli,
    form_type: 'hold',
    priority_id: 1,
    dial_status: 'Pending',
    call_count: 0,
    isReserved: 0,
    isRnrSent: 0,
    status: 1,
    push_date: '2026-11-23 10:00:00.000',
    created_at: '2026-11-23 10:00:00.000',
    ...fields,
  }
}

function attempt(n: number, outcome: string, endedAt: string, answered: boolean): NewCallAttempt {
  return {
    master_id: n,
    oli_id: `X-${n}`,
    attempt_no: 1,
    dialer_id: 'd1',
    dial_mode: 'predictive',
    agent_id: null,
    agent_extension: null,
    phone_number: '5550000000',
    action_id: null,
    uniqueid: null,
    linkedid: null,
    outcome,
    ami_dial_status: null,
    originate_reason: null,
    hangup_cause: null,
    hangup_cause_txt: null,
    hangup_by: null,
    started_at: endedAt,
    answered_at: answered ? endedAt : null,
    ended_at: endedAt,
    talk_seconds: answered ? 30 : null,
  }
}

/** A live state the test changes by hand. */
function fakeLive(): { state: ConsoleLive; live: () => ConsoleLive } {
  const state: ConsoleLive = {
    dialerId: 'd1',
    at: NOW.getTime(),
    dialMode: 'predictive',
    ami: { connected: true, state: 'connected', since: NOW.getTime() - 60_000 },
    agents: [{ agentId: 1, state: 'talking', since: NOW.getTime() - 30_000, leadId: 7 }],
    calls: [
      {
        leadId: 7,
        agentId: 1,
        phase: 'connected',
        startedAt: NOW.getTime() - 40_000,
        phaseSince: NOW.getTime() - 30_000,
      },
    ],
    reservedLeads: 1,
    dialLevel: 1.5,
    abandonRate: 0.01,
    abandonRateMax: 0.03,
    trunk: { state: 'closed', failures: 0, since: null, nextProbeAt: null, trying: false },
    idle: null,
  }
  return { state, live: () => ({ ...state, at: Date.now() }) }
}

/** Reads an event stream's frames as they come. */
function events(res: IncomingMessage) {
  let buffer = ''
  const frames: { event: string; data: unknown }[] = []
  const waiters: (() => void)[] = []
  res.setEncoding('utf8')
  res.on('data', (chunk: string) => {
    buffer += chunk
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event && data) frames.push({ event, data: JSON.parse(data) })
      for (const w of waiters.splice(0)) w()
      end = buffer.indexOf('\n\n')
    }
  })
  const ended = new Promise<void>((resolve) => res.on('close', resolve))
  return {
    ended,
    async next(event: string): Promise<unknown> {
      for (;;) {
        const i = frames.findIndex((f) => f.event === event)
        if (i >= 0) return frames.splice(0, i + 1).at(-1)!.data
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    },
  }
}

t.test(
  'the database away: the stream says so, shows the live half, and the database half when it is back',
  async (t) => {
    const fake = fakeLive()
    let down = true
    const hub = new ConsoleHub({
      live: fake.live,
      center: async () => {
        if (down) throw new Error('connect ECONNREFUSED')
        return { at: NOW.toISOString() } as never
      },
      logger: pino({ level: 'silent' }),
      livePollMs: 10,
      centerPollMs: 20,
      keepAliveMs: 10,
      sampleMs: 60_000,
      samples: 10,
    })
    hub.start()
    const server = createServer((_req, res) => void hub.attach(res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise((resolve) => server.close(resolve)))
    const port = (server.address() as { port: number }).port
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/' }, resolve).on('error', reject).end()
    })
    const stream = events(res)
    t.match(await stream.next('problem'), { message: /database/ })
    t.notMatch(
      JSON.stringify(await stream.next('problem')),
      /ECONNREFUSED/,
      'no driver detail reaches the page',
    )
    t.equal(hub.clientCount, 1)
    t.match(hub.history, [{ dialLevel: 1.5, calls: 1 }], 'a sample taken at start')
    down = false
    t.match(await stream.next('center'), { center: { at: NOW.toISOString() } })
    hub.close()
    await stream.ended
    t.equal(hub.clientCount, 0, 'close ends every stream')
  },
)

forEachDialect(t, async (t, database) => {
  const db = database.handle.kysely
  const agentId = Number(
    (
      await db
        .insertInto('dialer_employee')
        .values({ name: 'Asha', extension: '1001', email: null, presence: 'ready' })
        .executeTakeFirstOrThrow()
    ).insertId,
  )
  await db
    .insertInto('hold_dialer_master_data')
    .values([
      lead('Q-1'),
      lead('Q-2', { priority_id: 2 }),
      lead('Q-3', { dial_status: 'Callback', callback_scheduled_at: '2026-11-23 19:00:00.000' }),
      lead('Q-4', { dial_status: 'Callback', callback_scheduled_at: '2026-11-24 09:00:00.000' }),
      lead('Q-5', { dial_status: 'Not Connected', next_retry_at: '2026-11-23 19:59:00.000', call_count: 1 }),
      lead('Q-6', { dial_status: 'Abandoned', next_retry_at: '2026-11-23 21:00:00.000', call_count: 1 }),
      lead('Q-7', { dial_status: 'Calling', isReserved: 1, reserved_by: 'd1', call_count: 1 }),
      lead('Q-8', { dial_status: 'Received', call_count: 1 }),
    ])
    .execute()
  await db
    .insertInto('hold_dialer_call_attempts')
    .values([
      attempt(1, 'Received', '2026-11-23 19:41:00.000', true),
      attempt(2, 'Received', '2026-11-23 19:45:00.000', true),
      attempt(3, 'Abandoned', '2026-11-23 19:49:59.999', true),
      attempt(4, 'Not Connected', '2026-11-23 19:50:00.000', false),
      // Before midnight in Kolkata: yesterday's, though the same UTC day; in the chart's 8 hours.
      attempt(5, 'Received', '2026-11-23 18:29:59.000', true),
      // Older than the chart.
      attempt(6, 'Abandoned', '2026-11-23 11:00:00.000', true),
    ])
    .execute()
  await db
    .insertInto('hold_dialer_heartbeat')
    .values({
      dialer_id: 'd1',
      hostname: 'host-a',
      pid: 42,
      dial_mode: 'predictive',
      started_at: '2026-11-23 08:00:00.000',
      seen_at: '2026-11-23 19:59:55.000',
      ami_state: 'connected',
      active_calls: 1,
      details: JSON.stringify({ claims: 9, settled: 8, pendingSettles: 0 }),
    })
    .execute()

  t.test(
    'the database half: today in the centre zone, the queue by kind, heartbeats, abandon buckets',
    async (t) => {
      const c = await readCenter(db, NOW, { timezone: ZONE, hours: 8 })
      t.equal(c.today.date, '2026-11-24')
      t.equal(c.today.since, '2026-11-23T18:30:00.000Z')
      t.same(c.today.outcomes, [
        { outcome: 'Received', calls: 2, answered: 2, talkSeconds: 60 },
        { outcome: 'Abandoned', calls: 1, answered: 1, talkSeconds: 30 },
        { outcome: 'Not Connected', calls: 1, answered: 0, talkSeconds: 0 },
      ])
      t.same(c.queue.counts, [
        { priorityId: 1, kind: 'callback_due', leads: 1 },
        { priorityId: 1, kind: 'fresh', leads: 1 },
        { priorityId: 1, kind: 'in_call', leads: 1 },
        { priorityId: 1, kind: 'retry_due', leads: 1 },
        { priorityId: 1, kind: 'waiting', leads: 2 },
        { priorityId: 2, kind: 'fresh', leads: 1 },
      ])
      t.ok(c.queue.priorities.some((p) => p.id === 2 && p.name.length > 0))
      t.match(c.dialers, [
        {
          dialerId: 'd1',
          hostname: 'host-a',
          pid: 42,
          ageSeconds: 5,
          alive: true,
          amiState: 'connected',
          activeCalls: 1,
          startedAt: '2026-11-23T08:00:00.000Z',
          details: { claims: 9 },
        },
      ])
      t.match(c.agents, [{ id: agentId, name: 'Asha', extension: '1001', presence: 'ready', active: true }])
      t.match(c.leads, [{ oliId: 'Q-7', callCount: 1 }])
      t.equal(c.abandon.buckets.length, 48, '8 hours of 10-minute buckets')
      t.equal(c.abandon.buckets.at(-1)?.start, '2026-11-23T20:00:00.000Z')
      const byStart = new Map(c.abandon.buckets.map((b) => [b.start, b]))
      t.same(byStart.get('2026-11-23T19:40:00.000Z'), {
        start: '2026-11-23T19:40:00.000Z',
        answered: 3,
        abandoned: 1,
      })
      t.same(byStart.get('2026-11-23T19:50:00.000Z'), {
        start: '2026-11-23T19:50:00.000Z',
        answered: 0,
        abandoned: 0,
      })
      t.same(byStart.get('2026-11-23T18:20:00.000Z'), {
        start: '2026-11-23T18:20:00.000Z',
        answered: 1,
        abandoned: 0,
      })
      t.equal(
        c.abandon.buckets.reduce((n, b) => n + b.abandoned, 0),
        1,
        'the abandon older than the chart is left out',
      )
    },
  )

  t.test("with a PBX: that PBX's agents only; every dialer with the PBX it serves", async (t) => {
    const west = Number(
      (
        await db
          .insertInto('dialer_employee')
          .values({ name: 'Wen', extension: '2901', email: null, presence: 'ready', pbx: 'west' })
          .executeTakeFirstOrThrow()
      ).insertId,
    )
    t.teardown(() => db.deleteFrom('dialer_employee').where('id', '=', west).execute())
    const own = await readCenter(db, NOW, { timezone: ZONE, hours: 8, pbx: 'default' })
    t.same(
      own.agents.map((a) => a.name),
      ['Asha'],
      "the default PBX's console lists its agent only",
    )
    t.match(own.dialers, [{ dialerId: 'd1', pbx: 'default' }], 'a dialer row says which PBX it serves')
    const theirs = await readCenter(db, NOW, { timezone: ZONE, hours: 8, pbx: 'west' })
    t.same(
      theirs.agents.map((a) => `${a.name} ${a.pbx}`),
      ['Wen west'],
      "the west PBX's console lists the west agent only",
    )
    const all = await readCenter(db, NOW, { timezone: ZONE, hours: 8 })
    t.equal(all.agents.length, 2, 'without a PBX: every agent')
  })

  t.test('routes: login, cookie, header auth, snapshot, event stream, shutdown', async (t) => {
    const fake = fakeLive()
    const app = Fastify()
    await app.register(consolePlugin, {
      db,
      secret: SECRET,
      live: fake.live,
      timezone: ZONE,
      logger: pino({ level: 'silent' }),
      now: () => NOW,
      timing: { livePollMs: 20, centerPollMs: 50, keepAliveMs: 30 },
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    let closed = false
    t.teardown(() => (closed ? undefined : app.close()))
    const port = (app.server.address() as { port: number }).port

    const login = await app.inject({ method: 'GET', url: '/console' })
    t.equal(login.statusCode, 200)
    t.match(login.body, /<form[^>]+action="\/console\/login"/)
    t.notMatch(login.body, /console\.js/, 'the page itself is not served before a login')

    const wrong = await app.inject({ method: 'POST', url: '/console/login', payload: { secret: 'nope' } })
    t.equal(wrong.statusCode, 401)
    t.equal(wrong.headers['set-cookie'], undefined)
    t.notMatch(wrong.body, /nope|console-test-secret/)
    t.match(
      wrong.body,
      '<p class="problem" role="alert">Wrong secret: not signed in. Check it and try again.</p>',
      'a wrong secret is called wrong',
    )
    t.notMatch(login.body, /class="problem"/, 'the login page has no message before an attempt')
    const close = await app.inject({
      method: 'POST',
      url: '/console/login',
      payload: { secret: `${SECRET.slice(0, -1)}X` },
    })
    t.equal(close.body, wrong.body, 'a guess one character off gets the same page as any other: no hint')

    const ok = await app.inject({
      method: 'POST',
      url: '/console/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `secret=${encodeURIComponent(SECRET)}`,
    })
    t.equal(ok.statusCode, 303)
    t.equal(ok.headers.location, '/console')
    const setCookie = String(ok.headers['set-cookie'])
    t.match(setCookie, new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{40,};`))
    t.match(setCookie, /HttpOnly/)
    t.match(setCookie, /SameSite=Strict/)
    t.notMatch(setCookie, new RegExp(SECRET))
    const cookie = setCookie.split(';')[0]!

    const page = await app.inject({ method: 'GET', url: '/console', headers: { cookie } })
    t.equal(page.statusCode, 200)
    t.match(page.body, /\/console\/assets\/console\.js/)
    t.match(page.headers['content-security-policy'], /script-src 'self'/)

    const js = await app.inject({ method: 'GET', url: '/console/assets/console.js' })
    t.equal(js.statusCode, 200)
    t.match(js.headers['content-type'], /javascript/)
    t.equal((await app.inject({ method: 'GET', url: '/console/assets/..%2Fplugin.ts' })).statusCode, 404)

    t.same(
      (await app.inject({ method: 'GET', url: '/console/snapshot.json' })).json(),
      { error: 'Unauthorized' },
      'no cookie, no header: 401 without detail',
    )
    t.equal(
      (
        await app.inject({
          method: 'GET',
          url: '/console/events',
          headers: { cookie: `${SESSION_COOKIE}=forged` },
        })
      ).statusCode,
      401,
    )
    for (const headers of [{ cookie }, { authorization: `Bearer ${SECRET}` }]) {
      const snap = await app.inject({ method: 'GET', url: '/console/snapshot.json', headers })
      t.equal(snap.statusCode, 200)
      t.match(snap.json(), {
        live: { dialerId: 'd1', calls: [{ leadId: 7, phase: 'connected' }], agents: [{ agentId: 1 }] },
        center: {
          timezone: ZONE,
          agents: [{ name: 'Asha' }],
          queue: { counts: Array },
          dialers: [{ dialerId: 'd1' }],
        },
        history: [{ dialLevel: 1.5, calls: 1, talking: 1 }],
      })
    }

    // The stream: a snapshot first, then a `live` event when the state changes, a `center` event on
    // the database period; the listener's close ends it.
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/console/events', headers: { cookie } }, resolve)
        .on('error', reject)
        .end()
    })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/event-stream/)
    const stream = events(res)
    t.match(await stream.next('snapshot'), {
      live: { calls: [{ leadId: 7 }] },
      center: { today: { date: '2026-11-24' } },
    })
    fake.state.calls = []
    fake.state.agents = [{ agentId: 1, state: 'wrap-up', since: Date.now(), leadId: null }]
    t.match(await stream.next('live'), { calls: [], agents: [{ agentId: 1, state: 'wrap-up' }] })
    t.match(await stream.next('center'), { center: { dialers: [{ dialerId: 'd1' }] }, history: Array })

    const logout = await app.inject({ method: 'POST', url: '/console/logout', headers: { cookie } })
    t.equal(logout.statusCode, 303)
    t.equal(
      (await app.inject({ method: 'GET', url: '/console/snapshot.json', headers: { cookie } })).statusCode,
      401,
    )

    closed = true
    await app.close()
    await stream.ended
    t.pass('closing the listener ended the open stream')
  })

  t.test('sign-in attempts are limited per client address', async (t) => {
    const app = Fastify()
    await app.register(consolePlugin, {
      db,
      secret: SECRET,
      live: fakeLive().live,
      timezone: ZONE,
      logger: pino({ level: 'silent' }),
    })
    t.teardown(() => app.close())
    const attempt = (secret: string, remoteAddress = '10.0.0.1') =>
      app.inject({ method: 'POST', url: '/console/login', payload: { secret }, remoteAddress })
    for (let i = 0; i < LOGIN_RATE_LIMIT.max; i++) t.equal((await attempt('guess')).statusCode, 401)
    t.equal((await attempt('guess')).statusCode, 429, 'past the limit')
    t.equal((await attempt(SECRET)).statusCode, 429, 'even with the right secret, until the minute is over')
    t.equal((await attempt(SECRET, '10.0.0.2')).statusCode, 303, 'another address signs in')
    t.equal((await app.inject({ method: 'GET', url: '/console', remoteAddress: '10.0.0.1' })).statusCode, 200)
  })

  t.test(
    'behind a reverse proxy (TRUST_PROXY): each desk its own sign-in limit, the cookie Secure',
    async (t) => {
      const build = (trustProxy: false | string[]) =>
        buildDialerHttp({
          host: '127.0.0.1',
          port: 0,
          secret: SECRET,
          trustProxy,
          logger: pino({ level: 'silent' }),
          health: () => {
            throw new Error('not asked')
          },
          ownAuth: [
            consoleRoutes({ db, live: fakeLive().live, timezone: ZONE, logger: pino({ level: 'silent' }) }),
          ],
        })
      // Every request comes from the proxy on loopback; the desk is in X-Forwarded-For.
      const viaProxy = (app: Awaited<ReturnType<typeof build>>, secret: string, desk: string) =>
        app.inject({
          method: 'POST',
          url: '/console/login',
          payload: { secret },
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': desk, 'x-forwarded-proto': 'https' },
        })
      const trusting = await build(['127.0.0.1'])
      t.teardown(() => trusting.close())
      for (let i = 0; i < LOGIN_RATE_LIMIT.max; i++) await viaProxy(trusting, 'guess', '10.1.0.1')
      t.equal((await viaProxy(trusting, 'guess', '10.1.0.1')).statusCode, 429, 'the guessing desk is limited')
      const other = await viaProxy(trusting, SECRET, '10.1.0.2')
      t.equal(other.statusCode, 303, 'another desk behind the same proxy still signs in')
      t.match(String(other.headers['set-cookie']), /; Secure/, 'the cookie is Secure: the desk used HTTPS')

      const notTrusting = await build(false)
      t.teardown(() => notTrusting.close())
      for (let i = 0; i < LOGIN_RATE_LIMIT.max; i++) await viaProxy(notTrusting, 'guess', '10.1.0.1')
      t.equal(
        (await viaProxy(notTrusting, SECRET, '10.1.0.2')).statusCode,
        429,
        'without TRUST_PROXY every desk is the proxy: one limit for all',
      )
      const plain = await notTrusting.inject({
        method: 'POST',
        url: '/console/login',
        payload: { secret: SECRET },
        remoteAddress: '10.9.0.1',
        headers: { 'x-forwarded-proto': 'https' },
      })
      t.equal(plain.statusCode, 303)
      t.notMatch(String(plain.headers['set-cookie']), /Secure/, 'a scheme header from anyone is not believed')
    },
  )

  t.test("on the dialer's listener: served only with a secret, beside the secured routes", async (t) => {
    const build = (secret: string | undefined) =>
      buildDialerHttp({
        host: '127.0.0.1',
        port: 0,
        secret,
        logger: pino({ level: 'silent' }),
        health: () => ({
          dialer: 'd1',
          ami: 'connected',
          database: 'available',
          trunk: { state: 'closed', failures: 0, since: null, nextProbeAt: null, trying: false },
          idle: null,
        }),
        ownAuth: [
          consoleRoutes({ db, live: fakeLive().live, timezone: ZONE, logger: pino({ level: 'silent' }) }),
        ],
      })
    const withSecret = await build(SECRET)
    t.teardown(() => withSecret.close())
    t.equal((await withSecret.inject({ url: '/console' })).statusCode, 200, 'the login page is public')
    t.equal((await withSecret.inject({ url: '/console/snapshot.json' })).statusCode, 401)
    const snap = await withSecret.inject({ url: '/console/snapshot.json', headers: { 'x-api-key': SECRET } })
    t.equal(snap.statusCode, 200, 'the listener rule: X-API-Key')
    const mixed = await withSecret.inject({
      url: '/console/snapshot.json',
      headers: { 'x-api-key': SECRET, authorization: 'Bearer wrong' },
    })
    t.equal(mixed.statusCode, 401, 'one wrong header refuses, as everywhere on the listener')
    const without = await build(undefined)
    t.teardown(() => without.close())
    t.equal((await without.inject({ url: '/console' })).statusCode, 404, 'no secret, no console')
  })
})
