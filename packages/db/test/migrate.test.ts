import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import t from 'tap'
import { connect, loadMigrations, migrate, splitStatements } from '../src/index.js'
import { childEntry, createTestDatabase, forEachDialect } from '../src/testing/index.js'

const migrateCli = fileURLToPath(new URL('../src/cli/migrate.ts', import.meta.url))

/** Every column the specification names, plus DECISIONS section 4's additions. */
const EXPECTED_COLUMNS: Record<string, string[]> = {
  hold_dialer_master_data: [
    'oli_id',
    'phone_number',
    'client_name',
    'form_type',
    'priority_id',
    'callback_scheduled_at',
    'dial_status',
    'last_dial_result',
    'hangup_by',
    'hangup_cause',
    'last_attempt_at',
    'first_attempt_at',
    'next_retry_at',
    'call_count',
    'isReserved',
    'isRnrSent',
    'push_date',
    'status',
    'agent_id',
    'reserved_by',
    'reserved_at',
    'previous_status',
  ],
  hold_dialer_disposed: [
    'oli_id',
    'phone_number',
    'dial_status',
    'call_count',
    'isReserved',
    'isRnrSent',
    'disposed_at',
    'disposed_reason',
    'master_id',
  ],
  hold_dialer_priority: ['id', 'name', 'is_active', 'is_callback', 'is_dialable'],
  hold_dialer_call_attempts: ['oli_id', 'agent_id', 'uniqueid', 'hangup_cause', 'started_at', 'ended_at'],
  dialer_employee: [
    'id',
    'name',
    'extension',
    'email',
    'is_active',
    'presence',
    'panel_seen_at',
    'wrap_until',
  ],
  hold_dialer_heartbeat: ['dialer_id', 'seen_at', 'ami_state', 'active_calls'],
  hold_dialer_rnr_outbox: ['oli_id', 'subject', 'body', 'attempts', 'sent_at'],
}

t.test('splitStatements drops comment lines and splits at line-ending semicolons', async (t) => {
  t.same(splitStatements('-- note\nCREATE TABLE a (x INT);\nCREATE INDEX i ON a (x);\n'), [
    'CREATE TABLE a (x INT)',
    'CREATE INDEX i ON a (x)',
  ])
  t.same(splitStatements("INSERT INTO a VALUES ('x;y');"), ["INSERT INTO a VALUES ('x;y')"])
})

t.test('each migration exists for both dialects, numbered and in order', async (t) => {
  const mysql = await loadMigrations('mysql')
  const sqlite = await loadMigrations('sqlite')
  t.same(
    mysql.map((m) => m.id),
    sqlite.map((m) => m.id),
  )
  t.ok(mysql.length >= 13)
  t.same(
    mysql.map((m) => m.id),
    [...mysql.map((m) => m.id)].sort(),
  )
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle

  t.test('creates every table with the spec column names', async (t) => {
    const tables = await db.introspection.getTables()
    for (const [table, columns] of Object.entries(EXPECTED_COLUMNS)) {
      const found = tables.find((x) => x.name === table)
      t.ok(found, `${table} exists`)
      const names = found?.columns.map((c) => c.name) ?? []
      for (const c of columns) t.ok(names.includes(c), `${table}.${c}`)
    }
  })

  t.test('seeds the four priorities with their flags', async (t) => {
    const rows = await db.selectFrom('hold_dialer_priority').selectAll().orderBy('id').execute()
    t.same(
      rows.map((r) => [r.id, r.is_active, r.is_callback, r.is_dialable]),
      [
        [1, 1, 0, 1],
        [2, 1, 1, 1],
        [3, 1, 0, 0],
        [8, 1, 0, 1],
      ],
    )
  })

  t.test('a second run is a no-op', async (t) => {
    const again = await migrate(database.handle)
    t.same(again.applied, [])
    t.equal(again.alreadyApplied, (await loadMigrations(database.dialect)).length)
  })

  t.test('oli_id is unique, case-sensitive and trailing spaces are significant', async (t) => {
    const row = (oli: string) => ({
      oli_id: oli,
      phone_number: '5551234567',
      client_name: 'A',
      form_type: 'f',
      priority_id: 1,
      dial_status: 'Pending' as const,
      call_count: 0,
      isReserved: 0,
      isRnrSent: 0,
      push_date: '2026-01-01 00:00:00.000',
      status: 1,
      created_at: '2026-01-01 00:00:00.000',
      agent_id: null,
    })
    await db
      .insertInto('hold_dialer_master_data')
      .values([row('abc'), row('ABC'), row('abc ')])
      .execute()
    await t.rejects(db.insertInto('hold_dialer_master_data').values(row('abc')).execute())
  })

  t.test('the claim-order indexes exist', async (t) => {
    const names =
      database.dialect === 'mysql'
        ? (await sql<{ Key_name: string }>`SHOW INDEX FROM hold_dialer_master_data`.execute(db)).rows.map(
            (r) => r.Key_name,
          )
        : (await sql<{ name: string }>`PRAGMA index_list(hold_dialer_master_data)`.execute(db)).rows.map(
            (r) => r.name,
          )
    for (const ix of [
      'uq_master_oli_id',
      'ix_master_claim_callback',
      'ix_master_claim_retry',
      'ix_master_claim_pending',
      'ix_master_pinned',
      'ix_master_reserved',
    ]) {
      t.ok(names.includes(ix), ix)
    }
  })
})

function runMigrateCli(url: string, args: string[] = []): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...childEntry(migrateCli), ...args], {
      env: { ...process.env, DATABASE_URL: url },
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('close', (code) => resolve({ code, out }))
  })
}

for (const dialect of ['sqlite', 'mysql'] as const) {
  if (!(process.env.TEST_DIALECTS ?? 'sqlite,mysql').includes(dialect)) continue
  t.test(`${dialect}: two concurrent migrate processes on an empty database`, async (t) => {
    const database = await createTestDatabase(dialect, { migrate: false })
    t.teardown(() => database.drop())
    const [a, b] = await Promise.all([runMigrateCli(database.url), runMigrateCli(database.url)])
    t.equal(a.code, 0, a.out)
    t.equal(b.code, 0, b.out)
    const total = (await loadMigrations(dialect)).length
    const appliedA = (a.out.match(/^applied /gm) ?? []).length
    const appliedB = (b.out.match(/^applied /gm) ?? []).length
    t.equal(appliedA + appliedB, total, 'each migration applied exactly once across both processes')
    const check = connect(database.url)
    const ledger = await check.kysely.selectFrom('hold_dialer_schema_migrations').select('id').execute()
    t.equal(ledger.length, total)
    const priorities = await check.kysely.selectFrom('hold_dialer_priority').select('id').execute()
    t.equal(priorities.length, 4, 'seed applied once')
    await check.close()
  })
}

t.test('db:migrate --help prints its usage and migrates nothing; an unknown flag is refused', async (t) => {
  const dir = t.testdir({})
  const url = `sqlite:${dir}/never.sqlite`
  const help = await runMigrateCli(url, ['--help'])
  t.equal(help.code, 0)
  t.match(help.out, /^usage: pnpm db:migrate \[--help\]/)
  const bogus = await runMigrateCli(url, ['--bogus'])
  t.equal(bogus.code, 2)
  t.match(bogus.out, /db:migrate: Unknown option '--bogus'/)
  t.notOk(existsSync(`${dir}/never.sqlite`), 'no database was created')
})
