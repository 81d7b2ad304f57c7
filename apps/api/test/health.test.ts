import { forEachDialect } from '@hold-dialer/db/testing'
import { startPbxSim } from '@hold-dialer/pbx-sim'
import { parseConfig } from '@hold-dialer/rules'
import pino from 'pino'
import t from 'tap'
import { amiHealthConnection } from '../src/ami-status.js'
import { WarnLogBuffer } from '../src/log-buffer.js'
import { apiFixture, SECRET } from './fixture.js'

/** Polls `check` until a 300 s deadline: a loaded machine only makes it wait longer. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

t.test('WarnLogBuffer keeps the last N warn-or-worse lines, parsed', async (t) => {
  const buffer = new WarnLogBuffer(3)
  const logger = pino({ level: 'info' }, pino.multistream([{ level: 'warn', stream: buffer }]))
  logger.info('not kept')
  for (let i = 1; i <= 5; i++) logger.warn({ i }, `warning ${i}`)
  logger.error('bad')
  const lines = buffer.lines() as Array<{ msg: string }>
  t.same(
    lines.map((l) => l.msg),
    ['warning 4', 'warning 5', 'bad'],
  )
})

forEachDialect(t, async (t, database) => {
  t.test('without AMI configured: /healthz says ami false, db true; /health is 503', async (t) => {
    const fx = await apiFixture(t, database)
    const res = await fx.call({ method: 'GET', url: '/healthz', auth: false })
    t.equal(res.statusCode, 200)
    t.same(res.json(), { ok: false, ami: false, db: true })
    const detailed = await fx.call({ method: 'GET', url: '/health' })
    t.equal(detailed.statusCode, 503)
    t.match(detailed.json(), {
      ok: false,
      ami: { configured: false, connected: false },
      db: { ok: true, dialect: database.dialect },
    })
  })

  t.test('with the PBX up: healthy 200 on /healthz, /health and /api/health; down again: 503', async (t) => {
    const sim = await startPbxSim({ port: 0, users: { healthuser: 'pbx-pass-9' } })
    t.teardown(() => sim.close())
    const config = parseConfig(
      {
        DATABASE_URL: database.url,
        WS_SECRET: SECRET,
        AMI_HOST: '127.0.0.1',
        AMI_PORT: String(sim.port),
        AMI_USERNAME: 'healthuser',
        AMI_SECRET: 'pbx-pass-9',
      },
      { hostZone: 'UTC' },
    )
    const ami = amiHealthConnection(config)
    t.teardown(() => ami.close())
    const fx = await apiFixture(t, database, { ami })
    fx.clock.current = new Date()
    await until(() => ami.status().connected, 'AMI login')
    await database.handle.kysely
      .insertInto('hold_dialer_heartbeat')
      .values({
        dialer_id: 'dialer-a',
        hostname: 'pbx1',
        pid: 42,
        dial_mode: 'progressive',
        started_at: '2026-11-23 05:00:00.000',
        seen_at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
        ami_state: 'connected',
        active_calls: 3,
        details: '{"claims":10}',
      })
      .execute()

    const healthz = await fx.call({ method: 'GET', url: '/healthz', auth: false })
    t.same(healthz.json(), { ok: true, ami: true, db: true })
    for (const url of ['/health', '/api/health']) {
      const res = await fx.call({ method: 'GET', url })
      t.equal(res.statusCode, 200, url)
      const body = res.json()
      t.match(body, {
        ok: true,
        version: '0.0.0-test',
        mode: { callback_mode: 'pool', timezone: 'Asia/Kolkata' },
        ami: { configured: true, connected: true, host: '127.0.0.1', port: sim.port },
        db: { ok: true, dialect: database.dialect },
        dialers: [
          { dialer_id: 'dialer-a', pbx: 'default', alive: true, active_calls: 3, details: { claims: 10 } },
        ],
        rnr_mail: { smtp_configured: false, queued: 0 },
      })
      t.type(body.ami.last_ping_ms, 'number')
      t.type(body.metrics, 'object')
      t.ok(Array.isArray(body.logs))
      t.notMatch(res.body, /pbx-pass-9/, 'no AMI secret in the body')
      t.notMatch(res.body, new RegExp(SECRET), 'no API secret in the body')
    }

    await sim.close()
    await until(() => !ami.status().connected, 'AMI loss')
    const down = await fx.call({ method: 'GET', url: '/healthz', auth: false })
    t.same(down.json(), { ok: false, ami: false, db: true })
    const detailed = await fx.call({ method: 'GET', url: '/health' })
    t.equal(detailed.statusCode, 503)
    t.match(detailed.json().ami.last_error, /closed|ECONNREFUSED|connect/)
  })

  t.test('a stale AMI ping (older than 30 s) counts as down', async (t) => {
    const fx = await apiFixture(t, database, {
      ami: {
        status: () => ({
          configured: true,
          connected: true,
          host: 'h',
          port: 1,
          lastPingMs: 1,
          lastPingAt: new Date('2026-11-23T05:59:29.000Z'),
          lastError: null,
          since: null,
        }),
        close: async () => {},
      },
    })
    // fixture clock: 06:00:00Z, ping 31 s earlier
    t.same((await fx.call({ method: 'GET', url: '/healthz', auth: false })).json(), {
      ok: false,
      ami: false,
      db: true,
    })
    fx.clock.set('2026-11-23T05:59:50.000Z')
    t.same((await fx.call({ method: 'GET', url: '/healthz', auth: false })).json(), {
      ok: true,
      ami: true,
      db: true,
    })
  })

  t.test('database unreachable: db false and /health 503 with the error, not a 500', async (t) => {
    const { createTestDatabase } = await import('@hold-dialer/db/testing')
    const other = await createTestDatabase(database.dialect)
    const fx = await apiFixture(t, other)
    await other.drop()
    const res = await fx.call({ method: 'GET', url: '/healthz', auth: false })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { db: false })
    const detailed = await fx.call({ method: 'GET', url: '/health' })
    t.equal(detailed.statusCode, 503)
    t.match(detailed.json(), { db: { ok: false } })
    t.type(detailed.json().db.error, 'string')
  })
})
