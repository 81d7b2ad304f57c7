// The dialer's Prometheus metrics, scraped from its listener while a real Dialer places calls
// against pbx-sim: counters and histograms move as calls happen, gauges follow agents and calls.
import {
  forEachDialect,
  mysqlOutage,
  recordDialectResult,
  sqliteOutage,
  testDialects,
} from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import t, { type Test } from 'tap'
import { dialerHealth, metricsRoute } from '../src/http/routes.js'
import { buildDialerHttp } from '../src/http/server.js'
import { DialerMetrics } from '../src/metrics.js'
import { queueStats } from '../src/sql/queue-stats.js'
import { type Harness, harness, lead } from './harness.js'

const HTTP_SECRET = 'metrics-test-secret'

/** The samples of a Prometheus text page: `name{labels}` -> value. */
type Samples = Map<string, number>

async function listener(t: Test, h: Harness): Promise<FastifyInstance> {
  const app = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: HTTP_SECRET,
    logger: pino({ level: 'silent' }),
    health: () => dialerHealth(h.dialer, h.ami),
    secured: [metricsRoute(h.dialer)],
  })
  t.teardown(() => app.close())
  return app
}

async function scrape(app: FastifyInstance): Promise<Samples> {
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${HTTP_SECRET}` } })
  if (res.statusCode !== 200) throw new Error(`scrape: ${res.statusCode}`)
  const out: Samples = new Map()
  for (const line of res.body.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

/** The sample's value, 0 when the series is absent (a counter not yet incremented). */
const v = (s: Samples, key: string) => s.get(key) ?? 0

forEachDialect(t, async (t, database) => {
  t.test('progressive: counters, histograms and gauges follow the calls', async (t) => {
    const metrics = new DialerMetrics({ defaultMetrics: true })
    const h = await harness(t, database, { metrics })
    const agentId = await h.addAgent('1001')
    const app = await listener(t, h)

    t.equal((await app.inject({ url: '/metrics' })).statusCode, 401, 'not without the secret')
    t.equal(
      (await app.inject({ url: '/metrics', headers: { 'x-api-key': 'nope' } })).statusCode,
      401,
      'not with a wrong secret',
    )
    const wait = async (what: string, check: (s: Samples) => boolean) =>
      h.until(what, async () => check(await scrape(app)))

    await wait('the agent idle', (s) => v(s, 'hold_dialer_dialer_agents{state="idle"}') === 1)
    const start = await scrape(app)
    t.ok(start.has('process_cpu_user_seconds_total'), 'process defaults')
    t.ok(start.has('nodejs_heap_size_used_bytes'), 'process defaults')
    t.equal(v(start, 'hold_dialer_dialer_ami_connected'), 1)
    t.equal(v(start, 'hold_dialer_dialer_database_available'), 1)
    t.equal(v(start, 'hold_dialer_dialer_queue_up'), 1)
    t.equal(v(start, 'hold_dialer_dialer_calls{phase="connected"}'), 0)
    t.equal(v(start, 'hold_dialer_dialer_reserved_leads'), 0)
    t.notOk(start.has('hold_dialer_dialer_dial_level'), 'no governor in progressive mode')
    t.equal(v(start, 'hold_dialer_dialer_originates_total{mode="progressive",result="accepted"}'), 0)

    // A paused agent: the lead waits in the queue, by priority.
    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ presence: 'paused' })
      .where('id', '=', agentId)
      .execute()
    await wait('the agent paused', (s) => v(s, 'hold_dialer_dialer_agents{state="paused"}') === 1)
    h.sim.setOutcome('5550000201', { kind: 'answer', ringSeconds: 2, talkSeconds: 60 })
    await h.push(lead('M-1', '5550000201', { priority_id: 1 }))
    const queued = await scrape(app)
    t.equal(v(queued, 'hold_dialer_dialer_queue_leads{category="pending",priority="1"}'), 1)
    t.equal(v(queued, 'hold_dialer_dialer_agents{state="idle"}'), 0)

    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ presence: 'ready' })
      .where('id', '=', agentId)
      .execute()
    await wait('talking', (s) => v(s, 'hold_dialer_dialer_agents{state="talking"}') === 1)
    const talking = await scrape(app)
    t.equal(v(talking, 'hold_dialer_dialer_calls{phase="connected"}'), 1)
    t.equal(v(talking, 'hold_dialer_dialer_reserved_leads'), 1)
    t.equal(v(talking, 'hold_dialer_dialer_queue_leads{category="reserved",priority="1"}'), 1)
    t.equal(v(talking, 'hold_dialer_dialer_queue_leads{category="pending",priority="1"}'), 0)
    t.equal(v(talking, 'hold_dialer_dialer_claims_total{mode="progressive"}'), 1)
    t.equal(v(talking, 'hold_dialer_dialer_originates_total{mode="progressive",result="accepted"}'), 1)
    t.ok(v(talking, 'hold_dialer_dialer_claim_seconds_count{mode="progressive",result="claimed"}') >= 1)

    await h.until('Received', async () => (await h.lead('M-1'))?.dial_status === 'Received')
    await wait('counted', (s) => v(s, 'hold_dialer_dialer_outcomes_total{status="Received"}') === 1)
    const after = await scrape(app)
    t.equal(v(after, 'hold_dialer_dialer_ring_seconds_count{mode="progressive"}'), 1)
    t.equal(v(after, 'hold_dialer_dialer_talk_seconds_count{mode="progressive"}'), 1)
    t.ok(v(after, 'hold_dialer_dialer_talk_seconds_sum{mode="progressive"}') > 0)

    h.sim.setOutcome('5550000202', { kind: 'busy' })
    await h.push(lead('M-2', '5550000202'))
    await wait('busy counted', (s) => v(s, 'hold_dialer_dialer_outcomes_total{status="Not Connected"}') === 1)
    const busy = await scrape(app)
    t.equal(v(busy, 'hold_dialer_dialer_originates_total{mode="progressive",result="accepted"}'), 2)
    t.equal(v(busy, 'hold_dialer_dialer_outcomes_total{status="Received"}'), 1)
    t.equal(v(busy, 'hold_dialer_dialer_ring_seconds_count{mode="progressive"}'), 1, 'not answered')
    await wait('idle again', (s) => v(s, 'hold_dialer_dialer_agents{state="idle"}') === 1)
  })

  t.test('the queue query: due callbacks and retries, pending and reserved, by priority', async (t) => {
    const now = new Date('2026-03-02T10:00:00.000Z')
    const past = toDbTime(new Date(now.getTime() - 60_000))
    const future = toDbTime(new Date(now.getTime() + 60_000))
    const rows: Array<Record<string, unknown>> = [
      { dial_status: 'Callback', callback_scheduled_at: past, priority_id: 2 },
      { dial_status: 'Callback', callback_scheduled_at: future, priority_id: 2 },
      { dial_status: 'Not Connected', next_retry_at: past, priority_id: 1 },
      { dial_status: 'Not Connected', next_retry_at: future, priority_id: 1 },
      { dial_status: 'Abandoned', next_retry_at: null, priority_id: 3 },
      { dial_status: 'Pending', priority_id: 3 },
      { dial_status: 'Pending', priority_id: 3 },
      { dial_status: 'Calling', isReserved: 1, reserved_by: 'd1', priority_id: 1 },
      { dial_status: 'Received', priority_id: 1 },
    ]
    await database.handle.kysely
      .insertInto('hold_dialer_master_data')
      .values(
        rows.map((r, i) => ({
          oli_id: `Q-${i}`,
          phone_number: `55500099${String(i).padStart(2, '0')}`,
          phone_e164: `+155500099${String(i).padStart(2, '0')}`,
          client_name: 'q',
          form_type: 'hold',
          call_count: 0,
          isReserved: 0,
          isRnrSent: 0,
          push_date: past,
          status: 1,
          created_at: past,
          ...r,
        })) as never,
      )
      .execute()
    t.teardown(() =>
      database.handle.kysely.deleteFrom('hold_dialer_master_data').where('oli_id', 'like', 'Q-%').execute(),
    )
    const q = await queueStats(database.handle.kysely, now)
    t.strictSame([...q.dueCallbacks], [[2, 1]])
    t.strictSame(
      [...q.dueRetries].sort(([a], [b]) => a - b),
      [
        [1, 1],
        [3, 1],
      ],
    )
    t.strictSame([...q.pending], [[3, 2]])
    t.strictSame([...q.reserved], [[1, 1]])
  })

  t.test('predictive: the hold before an agent, the governor gauges', async (t) => {
    const h = await harness(t, database, { env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '3' } })
    await h.addAgent('7001')
    const app = await listener(t, h)
    h.sim.setOutcome('5557000201', { kind: 'answer', ringSeconds: 1, talkSeconds: 5 })
    await h.push(lead('MP-1', '5557000201'))
    await h.until('Received', async () => (await h.lead('MP-1'))?.dial_status === 'Received')
    await h.until(
      'counted',
      async () => v(await scrape(app), 'hold_dialer_dialer_outcomes_total{status="Received"}') === 1,
    )
    const s = await scrape(app)
    t.equal(v(s, 'hold_dialer_dialer_originates_total{mode="predictive",result="accepted"}'), 1)
    t.equal(v(s, 'hold_dialer_dialer_claims_total{mode="predictive"}'), 1)
    t.equal(v(s, 'hold_dialer_dialer_hold_seconds_count{result="connected"}'), 1)
    t.equal(v(s, 'hold_dialer_dialer_talk_seconds_count{mode="predictive"}'), 1)
    t.equal(v(s, 'hold_dialer_dialer_ring_seconds_count{mode="predictive"}'), 1)
    t.ok(s.has('hold_dialer_dialer_dial_level'))
    t.equal(v(s, 'hold_dialer_dialer_abandon_rate_max'), 0.03)
    t.ok(s.has('hold_dialer_dialer_abandon_rate'))
  })
})

// A scrape while the database is away still answers at once: MariaDB behind a cut relay leaves the
// queue gauges out (marked by queue_up 0); SQLite locked by another writer still serves the reads.
for (const dialect of testDialects()) {
  const result = await t.test(`${dialect}: a scrape while the database is away`, async (t) => {
    const outage =
      dialect === 'sqlite'
        ? await sqliteOutage(t, { migrate: true })
        : await mysqlOutage(t, { migrate: true })
    await outage.giveBack()
    const h = await harness(t, outage.database)
    await h.addAgent('1001')
    const app = await listener(t, h)
    await h.until('queue up', async () => v(await scrape(app), 'hold_dialer_dialer_queue_up') === 1)
    await outage.takeAway()
    const s = await scrape(app)
    t.ok(
      s.has('hold_dialer_dialer_agents{state="idle"}') ||
        s.has('hold_dialer_dialer_agents{state="unavailable"}'),
    )
    if (dialect === 'mysql') {
      t.equal(v(s, 'hold_dialer_dialer_queue_up'), 0, 'the queue query did not answer')
      t.notOk(
        [...s.keys()].some((k) => k.startsWith('hold_dialer_dialer_queue_leads')),
        'queue gauges absent',
      )
    } else {
      t.equal(v(s, 'hold_dialer_dialer_queue_up'), 1, 'reads go on beside a writer')
    }
    await outage.giveBack()
    await h.until('queue up again', async () => v(await scrape(app), 'hold_dialer_dialer_queue_up') === 1)
    // Stopped here, before the outage's teardown closes the database under a dialer still polling it.
    await h.stopDialer()
  })
  recordDialectResult(dialect, t.name, result?.ok ?? false)
}
