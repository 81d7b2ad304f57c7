import { request as httpRequest, type IncomingMessage } from 'node:http'
import { forEachDialect, type TestDatabase } from '@hold-dialer/db/testing'
import { fromDbTime } from '@hold-dialer/rules'
import pino from 'pino'
import t, { type Test } from 'tap'
import { runAgentsCli } from '../src/cli/agents.js'
import type { AgentView } from '../src/http/agent/agent-view.js'
import { AGENT_COOKIE, type AgentTiming, agentRoutes } from '../src/http/agent/plugin.js'
import { buildDialerHttp } from '../src/http/server.js'
import { type Harness, type HarnessOptions, harness, lead } from './harness.js'

const PIN = '4821'
/** A customer who answers after 0.5 s and talks for 2 s (pbx-sim at 50 times real time). */
const TALKS = { kind: 'answer', ringSeconds: 25, talkSeconds: 100 } as const

/** Sets an agent's PIN as `pnpm agents set-pin` does, the PIN coming in as if typed. */
async function setPin(database: TestDatabase, extension: string, pin: string) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAgentsCli(['set-pin', extension], database.url, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    readPin: async () => pin,
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

interface AgentRig extends Harness {
  port: number
  /** Another listener of the interface on the same database, as a second dialer would serve it. */
  second(): Promise<{ inject: Awaited<ReturnType<typeof agentApp>>['inject'] }>
  /** POSTs or GETs JSON as a client at `ip` with the session `cookie`. */
  send(
    method: 'GET' | 'POST',
    url: string,
    options?: { cookie?: string; payload?: unknown; ip?: string },
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }>
  /** Signs the agent in and returns the session cookie (`name=value`). */
  signIn(extension: string, pin?: string): Promise<string>
  state(cookie: string): Promise<AgentView>
  employee(extension: string): Promise<Record<string, unknown>>
}

/** The agent interface on a listener of its own, fed by `h`'s dialer (another "dialer" sharing the database). */
async function agentApp(h: Harness, database: TestDatabase, timing: Partial<AgentTiming> = {}) {
  const app = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: undefined,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    health: () => ({ dialer: 'x', ami: 'x', database: 'available', trunk: h.dialer.trunk(), idle: null }),
    open: [
      agentRoutes({
        db: database.handle.kysely,
        live: () => h.dialer.liveState(),
        pauseReasons: h.config.agentPauseReasons,
        callbackMode: h.config.callbackMode,
        timezone: h.config.timezone,
        logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
        timing: { pollMs: 50, ...timing },
      }),
    ],
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

async function agentRig(
  t: Test,
  database: TestDatabase,
  options: HarnessOptions & { agentTiming?: Partial<AgentTiming> } = {},
): Promise<AgentRig> {
  // The dialect's database is shared by its subtests: each starts from no agents, leads or sessions.
  for (const table of [
    'hold_dialer_master_data',
    'hold_dialer_call_attempts',
    'dialer_employee',
    'hold_dialer_agent_session',
    'hold_dialer_agent_sign_in',
  ] as const) {
    await database.handle.kysely.deleteFrom(table).execute()
  }
  const h = await harness(t, database, { defaultOutcome: TALKS, ...options })
  const app = await agentApp(h, database, options.agentTiming)
  t.teardown(() => app.close())
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const r: AgentRig = Object.assign(h, {
    port,
    async second() {
      const other = await agentApp(h, database, options.agentTiming)
      t.teardown(() => other.close())
      return { inject: other.inject.bind(other) }
    },
    async send(
      method: 'GET' | 'POST',
      url: string,
      o: { cookie?: string; payload?: unknown; ip?: string } = {},
    ) {
      const res = await app.inject({
        method,
        url,
        ...(o.payload === undefined ? {} : { payload: o.payload as Record<string, unknown> }),
        headers: o.cookie ? { cookie: o.cookie } : {},
        remoteAddress: o.ip ?? '127.0.0.1',
      })
      return {
        status: res.statusCode,
        body: (res.body ? res.json() : {}) as Record<string, unknown>,
        headers: res.headers as Record<string, unknown>,
      }
    },
    async signIn(extension: string, pin = PIN) {
      const res = await app.inject({ method: 'POST', url: '/agent/sign-in', payload: { extension, pin } })
      if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`)
      const c = res.cookies.find((x) => x.name === AGENT_COOKIE)
      if (!c) throw new Error('no session cookie')
      return `${c.name}=${c.value}`
    },
    async state(cookie: string) {
      const res = await app.inject({ method: 'GET', url: '/agent/state', headers: { cookie } })
      if (res.statusCode !== 200) throw new Error(`state: ${res.statusCode} ${res.body}`)
      return res.json() as AgentView
    },
    async employee(extension: string) {
      return database.handle.kysely
        .selectFrom('dialer_employee')
        .selectAll()
        .where('extension', '=', extension)
        .executeTakeFirstOrThrow() as unknown as Promise<Record<string, unknown>>
    },
  })
  return r
}

/** An agent with a desk on pbx-sim and a PIN, `fields` on its row (ready and panel fresh by default). */
async function pinnedDesk(r: AgentRig, extension: string, fields: Record<string, unknown> = {}) {
  const id = await r.addAgent(extension, fields)
  const set = await setPin(r.database, extension, PIN)
  if (set.code !== 0) throw new Error(`set-pin: ${set.err}`)
  return id
}

/** Opens the agent's event stream and collects its `state` frames. */
async function openStream(r: AgentRig, cookie: string) {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port: r.port, path: '/agent/events', headers: { cookie } }, resolve)
      .on('error', reject)
      .end()
  })
  const frames: { event: string; data: unknown }[] = []
  let buffer = ''
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
      end = buffer.indexOf('\n\n')
    }
  })
  const ended = new Promise<void>((resolve) => res.on('close', resolve))
  return {
    status: res.statusCode,
    contentType: res.headers['content-type'],
    frames,
    ended,
    states: () => frames.filter((f) => f.event === 'state').map((f) => f.data as AgentView),
    /** The first `state` frame that matches, waiting for it. */
    async next(what: string, match: (s: AgentView) => boolean): Promise<AgentView> {
      let found: AgentView | undefined
      await r.until(what, () => {
        found = frames
          .filter((f) => f.event === 'state')
          .map((f) => f.data as AgentView)
          .find(match)
        return found !== undefined
      })
      return found!
    },
    close: () => res.destroy(),
  }
}

forEachDialect(t, async (t, database) => {
  t.test('sign-in: the right PIN opens a session, a wrong one or an unknown agent does not', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    await r.addAgent('1001', { presence: 'offline' })
    t.equal(
      (await r.send('POST', '/agent/sign-in', { payload: { extension: '1001', pin: PIN } })).status,
      401,
      'no PIN set yet: refused',
    )
    const short = await setPin(database, '1001', '123')
    t.equal(short.code, 1, 'a 3-digit PIN is refused by set-pin')
    t.match(short.err, /4 to 12 digits/)
    const set = await setPin(database, '1001', PIN)
    t.equal(set.code, 0, 'set-pin exits 0')
    const row = await r.employee('1001')
    t.match(row.pin_hash, /^scrypt\$16384\$8\$1\$/, 'stored as a salted scrypt hash')
    t.notMatch(String(row.pin_hash), PIN, 'the PIN itself is not stored')
    const wrong = await r.send('POST', '/agent/sign-in', { payload: { extension: '1001', pin: '4822' } })
    t.equal(wrong.status, 401, 'wrong PIN: 401')
    t.equal(wrong.body.error, 'wrong_pin')
    t.notOk(wrong.headers['set-cookie'], 'wrong PIN: no cookie')
    const unknown = await r.send('POST', '/agent/sign-in', { payload: { extension: '1999', pin: PIN } })
    t.equal(unknown.status, 401, 'unknown extension: the same 401')
    t.equal(unknown.body.error, 'wrong_pin')
    t.equal((await r.send('GET', '/agent/state')).status, 401, 'no session: 401')

    const ok = await r.send('POST', '/agent/sign-in', { payload: { extension: '1001', pin: PIN } })
    t.equal(ok.status, 200, 'right PIN: 200')
    const setCookie = String(ok.headers['set-cookie'])
    t.match(setCookie, /hd_agent=/, 'a session cookie')
    t.match(setCookie, /HttpOnly/)
    t.match(setCookie, /SameSite=Strict/)
    t.match(setCookie, /Path=\/agent/)
    const cookie = await r.signIn('1001')
    const state = await r.state(cookie)
    t.match(state, { agent: { extension: '1001' }, presence: 'offline', state: 'offline', call: null })
    t.same(state.pauseReasons, ['break', 'lunch', 'training'], 'the configured reasons are offered')
    const sessions = await database.handle.kysely
      .selectFrom('hold_dialer_agent_session')
      .selectAll()
      .execute()
    t.equal(sessions.length, 2, 'two sessions in the database')
    t.notOk(
      sessions.some((s) => cookie.endsWith(s.token_hash)),
      'the database keeps a hash of the token, not the token',
    )
    const again = await setPin(database, '1001', '9876')
    t.equal(again.code, 0)
    t.equal(
      (await r.send('GET', '/agent/state', { cookie })).status,
      401,
      'a new PIN signs the old sessions out',
    )
  })

  t.test('sign-in is limited per agent and per client address, with Retry-After', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    for (const ext of ['1001', '1002', '1003']) await pinnedDesk(r, ext)
    const attempt = async (extension: string, pin: string, ip: string) =>
      r.send('POST', '/agent/sign-in', { payload: { extension, pin }, ip })
    for (let i = 0; i < 5; i++) {
      t.equal((await attempt('1001', '0000', '10.0.0.1')).status, 401, `wrong PIN ${i + 1} for 1001: 401`)
    }
    const limited = await attempt('1001', PIN, '10.0.0.1')
    t.equal(limited.status, 429, 'per agent: the 6th attempt in a minute is 429, the right PIN included')
    t.equal(limited.body.error, 'too_many_attempts')
    const retry = Number(limited.headers['retry-after'])
    t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry} s is within the minute`)
    t.equal((await attempt('1001', PIN, '10.0.0.2')).status, 429, 'per agent: from another address too')

    for (let i = 0; i < 5; i++) {
      t.equal((await attempt('1002', '0000', '10.0.0.1')).status, 401, `wrong PIN ${i + 1} for 1002: 401`)
    }
    const byAddress = await attempt('1003', PIN, '10.0.0.1')
    t.equal(byAddress.status, 429, 'per address: 10 failures, then a third agent from there is refused too')
    t.ok(Number(byAddress.headers['retry-after']) >= 1, 'with Retry-After')
    t.equal(
      (await attempt('1003', PIN, '10.0.0.3')).status,
      200,
      'the same agent from another address signs in',
    )

    // Agents behind one address (a NAT): right PINs do not use up the address's failures.
    for (const ext of [
      '1004',
      '1005',
      '1006',
      '1007',
      '1008',
      '1009',
      '1010',
      '1011',
      '1012',
      '1013',
      '1014',
    ]) {
      await pinnedDesk(r, ext)
      t.equal((await attempt(ext, PIN, '10.0.0.9')).status, 200, `${ext} signs in from the shared address`)
    }
  })

  t.test('several dialers: a session and the sign-in limit hold on every one', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    await pinnedDesk(r, '1001')
    const other = await r.second()
    const cookie = await r.signIn('1001')
    const there = await other.inject({ method: 'GET', url: '/agent/state', headers: { cookie } })
    t.equal(there.statusCode, 200, 'signed in on one dialer, known on the other')
    t.equal(there.json().agent.extension, '1001')
    const paused = await other.inject({
      method: 'POST',
      url: '/agent/presence',
      headers: { cookie },
      payload: { presence: 'paused', reason: 'break' },
    })
    t.equal(paused.statusCode, 200)
    t.match(await r.state(cookie), { state: 'paused', pauseReason: 'break' }, 'and the first sees the pause')
    // 1 right and 3 wrong attempts on the first, 1 wrong on the other: 5, so the 6th is refused anywhere.
    for (let i = 0; i < 3; i++) {
      t.equal(
        (await r.send('POST', '/agent/sign-in', { payload: { extension: '1001', pin: '0000' } })).status,
        401,
      )
    }
    const wrongThere = await other.inject({
      method: 'POST',
      url: '/agent/sign-in',
      payload: { extension: '1001', pin: '0000' },
    })
    t.equal(wrongThere.statusCode, 401)
    const limited = await other.inject({
      method: 'POST',
      url: '/agent/sign-in',
      payload: { extension: '1001', pin: PIN },
    })
    t.equal(limited.statusCode, 429, 'attempts on both dialers count together')
    const out = await other.inject({ method: 'POST', url: '/agent/sign-out', headers: { cookie } })
    t.equal(out.statusCode, 200)
    t.equal((await r.send('GET', '/agent/state', { cookie })).status, 401, 'signed out on one, out on both')
  })

  t.test('an expired session is refused, and its stream ends', async (t) => {
    const r = await agentRig(t, database, { startDialer: false, agentTiming: { sessionMs: 600 } })
    await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    t.equal((await r.send('GET', '/agent/state', { cookie })).status, 200, 'fresh: 200')
    const stream = await openStream(r, cookie)
    await stream.next('the first state', () => true)
    await new Promise((resolve) => setTimeout(resolve, 700))
    t.equal((await r.send('GET', '/agent/state', { cookie })).status, 401, 'expired: 401')
    t.equal((await r.send('POST', '/agent/heartbeat', { cookie })).status, 401, 'expired: no heartbeat')
    await stream.ended
    t.ok(
      stream.frames.some((f) => f.event === 'signed-out'),
      'the stream says signed-out and ends',
    )
  })

  t.test('presence: a pause with a listed reason, not an unlisted one; then ready', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    const before = Date.now()
    const paused = await r.send('POST', '/agent/presence', {
      cookie,
      payload: { presence: 'paused', reason: 'lunch' },
    })
    t.equal(paused.status, 200, 'a listed reason: 200')
    let row = await r.employee('1001')
    t.match(row, { presence: 'paused', pause_reason: 'lunch' }, 'presence and reason stored')
    const since = fromDbTime(String(row.presence_since)).getTime()
    t.ok(since >= before - 5 && since <= Date.now() + 5, 'since when, stored')
    t.match(await r.state(cookie), { state: 'paused', pauseReason: 'lunch' })

    const nap = await r.send('POST', '/agent/presence', {
      cookie,
      payload: { presence: 'paused', reason: 'nap' },
    })
    t.equal(nap.status, 400, 'an unlisted reason: 400')
    t.equal(nap.body.error, 'unknown_reason')
    t.match(String(nap.body.message), /break, lunch, training/, 'the message lists the reasons')
    const none = await r.send('POST', '/agent/presence', { cookie, payload: { presence: 'paused' } })
    t.equal(none.status, 400, 'no reason: 400')
    row = await r.employee('1001')
    t.match(row, { presence: 'paused', pause_reason: 'lunch' }, 'unchanged by the refusals')

    const ready = await r.send('POST', '/agent/presence', { cookie, payload: { presence: 'ready' } })
    t.equal(ready.status, 200)
    row = await r.employee('1001')
    t.match(row, { presence: 'ready', pause_reason: null }, 'ready clears the reason')
    t.match(await r.state(cookie), { state: 'ready', pauseReason: null })
    t.equal(
      (await r.send('POST', '/agent/presence', { cookie, payload: { presence: 'offline' } })).status,
      400,
      'offline is signing out, not a presence to set',
    )
  })

  t.test('the heartbeat updates panel_seen_at', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ panel_seen_at: '2020-01-01 00:00:00.000' })
      .where('extension', '=', '1001')
      .execute()
    const before = Date.now()
    const res = await r.send('POST', '/agent/heartbeat', { cookie })
    t.equal(res.status, 200)
    const seen = fromDbTime(String((await r.employee('1001')).panel_seen_at)).getTime()
    t.ok(seen >= before - 5 && seen <= Date.now() + 5, 'panel_seen_at is now')
    t.equal(res.body.panelSeenAt, new Date(seen).toISOString(), 'and the answer says so')
  })

  t.test('a call shows its screen pop on the stream; wrap-up, then ready now', async (t) => {
    const r = await agentRig(t, database, { env: { WRAP_SECONDS: '60' } })
    const agentId = await pinnedDesk(r, '1001', { presence: 'paused', pause_reason: 'break' })
    const cookie = await r.signIn('1001')
    const stream = await openStream(r, cookie)
    t.equal(stream.status, 200)
    t.match(stream.contentType, /text\/event-stream/)
    await stream.next('paused first', (s) => s.state === 'paused')
    const why = await stream.next("the dialer's reason", (s) => s.why !== null)
    t.equal(why.why, 'paused on the agent panel', 'why no call is offered, as the dialer says it')
    // 10 s of talk (pbx-sim at 50 times real time; the ring stays inside RING_TIMEOUT_SECONDS, which
    // the simulation scales too): long enough for the stream to
    // show each phase on a slow machine too.
    r.sim.setOutcome('5553000001', { kind: 'answer', ringSeconds: 10, talkSeconds: 500 })
    await r.push(
      lead('POP-1', '5553000001', {
        client_name: 'Asha Rao',
        form_type: 'renewal',
        priority_id: 2,
      }),
    )
    const leadRow = await r.lead('POP-1')
    // An earlier call to the same lead, not answered.
    await database.handle.kysely
      .insertInto('hold_dialer_call_attempts')
      .values({
        master_id: Number(leadRow!.id),
        oli_id: 'POP-1',
        attempt_no: 1,
        dialer_id: 'elsewhere',
        dial_mode: 'progressive',
        agent_id: null,
        agent_extension: '1009',
        phone_number: '5553000001',
        action_id: null,
        uniqueid: null,
        linkedid: null,
        outcome: 'Not Connected',
        ami_dial_status: 'NOANSWER',
        originate_reason: null,
        hangup_cause: null,
        hangup_cause_txt: null,
        hangup_by: null,
        started_at: '2026-01-01 09:00:00.000',
        answered_at: null,
        ended_at: '2026-01-01 09:00:30.000',
        talk_seconds: null,
      })
      .execute()
    t.equal(
      (await r.send('POST', '/agent/presence', { cookie, payload: { presence: 'ready' } })).status,
      200,
      'ready',
    )
    // Between the claim (the agent held) and the Originate being followed, the state is `on-call`
    // without a phase: waited past, as a slow machine shows it for a while.
    const onCall = await stream.next(
      'the call ringing or talking on the stream',
      (s) => s.call?.lead?.oliId === 'POP-1' && (s.state === 'ringing' || s.state === 'talking'),
    )
    t.ok(['ringing', 'talking'].includes(onCall.state), `state ${onCall.state} while the call is on`)
    t.match(
      onCall.call,
      {
        dialer: 'dialer-test',
        lead: {
          oliId: 'POP-1',
          name: 'Asha Rao',
          formType: 'renewal',
          priority: 2,
          callbackAt: null,
          pinnedAgentId: null,
          attempts: [{ attemptNo: 1, outcome: 'Not Connected', agentExtension: '1009' }],
        },
      },
      'the screen pop: the lead and its earlier attempt',
    )
    t.match(onCall.call?.lead?.number, /5553000001/, 'the number')
    t.equal(onCall.call?.lead?.attempts.length, 1, 'the call in progress is not an earlier attempt')
    await stream.next('talking', (s) => s.state === 'talking' && s.call?.phase === 'connected')

    const wrap = await stream.next('wrap-up', (s) => s.state === 'wrap-up')
    const ends = new Date(String(wrap.wrapUntil)).getTime()
    const callEnded = fromDbTime(String((await r.attempts('POP-1'))[1]?.ended_at)).getTime()
    t.ok(
      ends >= callEnded + 59_000 && ends <= Date.now() + 60_000,
      'wrap-up ends WRAP_SECONDS after the call',
    )
    t.match(
      wrap.call,
      {
        phase: 'ended',
        lead: { oliId: 'POP-1', attempts: [{ outcome: 'Not Connected' }, { outcome: 'Received' }] },
      },
      'wrap-up still shows the call, now with its own outcome',
    )
    const readyNow = await r.send('POST', '/agent/ready-now', { cookie })
    t.equal(readyNow.status, 200, 'ready now: 200')
    const wrapUntil = fromDbTime(String((await r.employee('1001')).wrap_until)).getTime()
    t.ok(wrapUntil <= Date.now(), 'the wrap-up ended early')
    await stream.next('ready after ready-now', (s) => s.state === 'ready' && s.call === null)
    t.equal(Number((await r.attempts('POP-1'))[1]?.agent_id), agentId, 'the call was this agent’s')
    stream.close()
  })

  t.test("another agent's call is not visible", async (t) => {
    const r = await agentRig(t, database)
    await pinnedDesk(r, '1001', { presence: 'paused', pause_reason: 'training' })
    await pinnedDesk(r, '1002')
    const mine = await r.signIn('1001')
    const theirs = await r.signIn('1002')
    const stream = await openStream(r, mine)
    await r.push(lead('OTHER-1', '5553000002'))
    await r.until('1002 is on the call', async () => (await r.state(theirs)).call?.lead?.oliId === 'OTHER-1')
    const view = await r.state(mine)
    t.match(view, { state: 'paused', call: null }, "1001's state shows no call")
    t.notMatch(JSON.stringify(view), /OTHER-1|5553000002/, 'nothing of the lead in it')
    await r.until('settled', async () => (await r.lead('OTHER-1'))?.dial_status === 'Received')
    t.notOk(
      stream.frames.some((f) => JSON.stringify(f.data).includes('OTHER-1')),
      "1001's stream never carried the other agent's call",
    )
    stream.close()
  })

  t.test('a call another dialer has the agent on shows with its screen pop', async (t) => {
    const r = await agentRig(t, database, { startDialer: false })
    await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    await r.push(lead('ELSE-1', '5553000009', { client_name: 'Mei Tan' }))
    const leadId = Number((await r.lead('ELSE-1'))!.id)
    const db = database.handle.kysely
    const at = '2026-11-28 09:00:00.000'
    // As another dialer's claim leaves them: the lead reserved, the agent held, the attempt open.
    await db
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Calling', isReserved: 1, reserved_by: 'dialer-other', reserved_at: at })
      .where('id', '=', leadId)
      .execute()
    await db
      .updateTable('dialer_employee')
      .set({ on_call_by: 'dialer-other', on_call_since: at })
      .where('extension', '=', '1001')
      .execute()
    await db
      .insertInto('hold_dialer_call_attempts')
      .values({
        master_id: leadId,
        oli_id: 'ELSE-1',
        attempt_no: 1,
        dialer_id: 'dialer-other',
        dial_mode: 'progressive',
        agent_id: null,
        agent_extension: '1001',
        phone_number: '5553000009',
        action_id: null,
        uniqueid: null,
        linkedid: null,
        outcome: 'Dialing',
        ami_dial_status: null,
        originate_reason: null,
        hangup_cause: null,
        hangup_cause_txt: null,
        hangup_by: null,
        started_at: at,
        answered_at: null,
        ended_at: null,
        talk_seconds: null,
      })
      .execute()
    t.match(
      await r.state(cookie),
      {
        state: 'on-call',
        call: {
          phase: null,
          dialer: 'dialer-other',
          lead: { oliId: 'ELSE-1', name: 'Mei Tan', attempts: [] },
        },
      },
      "the other dialer's call, read from the database",
    )
    const cb = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02T10:00:00Z' },
    })
    t.equal(cb.status, 409, 'no callback while that call is on')
  })

  t.test('a callback for the person just spoken to, by the rules of send-callback-request', async (t) => {
    const r = await agentRig(t, database)
    await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    const none = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02T10:00:00Z' },
    })
    t.equal(none.status, 404, 'no call yet: 404')
    await r.push(lead('CB-1', '5553000003'))
    await r.until('talking', async () => (await r.state(cookie)).state === 'talking')
    const during = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02T10:00:00Z' },
    })
    t.equal(during.status, 409, 'while the call is on: 409')
    t.equal(during.body.error, 'call_in_progress')
    await r.until('settled', async () => (await r.lead('CB-1'))?.dial_status === 'Received')
    const bad = await r.send('POST', '/agent/callback', { cookie, payload: { scheduledAt: 'tomorrow' } })
    t.equal(bad.status, 400, 'a time the API would refuse: 400')
    const toMe = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02T10:00:00Z', to: 'me' },
    })
    t.equal(toMe.status, 400, 'pool mode: a callback cannot be given to its agent')
    const ok = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02T10:00:00Z' },
    })
    t.equal(ok.status, 200, 'after the call: 200')
    t.match(ok.body, { ok: true, lead: { oli_id: 'CB-1', dial_status: 'Callback', agent_id: null } })
    t.match(
      await r.lead('CB-1'),
      {
        dial_status: 'Callback',
        callback_scheduled_at: '2030-01-02 10:00:00.000',
        call_count: 0,
        isReserved: 0,
        agent_id: null,
      },
      'the lead waits for its callback in the pool, its attempt history cleared as the API clears it',
    )
  })

  t.test('pinned mode: a callback given to the agent who spoke to the person', async (t) => {
    const r = await agentRig(t, database, { env: { CALLBACK_MODE: 'pinned' } })
    const me = await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    await r.push(lead('CB-2', '5553000004'))
    await r.until('settled', async () => (await r.lead('CB-2'))?.dial_status === 'Received')
    const ok = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02 15:30:00', to: 'me' },
    })
    t.equal(ok.status, 200)
    t.match(await r.lead('CB-2'), { dial_status: 'Callback', agent_id: me }, 'pinned to this agent')
    const pool = await r.send('POST', '/agent/callback', {
      cookie,
      payload: { scheduledAt: '2030-01-02 15:30:00', to: 'pool' },
    })
    t.equal(pool.status, 200)
    t.match(await r.lead('CB-2'), { dial_status: 'Callback', agent_id: null }, 'or to the pool')
  })

  t.test('a pause while a call is being claimed for the agent', async (t) => {
    const r = await agentRig(t, database)
    const id = await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    await r.push(lead('RACE-1', '5553000005'))
    await r.until(
      'the agent is taken for the call',
      async () => (await r.employee('1001')).on_call_by !== null,
    )
    const paused = await r.send('POST', '/agent/presence', {
      cookie,
      payload: { presence: 'paused', reason: 'break' },
    })
    t.equal(paused.status, 200, 'the pause is accepted while the call is claimed')
    const during = await r.state(cookie)
    t.equal(during.presence, 'paused', 'presence is paused at once')
    t.equal(during.call?.lead?.oliId, 'RACE-1', 'the call already claimed goes on and is shown')
    await r.until('the call ends', async () => (await r.lead('RACE-1'))?.dial_status === 'Received')
    t.equal(Number((await r.attempts('RACE-1'))[0]?.agent_id), id, 'the agent took that call')
    await r.push(lead('RACE-2', '5553000006'))
    await r.dialer.claimRounds()
    t.match(await r.lead('RACE-2'), { dial_status: 'Pending', isReserved: 0 }, 'no new call while paused')
    t.match(await r.state(cookie), { state: 'paused', pauseReason: 'break', call: null })
  })

  t.test('sign-out mid-call: the call finishes, no new one comes', async (t) => {
    const r = await agentRig(t, database)
    const id = await pinnedDesk(r, '1001')
    const cookie = await r.signIn('1001')
    const stream = await openStream(r, cookie)
    await r.push(lead('OUT-1', '5553000007'))
    await stream.next('talking', (s) => s.state === 'talking')
    const out = await r.send('POST', '/agent/sign-out', { cookie })
    t.equal(out.status, 200)
    t.equal(out.body.onCall, true, 'the answer says the call goes on')
    t.match(String(out.headers['set-cookie']), /hd_agent=;/, 'the cookie is cleared')
    t.match(await r.employee('1001'), { presence: 'offline', pause_reason: null })
    t.equal((await r.send('GET', '/agent/state', { cookie })).status, 401, 'the session is gone')
    await stream.ended
    t.ok(
      stream.frames.some((f) => f.event === 'signed-out'),
      'the stream says signed-out',
    )
    await r.until('the call ends normally', async () => (await r.lead('OUT-1'))?.dial_status === 'Received')
    t.match((await r.attempts('OUT-1'))[0], { outcome: 'Received', agent_id: id })
    await r.push(lead('OUT-2', '5553000008'))
    await r.dialer.claimRounds()
    t.match(
      await r.lead('OUT-2'),
      { dial_status: 'Pending', isReserved: 0 },
      'no call for a signed-out agent',
    )
  })
})
