import { connect } from '@hold-dialer/db'
import {
  createTestDatabase,
  recordDialectResult,
  testDialects,
  unlessAlreadyGone,
} from '@hold-dialer/db/testing'
import { sql } from 'kysely'
import t from 'tap'
import { apiFixture, lead, masterRow } from './fixture.js'

/**
 * The API's MariaDB connections killed server-side (as by an operator's KILL, a proxy or a
 * fail-over) while it is under load: every request answers 2xx or 503, never 500; every write the
 * API acknowledged is in the table; and once the killing stops the API serves again without a
 * restart. MariaDB only: SQLite has no server to kill connections.
 *
 * FAULT_TEST_SECONDS runs the load longer (default 3, for CI).
 */

const SECONDS = Number(process.env.FAULT_TEST_SECONDS || 3)
const WORKERS = 16
/** Pause between two rounds of killing every API connection. */
const KILL_EVERY_MS = 40

interface Outcome {
  status: number
  body: string
}

if (!testDialects().includes('mysql')) {
  t.comment('MariaDB is not under test: the fault test needs a server to kill connections on')
} else {
  const result = await t.test('mysql: connections killed under load', async (t) => {
    const database = await createTestDatabase('mysql')
    t.teardown(() => database.drop())
    const fx = await apiFixture(t, database)
    const killer = connect(database.url, { poolSize: 1 })
    t.teardown(() => killer.close())

    // Each worker has escalated leads of its own for tickets and callback requests, so their final
    // state can be checked against what that worker was told.
    for (let w = 0; w < WORKERS; w++) {
      const res = await fx.push({ leads: [lead({ oli_id: `F-TICKET-${w}`, priority_id: 8 })] })
      if (res.statusCode !== 201) throw new Error(res.body)
    }

    let stop = false
    let kills = 0
    const killing = (async () => {
      while (!stop) {
        await killer.kysely.connection().execute(async (conn) => {
          const { rows } = await sql<{ ID: number }>`
            SELECT ID FROM information_schema.PROCESSLIST
            WHERE DB = ${database.handle.target.database} AND ID <> CONNECTION_ID()`.execute(conn)
          for (const row of rows) {
            await sql
              .raw(`KILL CONNECTION ${Number(row.ID)}`)
              .execute(conn)
              .catch(unlessAlreadyGone)
            kills += 1
          }
        })
        await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS))
      }
    })()

    const outcomes: Outcome[] = []
    const pushed = new Set<string>()
    /** Per worker, every callback time sent, in order, with whether it was acknowledged. */
    const scheduled: { at: string; status: number }[][] = Array.from({ length: WORKERS }, () => [])
    const deadline = Date.now() + SECONDS * 1000
    let seq = 0
    const worker = async (w: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        seq += 1
        const kind = i % 4
        let res: Awaited<ReturnType<typeof fx.call>>
        if (kind === 0 || kind === 1) {
          const body = lead({ oli_id: `F-${w}-${i}` })
          res = await fx.push(body)
          if (res.statusCode === 201) pushed.add(body.oli_id as string)
        } else if (kind === 2) {
          const leads = Array.from({ length: 5 }, (_, k) => lead({ oli_id: `F-${w}-${i}-${k}` }))
          res = await fx.push({ leads })
          if (res.statusCode === 201) for (const l of leads) pushed.add(l.oli_id as string)
        } else {
          const minute = String(seq % 60).padStart(2, '0')
          const second = String(Math.floor(seq / 60) % 60).padStart(2, '0')
          const at = `2026-11-24 10:${minute}:${second}`
          // Each request from its own client address, so the rate limit stays out of the way.
          res = await fx.call(
            i % 8 === 3
              ? {
                  method: 'PUT',
                  url: '/api/escalated-tickets',
                  payload: { oliId: `F-TICKET-${w}`, status: 'Callback Schedule', scheduledAt: at },
                  remoteAddress: `10.1.${w}.${i % 250}`,
                }
              : {
                  method: 'POST',
                  url: '/api/send-callback-request',
                  payload: { oliId: `F-TICKET-${w}`, scheduledAt: at },
                  remoteAddress: `10.0.${w}.${i % 250}`,
                },
          )
          scheduled[w]!.push({ at, status: res.statusCode })
        }
        outcomes.push({ status: res.statusCode, body: res.body })
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))
    stop = true
    await killing

    const byStatus = new Map<number, number>()
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1)
    t.comment(
      `${outcomes.length} requests in ${SECONDS} s, ${kills} connections killed: ${JSON.stringify(Object.fromEntries(byStatus))}`,
    )
    t.ok(kills > 0, 'connections were killed')
    const bad = outcomes.filter((o) => !(o.status === 503 || (o.status >= 200 && o.status < 300)))
    t.strictSame(bad.slice(0, 5), [], `every answer 2xx or 503 (${bad.length} others)`)
    for (const o of outcomes.filter((x) => x.status === 503).slice(0, 20)) {
      t.equal(JSON.parse(o.body).error, 'database_unavailable')
    }
    t.ok((byStatus.get(201) ?? 0) > 0, 'pushes got through between the kills')

    // Nothing acknowledged is missing.
    const stored = new Set(
      (await database.handle.kysely.selectFrom('hold_dialer_master_data').select('oli_id').execute()).map(
        (r) => r.oli_id,
      ),
    )
    const missing = [...pushed].filter((id) => !stored.has(id))
    t.strictSame(missing, [], `all ${pushed.size} acknowledged leads are stored`)
    for (let w = 0; w < WORKERS; w++) {
      const sent = scheduled[w]!
      const lastAck = sent.map((s) => s.status).lastIndexOf(200)
      if (lastAck === -1) continue
      // The row holds the last acknowledged time, or one sent after it whose answer was a 503 (a
      // write whose commit was cut off may or may not have landed; it was not acknowledged).
      const possible = sent.slice(lastAck).filter((s, k) => k === 0 || s.status === 503)
      const row = await masterRow(fx, `F-TICKET-${w}`)
      const local = row?.callback_scheduled_at
      t.ok(
        possible.some((s) => toUtc(s.at) === local),
        `F-TICKET-${w}: ${local} is an acknowledged or unanswered time`,
      )
    }

    // The killing has stopped: served again without a restart.
    const after = []
    for (let i = 0; i < 20; i++) after.push((await fx.push(lead({ oli_id: `F-AFTER-${i}` }))).statusCode)
    t.strictSame(after, Array(20).fill(201), 'recovered by itself')
  })
  recordDialectResult('mysql', 'faults', result?.ok ?? false)
}

/** `YYYY-MM-DD HH:MM:SS` in the test zone (Asia/Kolkata, +05:30) as the stored UTC text. */
function toUtc(local: string): string {
  const at = new Date(`${local.replace(' ', 'T')}+05:30`)
  return `${at.toISOString().replace('T', ' ').replace('Z', '')}`
}
