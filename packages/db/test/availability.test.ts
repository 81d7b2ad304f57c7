import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import { createConnection } from 'mysql2/promise'
import t, { type Test } from 'tap'
import { connect, DatabaseAvailability, type Db, unavailableReason } from '../src/index.js'
import { createTestDatabase, testDatabaseName, testDialects, testMysqlUrl } from '../src/testing/index.js'

interface Line {
  level: 'info' | 'warn'
  obj: Record<string, unknown>
  msg: string
}

/** A logger that keeps its lines, and a clock the test moves. */
function recorder() {
  const lines: Line[] = []
  let now = 1_000_000
  return {
    lines,
    warnings: () => lines.filter((l) => l.level === 'warn'),
    log: {
      info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Line['obj'], msg }),
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Line['obj'], msg }),
    },
    now: () => now,
    advance: (ms: number) => {
      now += ms
    },
  }
}

/** Resolves once `condition` holds, checking as the event loop turns (never a fixed sleep). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 300_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function tableNames(db: Db): Promise<string[]> {
  const tables = await db.kysely.introspection.getTables()
  return tables.map((x) => x.name)
}

t.test('unavailableReason: what means the database cannot serve, through the cause chain', async (t) => {
  t.equal(unavailableReason({ code: 'ECONNREFUSED' }), 'lost connection')
  t.equal(unavailableReason({ code: 'ETIMEDOUT' }), 'cannot reach the server')
  t.equal(unavailableReason({ code: 'ENOTFOUND' }), 'cannot reach the server')
  t.equal(unavailableReason({ errno: 1045, code: 'ER_ACCESS_DENIED_ERROR' }), 'refused by the server')
  t.equal(unavailableReason({ errno: 1049, code: 'ER_BAD_DB_ERROR' }), 'refused by the server')
  t.equal(unavailableReason({ errno: 1040 }), 'refused by the server')
  t.equal(unavailableReason({ code: 'SQLITE_CANTOPEN' }), 'database file unusable')
  t.equal(unavailableReason({ code: 'SQLITE_BUSY' }), 'sqlite busy')
  t.equal(
    unavailableReason(new Error('gave up', { cause: { errno: 1213 } })),
    'deadlock',
    'retries used up on a transient error',
  )
  const closed = Object.assign(new Error("Can't add new command when connection is in closed state"), {
    fatal: true,
  })
  t.equal(unavailableReason(closed), 'lost connection', "mysql2's closed-state error, which has no code")
  t.equal(unavailableReason({ errno: 1062, code: 'ER_DUP_ENTRY' }), undefined)
  t.equal(unavailableReason({ errno: 1146, code: 'ER_NO_SUCH_TABLE' }), undefined)
  t.equal(unavailableReason(new TypeError('x')), undefined)
  t.equal(unavailableReason(null), undefined)
})

t.test('SQLite locked by another process at start: waits, logs once a minute, then migrates', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hd-avail-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'locked.sqlite')
  // The other process (a dialer, say) made the file, in WAL mode, and holds a write transaction.
  const other = new BetterSqlite3(path)
  other.pragma('journal_mode = WAL')
  other.exec('BEGIN IMMEDIATE')
  const handle = connect(`sqlite:${path}`, { sqliteBusyTimeoutMs: 5 })
  t.teardown(() => handle.close())
  const r = recorder()
  const availability = new DatabaseAvailability({
    db: handle,
    log: r.log,
    migrate: true,
    retryMs: 5,
    now: r.now,
  })
  t.teardown(() => availability.close())
  const started = availability.start()

  await until(() => availability.failures >= 3, 'three failed tries')
  t.equal(availability.ready, false)
  t.equal(r.warnings().length, 1, 'one line for three failures within the minute')
  const first = r.warnings()[0]!
  t.match(first.msg, /database unavailable \(localhost, database .*locked\.sqlite\): database is locked/)
  t.match(first.obj, { host: 'localhost', database: path, reason: 'sqlite busy' })
  t.type(first.obj.err, Error, 'the error is logged whole')
  t.equal(availability.lastError, 'database is locked')

  r.advance(60_000)
  const seen = availability.failures
  await until(() => availability.failures > seen, 'a try after the minute')
  t.equal(r.warnings().length, 2, 'a second line a minute later')

  other.exec('COMMIT')
  other.close()
  const result = await started
  t.ok(result && result.applied.length > 0, 'migrations applied once the lock was gone')
  t.equal(availability.ready, true)
  t.equal(availability.available, true)
  t.equal(availability.lastError, null)
  t.match(r.lines.at(-1), { level: 'info', msg: 'database available again' })
  t.ok((await tableNames(handle)).includes('hold_dialer_master_data'))
})

t.test('an error that waiting cannot fix (a broken migration) rejects start at once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hd-avail-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, '0001_broken.sqlite.sql'), 'CREATE TABLEX nope (id INTEGER);\n')
  const handle = connect(`sqlite:${join(dir, 'x.sqlite')}`)
  t.teardown(() => handle.close())
  const r = recorder()
  const availability = new DatabaseAvailability({
    db: handle,
    log: r.log,
    migrate: true,
    migrateOptions: { dir },
  })
  await t.rejects(availability.start(), /syntax error/)
  t.equal(availability.ready, false)
  t.equal(r.lines.length, 0)
})

t.test('report: only availability errors count; a probe finds the database back', async (t) => {
  const database = await createTestDatabase('sqlite')
  t.teardown(() => database.drop())
  const r = recorder()
  const availability = new DatabaseAvailability({
    db: database.handle,
    log: r.log,
    migrate: false,
    retryMs: 5,
    now: r.now,
  })
  t.teardown(() => availability.close())
  t.equal(await availability.start(), undefined, 'nothing migrated when not asked')
  t.equal(availability.available, true)
  t.equal(r.lines.length, 0, 'a database that answered at once logs nothing here')

  t.equal(availability.report(new TypeError('a bug')), undefined)
  t.equal(availability.available, true)
  t.equal(availability.report(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' })), 'sqlite busy')
  t.equal(availability.available, false)
  t.equal(r.warnings().length, 1)
  t.match(r.warnings()[0]!.msg, /requests get 503 until it answers/)
  await until(() => availability.available, 'the probe to find the database')
  t.match(r.lines.at(-1), { level: 'info', msg: 'database available again' })
})

t.test('not migrating at start: a database behind this version stops start with what to do', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hd-avail-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, '0001_first.sqlite.sql'), 'CREATE TABLE first (id INTEGER);\n')
  const handle = connect(`sqlite:${join(dir, 'x.sqlite')}`)
  t.teardown(() => handle.close())
  const start = (migrate: boolean) =>
    new DatabaseAvailability({ db: handle, log: recorder().log, migrate, migrateOptions: { dir } }).start()
  await t.rejects(
    start(false),
    {
      name: 'SchemaBehindError',
      pending: ['0001_first'],
      message: /lacks 1 migration\(s\) this version needs \(0001_first\): run pnpm db:migrate/,
    },
    'a database nothing migrated',
  )
  t.same(await start(true).then((r) => r?.applied), ['0001_first'])
  t.equal(await start(false), undefined, 'up to date: ready')
  // The next version brings a migration the database has not had.
  await writeFile(join(dir, '0002_second.sqlite.sql'), 'CREATE TABLE second (id INTEGER);\n')
  await t.rejects(
    start(false),
    { name: 'SchemaBehindError', pending: ['0002_second'] },
    'an upgrade whose migrations were not run',
  )
})

t.test('alreadyReady: a database its caller migrated is ready at once', async (t) => {
  const database = await createTestDatabase('sqlite')
  t.teardown(() => database.drop())
  const r = recorder()
  const watch = DatabaseAvailability.alreadyReady({ db: database.handle, log: r.log })
  t.equal(watch.ready, true)
  t.equal(watch.available, true)
  await watch.firstTry
  t.equal(await watch.start(), undefined, 'nothing tried, nothing migrated')
  t.equal(r.lines.length, 0)
})

if (testDialects().includes('mysql')) {
  const admin = new URL(testMysqlUrl())
  const adminConnection = () =>
    createConnection({
      host: admin.hostname,
      port: Number(admin.port || 3306),
      user: decodeURIComponent(admin.username),
      password: decodeURIComponent(admin.password),
    })

  async function waitsThenLogs(t: Test, url: string, message: RegExp): Promise<DatabaseAvailability> {
    const handle = connect(url)
    const r = recorder()
    const availability = new DatabaseAvailability({
      db: handle,
      log: r.log,
      migrate: true,
      retryMs: 10,
      now: r.now,
    })
    const started = availability.start().catch((err: unknown) => err)
    // Stop the tries first and let the one under way end, then close the pool: closing it under a
    // connect attempt to a refused port made that attempt's error surface in the teardown.
    t.teardown(async () => {
      availability.close()
      await started
      await handle.close()
    })
    await until(() => availability.failures >= 2, 'two failed tries')
    t.equal(availability.ready, false)
    t.equal(r.warnings().length, 1)
    t.match(r.warnings()[0]!.msg, message)
    t.notMatch(JSON.stringify(r.lines.map((l) => l.msg)), /wrong-password/, 'no password in the log')
    return availability
  }

  t.test('MySQL: unreachable, wrong password, unknown database: each waits with a clear line', async (t) => {
    await waitsThenLogs(
      t,
      'mysql://root@127.0.0.1:1/nowhere',
      /^database unavailable \(127\.0\.0\.1:1, database nowhere\): connect ECONNREFUSED/,
    )
    const wrong = new URL(testMysqlUrl())
    wrong.password = 'wrong-password'
    wrong.pathname = '/test'
    await waitsThenLogs(t, wrong.toString(), /: Access denied for user/)
  })

  t.test('MySQL: an unknown database at start is migrated once it is created', async (t) => {
    const admin = await adminConnection()
    const name = await testDatabaseName(admin, 'avail')
    await admin.end()
    const url = new URL(testMysqlUrl())
    url.pathname = `/${name}`
    t.teardown(async () => {
      const c = await adminConnection()
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await c.end()
    })
    const handle = connect(url.toString())
    t.teardown(() => handle.close())
    const r = recorder()
    const availability = new DatabaseAvailability({ db: handle, log: r.log, migrate: true, retryMs: 10 })
    t.teardown(() => availability.close())
    const started = availability.start()
    await until(() => availability.failures >= 1, 'a failed try')
    t.match(r.warnings()[0]?.msg, new RegExp(`database ${name}\\): Unknown database '${name}'`))
    const c = await adminConnection()
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`)
    await c.end()
    const result = await started
    t.ok(result && result.applied.length > 0)
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM hold_dialer_priority`.execute(
      handle.kysely,
    )
    t.ok(Number(rows[0]?.n) > 0, 'seeded by the migrations')
  })
}
