import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import {
  childEntry,
  createTestDatabase,
  fakeClockEnv,
  recordDialectResult,
  testDialects,
} from '@hold-dialer/db/testing'
import { sql } from 'kysely'
import t, { type Test } from 'tap'

/**
 * The dialer process and its database at start (DECISIONS section 3, "Database unavailable"): it
 * does not end with a stack trace when the database is missing, it waits with one clear log line,
 * and migrates and starts once the database is there.
 */

const mainTs = fileURLToPath(new URL('../src/main.ts', import.meta.url))

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

/** A port nothing listens on: the AMI the dialer tries in the background stays unreachable. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

async function startDialer(t: Test, databaseUrl: string): Promise<Started> {
  const child = spawn(process.execPath, childEntry(mainTs), {
    env: {
      PATH: process.env.PATH ?? '',
      ...fakeClockEnv(),
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      AMI_HOST: '127.0.0.1',
      AMI_PORT: String(await freePort()),
      AMI_USERNAME: 'dialer',
      AMI_SECRET: 'not-logged',
      DIALER_ID: 'start-test',
      // Other dialers run on this host at the same time: this one does not listen (DIALER_HTTP_PORT).
      DIALER_HTTP_PORT: '0',
    },
  })
  let out = ''
  child.stdout?.on('data', (d) => (out += d))
  child.stderr?.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return { child, output: () => out, exited }
}

async function waitForOutput(s: Started, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 300_000
  while (!pattern.test(s.output())) {
    if (s.child.exitCode !== null) throw new Error(`dialer exited: ${s.output()}`)
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${s.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

t.test('an SQLite file that cannot be opened stops the dialer with one clear line', async (t) => {
  // A directory that cannot exist: its parent is this file.
  const s = await startDialer(t, `sqlite:${fileURLToPath(import.meta.url)}/cannot.sqlite`)
  t.equal(await s.exited, 2)
  t.match(s.output(), /"msg":"cannot open the database [^"]*\/cannot\.sqlite: E[A-Z]+: /)
  t.notMatch(s.output(), /^\s+at /m, 'no raw stack trace')
})

if (testDialects().includes('mysql')) {
  const result = await t.test(
    'mysql: an unknown database at start: waits, then migrates and starts',
    async (t) => {
      // A database name that is free: made, then dropped; another test database's connection
      // creates it again later, as an operator would.
      const gone = await createTestDatabase('mysql', { migrate: false })
      const name = gone.handle.target.database
      await gone.drop()
      const admin = await createTestDatabase('mysql', { migrate: false })
      t.teardown(async () => {
        await sql.raw(`DROP DATABASE IF EXISTS \`${name}\``).execute(admin.handle.kysely)
        await admin.drop()
      })
      const s = await startDialer(t, gone.url)
      await waitForOutput(s, /"msg":"database unavailable/)
      const line = JSON.parse(
        s
          .output()
          .split('\n')
          .find((l) => l.includes('"msg":"database unavailable')) ?? '{}',
      )
      t.match(
        line.msg,
        new RegExp(`^database unavailable \\(.*, database ${name}\\): Unknown database '${name}'`),
      )
      t.match(line, { level: 40, database: name, err: { code: 'ER_BAD_DB_ERROR' } })
      t.notMatch(s.output(), /"msg":"dialer started"/, 'nothing starts before the database is there')
      t.notMatch(s.output(), /^\s+at /m, 'no raw stack trace')
      await sql.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`).execute(admin.handle.kysely)
      await waitForOutput(s, /"msg":"dialer started"/)
      t.match(s.output(), /"msg":"database migrated"/)
      const { rows } = await sql<{
        n: number
      }>`SELECT COUNT(*) AS n FROM ${sql.table(`${name}.hold_dialer_heartbeat`)}`.execute(admin.handle.kysely)
      t.equal(Number(rows[0]?.n), 1, 'its heartbeat is written')
      s.child.kill('SIGTERM')
      t.equal(await s.exited, 0)
    },
  )
  recordDialectResult('mysql', 'dialer start-database', result?.ok ?? false)
}
