import { DatabaseAvailability } from '@hold-dialer/db'
import { mysqlOutage, recordDialectResult, sqliteOutage, testDialects } from '@hold-dialer/db/testing'
import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

/**
 * DECISIONS section 3, "Database unavailable": while the database cannot be used a request gets
 * 503 `database_unavailable` with Retry-After, never a 500; the API starts without it, says so in
 * health and (once a minute) in the log, and migrates and serves once it is back. The database is
 * taken away for real: on SQLite another process holds the write lock, on MariaDB the connections
 * go through a relay that is cut.
 */

/** Resolves once `condition` holds, checking as the event loop turns (never a fixed sleep). */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 300_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function expectUnavailable(t: Test, res: LightMyRequestResponse, label: string): void {
  t.equal(res.statusCode, 503, `${label}: ${res.body}`)
  const body = res.json()
  t.equal(body.ok, false, label)
  t.equal(body.error, 'database_unavailable', label)
  t.equal(body.request_id, res.headers['x-request-id'], `${label}: the request id`)
  t.equal(res.headers['retry-after'], '5', `${label}: Retry-After`)
}

/** Every kind of write, as a list of requests with their expected success status. */
function writes(fx: ApiFixture, tag: string, pin: Record<string, unknown>) {
  return [
    ['single push', () => fx.push(lead({ oli_id: `${tag}-1`, ...pin }))],
    ['batch push', () => fx.push({ leads: [lead({ oli_id: `${tag}-2`, ...pin }), lead({ ...pin })] })],
    [
      'callback push',
      () =>
        fx.push(
          lead({ priority_id: 2, callback_scheduled_at: '2026-11-24 10:00:00', agent_id: undefined, ...pin }),
        ),
    ],
    [
      'ticket',
      () =>
        fx.call({
          method: 'PUT',
          url: '/api/escalated-tickets',
          payload: { oliId: 'DU-TICKET', status: 'Callback Schedule', scheduledAt: '2026-11-24 10:00:00' },
        }),
    ],
    [
      'callback request',
      () =>
        fx.call({
          method: 'POST',
          url: '/api/send-callback-request',
          payload: { oliId: 'DU-TICKET', scheduledAt: '2026-11-24 10:00:00' },
        }),
    ],
  ] as const
}

for (const dialect of testDialects()) {
  for (const mode of ['pool', 'pinned'] as const) {
    const result = await t.test(`${dialect}, ${mode}`, async (t) => {
      const outage = dialect === 'sqlite' ? await sqliteOutage(t) : await mysqlOutage(t)
      await outage.takeAway()
      const warnings: { obj: Record<string, unknown>; msg: string }[] = []
      const availability = new DatabaseAvailability({
        db: outage.database.handle,
        log: {
          info: () => {},
          warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }),
        },
        migrate: true,
        retryMs: 20,
      })
      const fx = await apiFixture(t, outage.database, { availability, env: { CALLBACK_MODE: mode } })
      const started = availability.start()

      await t.test(
        'started while the database is unavailable: 503 on every write, 400s still 400',
        async (t) => {
          await until(() => availability.failures >= 1, 'a failed try')
          for (const [label, send] of writes(fx, `DU-START-${mode}`, {}))
            expectUnavailable(t, await send(), label)
          const bad = await fx.call({ method: 'POST', url: '/api/leads', payload: '{' })
          t.equal(bad.json().error, 'invalid_json', 'a body that is not JSON is still a 400')
          const badTicket = await fx.call({
            method: 'PUT',
            url: '/api/escalated-tickets',
            payload: { oliId: 'X', status: 'Open' },
          })
          t.equal(badTicket.json().error, 'validation_failed', 'a ticket body that is wrong is still a 400')
          const healthz = await fx.call({ method: 'GET', url: '/healthz', auth: false })
          t.strictSame(healthz.json(), { ok: false, ami: false, db: false })
          const health = await fx.call({ method: 'GET', url: '/health' })
          t.equal(health.statusCode, 503)
          t.equal(health.json().db.ok, false)
          t.match(health.json().db.error, /waiting for the database/)
          t.equal(warnings.length, 1, 'logged once, not once per try or request')
          t.match(warnings[0]?.obj, {
            host: outage.database.handle.target.host,
            database: outage.database.handle.target.database,
          })
        },
      )

      await t.test('once it is back: migrated, and writes are accepted', async (t) => {
        await outage.giveBack()
        const migrated = await started
        t.ok(migrated && migrated.applied.length > 0, 'migrations applied when it came back')
        t.equal((await fx.push(lead({ oli_id: 'DU-TICKET', priority_id: 8 }))).statusCode, 201)
        t.strictSame((await fx.call({ method: 'GET', url: '/healthz', auth: false })).json().db, true)
      })

      const pin: Record<string, unknown> = {}
      if (mode === 'pinned') {
        const r = await outage.database.handle.kysely
          .insertInto('dialer_employee')
          .values({ name: 'Asha', extension: '1001' })
          .executeTakeFirstOrThrow()
        pin.agent_id = Number(r.insertId)
      }

      await t.test(
        'taken away while running: 503, never 500; back: served again, nothing lost',
        async (t) => {
          await outage.takeAway()
          for (const [label, send] of writes(fx, `DU-RUN-${mode}`, pin))
            expectUnavailable(t, await send(), label)
          t.equal(availability.available, false, 'the watch knows')
          await outage.giveBack()
          await until(() => availability.available, 'the probe to find the database back')
          const acknowledged: string[] = []
          for (const [label, send] of writes(fx, `DU-BACK-${mode}`, pin)) {
            const res = await send()
            t.ok(res.statusCode === 200 || res.statusCode === 201, `${label}: ${res.statusCode} ${res.body}`)
            if (res.statusCode === 201) for (const l of res.json().leads) acknowledged.push(l.oli_id)
          }
          for (const oliId of acknowledged) t.ok(await masterRow(fx, oliId), `${oliId} is stored`)
        },
      )
    })
    recordDialectResult(dialect, 'database-unavailable', result?.ok ?? false)
  }
}
