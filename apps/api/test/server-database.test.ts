import { fileURLToPath } from 'node:url'
import { createTestDatabase, recordDialectResult, testDialects, testMysqlUrl } from '@hold-dialer/db/testing'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { lead, SECRET } from './fixture.js'
import { freePort, listeningPort, type Started, startServer } from './server-process.js'

/**
 * The API process and its database at start (DECISIONS section 3, "Database unavailable"): an
 * unreachable server, an unknown database or a wrong password is a clear log line, not a stack
 * trace and an exit; the API listens, answers 503 and says so in health, and migrates and serves
 * once the database is there.
 */

const notADirectory = fileURLToPath(import.meta.url)

function started(t: Test, env: Record<string, string>): Started {
  const s = startServer({ WS_SECRET: SECRET, ...env })
  t.teardown(() => {
    if (s.child.exitCode === null) s.child.kill('SIGKILL')
  })
  return s
}

async function waitForOutput(s: Started, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 300_000
  while (!pattern.test(s.output())) {
    if (s.child.exitCode !== null) throw new Error(`server exited: ${s.output()}`)
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${s.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function push(port: number, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/leads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

/** The log line saying the database is unavailable, parsed. */
function unavailableLine(s: Started): Record<string, unknown> {
  const line = s
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"database unavailable'))
  return JSON.parse(line ?? '{}') as Record<string, unknown>
}

t.test('an SQLite file that cannot be opened stops the API with one clear line', async (t) => {
  const s = started(t, {
    // A directory that cannot exist: its parent is this file.
    DATABASE_URL: `sqlite:${notADirectory}/cannot.sqlite`,
    PORT: String(await freePort()),
  })
  t.equal(await s.exited, 2)
  t.match(s.output(), /"msg":"cannot open the database [^"]*\/cannot\.sqlite: E[A-Z]+: /)
  t.notMatch(s.output(), /^\s+at /m, 'no raw stack trace')
})

if (testDialects().includes('mysql')) {
  const result = await t.test('mysql', async (t) => {
    t.test(
      'unreachable server: listens, 503 database_unavailable, health false, one clear log line',
      async (t) => {
        const s = started(t, {
          DATABASE_URL: 'mysql://dialer:hunter2@127.0.0.1:1/leads',
          PORT: String(await freePort()),
          TRUST_PROXY: 'true',
        })
        const port = await listeningPort(s)
        await waitForOutput(s, /"msg":"database unavailable/)
        const line = unavailableLine(s)
        t.equal(line.level, 40, 'a warning')
        t.match(line.msg, /^database unavailable \(127\.0\.0\.1:1, database leads\): connect ECONNREFUSED/)
        t.match(line, { host: '127.0.0.1:1', database: 'leads', err: { code: 'ECONNREFUSED' } })
        t.notMatch(s.output(), /hunter2/, 'the password is never logged')
        t.notMatch(s.output(), /^\s+at /m, 'no raw stack trace')
        const res = await push(port, lead())
        t.equal(res.status, 503)
        t.equal(res.json.error, 'database_unavailable')
        const healthz = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()
        t.strictSame(healthz, { ok: false, ami: false, db: false })
        t.equal(s.child.exitCode, null, 'still running')
        t.match(
          s.output(),
          /TRUST_PROXY=true trusts every X-Forwarded-For hop/,
          'TRUST_PROXY=true is warned about',
        )
      },
    )

    t.test("wrong password: the server's own message, no password", async (t) => {
      const url = new URL(testMysqlUrl())
      url.password = 'not-the-password'
      url.pathname = '/test'
      const s = started(t, { DATABASE_URL: url.toString(), PORT: String(await freePort()) })
      await listeningPort(s)
      await waitForOutput(s, /"msg":"database unavailable/)
      t.match(unavailableLine(s).msg, /: Access denied for user '.*'@'.*' \(using password: YES\)/)
      t.notMatch(s.output(), /not-the-password/)
      t.notMatch(s.output(), /^\s+at /m)
      t.equal(s.child.exitCode, null, 'still running')
    })

    t.test('unknown database: waits, then migrates and serves once it is created', async (t) => {
      // A database name that is free: made, then dropped. Another test database's connection
      // creates it again later, as an operator would.
      const gone = await createTestDatabase('mysql', { migrate: false })
      const name = gone.handle.target.database
      const url = gone.url
      await gone.drop()
      const admin = await createTestDatabase('mysql', { migrate: false })
      t.teardown(async () => {
        await sql.raw(`DROP DATABASE IF EXISTS \`${name}\``).execute(admin.handle.kysely)
        await admin.drop()
      })
      const s = started(t, { DATABASE_URL: url, PORT: String(await freePort()) })
      const port = await listeningPort(s)
      await waitForOutput(s, /"msg":"database unavailable/)
      t.match(unavailableLine(s).msg, new RegExp(`database ${name}\\): Unknown database '${name}'`))
      t.equal((await push(port, lead())).status, 503)
      await sql.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`).execute(admin.handle.kysely)
      await waitForOutput(s, /"msg":"database migrated"/)
      t.match(s.output(), /"msg":"database available again"/)
      const res = await push(port, lead({ oli_id: 'SRV-LATE' }))
      t.equal(res.status, 201, JSON.stringify(res.json))
      t.notMatch(s.output(), /^\s+at /m)
    })
  })
  recordDialectResult('mysql', 'server-database', result?.ok ?? false)
}
