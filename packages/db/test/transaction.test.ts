import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import { createConnection } from 'mysql2/promise'
import t from 'tap'
import { connect, retryableReason, TransactionFailedError, withRetry, withTransaction } from '../src/index.js'
import { forEachDialect, testMysqlUrl, unlessAlreadyGone } from '../src/testing/index.js'

t.test('retryableReason: one table of retryable database errors', async (t) => {
  t.equal(retryableReason({ errno: 1213 }), 'deadlock')
  t.equal(retryableReason({ code: 'ER_LOCK_DEADLOCK' }), 'deadlock')
  t.equal(retryableReason({ errno: 1205 }), 'lock wait timeout')
  t.equal(retryableReason({ code: 'PROTOCOL_CONNECTION_LOST' }), 'lost connection')
  t.equal(retryableReason({ errno: 2013 }), 'lost connection')
  t.equal(retryableReason({ errno: 1927 }), 'connection killed by server')
  t.equal(retryableReason({ code: 'SQLITE_BUSY' }), 'sqlite busy')
  t.equal(retryableReason({ code: 'SQLITE_BUSY_SNAPSHOT' }), 'sqlite busy')
  t.equal(retryableReason({ code: 'SQLITE_LOCKED' }), 'sqlite locked')
  t.equal(retryableReason({ errno: 1317 }), 'query interrupted')
  const closed = Object.assign(new Error("Can't add new command when connection is in closed state"), {
    fatal: true,
  })
  t.equal(retryableReason(closed), 'lost connection', "mysql2's closed-state error carries no code")
  t.equal(retryableReason({ errno: 1062, code: 'ER_DUP_ENTRY' }), undefined)
  t.equal(retryableReason(new Error('x')), undefined)
  t.equal(retryableReason('text'), undefined)
  t.equal(retryableReason(null), undefined)
})

const employee = (name: string) => ({
  name,
  extension: null,
  email: null,
  panel_seen_at: null,
  wrap_until: null,
})

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle

  t.test('commits on success and returns the value', async (t) => {
    const id = await withTransaction(db, async (trx) => {
      const r = await trx.insertInto('dialer_employee').values(employee('a')).executeTakeFirstOrThrow()
      return Number(r.insertId)
    })
    t.ok(id > 0)
    t.equal(
      (await db.selectFrom('dialer_employee').select('name').where('id', '=', id).executeTakeFirst())?.name,
      'a',
    )
  })

  t.test('rolls back and rethrows a non-retryable error unchanged, without retrying', async (t) => {
    let calls = 0
    const boom = new Error('bad input')
    await t.rejects(
      withTransaction(db, async (trx) => {
        calls++
        await trx.insertInto('dialer_employee').values(employee('rolled-back')).execute()
        throw boom
      }),
      boom,
    )
    t.equal(calls, 1)
    t.equal(
      (await db.selectFrom('dialer_employee').select('id').where('name', '=', 'rolled-back').execute())
        .length,
      0,
    )
  })

  t.test('gives up after the retries with TransactionFailedError carrying the cause', async (t) => {
    let calls = 0
    const busy = Object.assign(new Error('busy'), {
      code: database.dialect === 'mysql' ? 'ER_LOCK_DEADLOCK' : 'SQLITE_BUSY',
    })
    const retries: number[] = []
    const err = await withTransaction(
      db,
      async () => {
        calls++
        throw busy
      },
      { retries: 2, baseDelayMs: 1, onRetry: (i) => retries.push(i.attempt) },
    ).catch((e: unknown) => e)
    t.type(err, TransactionFailedError)
    t.equal((err as Error).cause, busy)
    t.equal(calls, 3)
    t.same(retries, [1, 2])
  })

  t.test('withRetry runs a statement again on a retryable error, and only then', async (t) => {
    let calls = 0
    const value = await withRetry(
      async () => {
        calls++
        if (calls < 3) throw Object.assign(new Error('lost'), { code: 'PROTOCOL_CONNECTION_LOST' })
        return 'done'
      },
      { baseDelayMs: 1 },
    )
    t.equal(value, 'done')
    t.equal(calls, 3)
    const bug = new TypeError('bug')
    await t.rejects(
      withRetry(async () => {
        throw bug
      }),
      bug,
    )
  })

  if (database.dialect === 'mysql') {
    const admin = async () => {
      const u = new URL(testMysqlUrl())
      return createConnection({
        host: u.hostname,
        port: Number(u.port || 3306),
        user: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
      })
    }
    /** Kills every connection the server has open to this test database, as an operator or a fail-over would. */
    const killPool = async () => {
      const c = await admin()
      const [rows] = await c.query(
        'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()',
        [database.handle.target.database],
      )
      for (const row of rows as { ID: number }[])
        await c.query(`KILL CONNECTION ${Number(row.ID)}`).catch(unlessAlreadyGone)
      await c.end()
    }

    t.test('a transaction whose connection is killed server-side runs again on a fresh one', async (t) => {
      let attempts = 0
      const reasons: string[] = []
      const c = await admin()
      t.teardown(() => c.end())
      await withTransaction(
        db,
        async (trx) => {
          attempts++
          const { rows } = await sql<{ id: number }>`SELECT CONNECTION_ID() AS id`.execute(trx)
          if (attempts === 1) await c.query(`KILL CONNECTION ${Number(rows[0]?.id)}`)
          await trx.insertInto('dialer_employee').values(employee('after-kill')).execute()
        },
        { baseDelayMs: 1, onRetry: (i) => reasons.push(i.reason) },
      )
      t.equal(attempts, 2)
      t.same(reasons, ['lost connection'])
      const rows = await db
        .selectFrom('dialer_employee')
        .select('id')
        .where('name', '=', 'after-kill')
        .execute()
      t.equal(rows.length, 1, 'written once')
    })

    t.test('a read on a pool whose connections were all killed is retried on a fresh one', async (t) => {
      // Fill the pool with idle connections, then kill them all behind its back.
      await Promise.all(Array.from({ length: 5 }, () => sql`SELECT SLEEP(0.01)`.execute(db)))
      await killPool()
      const reasons: string[] = []
      const rows = await withRetry(() => db.selectFrom('hold_dialer_priority').select('id').execute(), {
        baseDelayMs: 1,
        retries: 10,
        onRetry: (i) => reasons.push(i.reason),
      })
      t.ok(rows.length > 0)
      t.ok(
        reasons.every((r) => r === 'lost connection'),
        reasons.join(),
      )
    })

    t.test('a real deadlock between two transactions is retried and both finish', async (t) => {
      const a = await db.insertInto('dialer_employee').values(employee('lock-a')).executeTakeFirstOrThrow()
      const b = await db.insertInto('dialer_employee').values(employee('lock-b')).executeTakeFirstOrThrow()
      const ids = [Number(a.insertId), Number(b.insertId)]
      let retried = 0
      let gate!: () => void
      const bothLocked = new Promise<void>((r) => {
        let n = 0
        gate = () => {
          if (++n === 2) r()
        }
      })
      let first = true
      const lockInOrder = (order: number[], tag: string) =>
        withTransaction(
          db,
          async (trx) => {
            await trx.updateTable('dialer_employee').set({ email: tag }).where('id', '=', order[0]!).execute()
            if (first || order[0] === ids[1]) {
              gate()
              await bothLocked
            }
            await trx.updateTable('dialer_employee').set({ email: tag }).where('id', '=', order[1]!).execute()
          },
          {
            baseDelayMs: 5,
            onRetry: () => {
              retried++
              first = false
            },
          },
        )
      await Promise.all([lockInOrder(ids, 'a'), lockInOrder([ids[1]!, ids[0]!], 'b')])
      t.ok(retried >= 1, `deadlock retried ${retried} time(s)`)
      // Both transactions committed whole, one after the other: both rows carry the later one's tag.
      const rows = await db.selectFrom('dialer_employee').select('email').where('id', 'in', ids).execute()
      t.equal(rows.length, 2)
      t.equal(rows[0]?.email, rows[1]?.email)
      t.match(rows[0]?.email, /^[ab]$/)
    })

    t.test('sessions run in UTC, strict mode, READ COMMITTED', async (t) => {
      const { rows } = await sql<{ tz: string; iso: string; mode: string }>`
        SELECT @@session.time_zone AS tz, @@session.tx_isolation AS iso, @@session.sql_mode AS mode`.execute(
        db,
      )
      t.equal(rows[0]?.tz, '+00:00')
      t.equal(rows[0]?.iso, 'READ-COMMITTED')
      t.match(rows[0]?.mode, /STRICT_ALL_TABLES/)
      await t.rejects(
        db
          .insertInto('dialer_employee')
          .values(employee('x'.repeat(151)))
          .execute(),
        /too long/i,
      )
    })
  } else {
    t.test('SQLITE_BUSY from another process holding the write lock is retried', async (t) => {
      const path = database.handle.target.database
      const quick = connect(`sqlite:${path}`, { sqliteBusyTimeoutMs: 20 })
      const other = new BetterSqlite3(path)
      other.exec('BEGIN IMMEDIATE')
      setTimeout(() => other.exec('COMMIT'), 80)
      let retried = 0
      await withTransaction(
        quick.kysely,
        (trx) => trx.insertInto('dialer_employee').values(employee('after-busy')).execute(),
        {
          baseDelayMs: 40,
          retries: 10,
          onRetry: () => retried++,
        },
      )
      t.ok(retried >= 1)
      t.equal(
        (await db.selectFrom('dialer_employee').select('id').where('name', '=', 'after-busy').execute())
          .length,
        1,
      )
      other.close()
      await quick.close()
    })

    t.test('sqlite runs in WAL mode with a busy timeout', async (t) => {
      const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db)
      t.equal(rows[0]?.journal_mode, 'wal')
    })
  }

  t.test('timestamps round-trip as identical UTC text on both engines', async (t) => {
    const stamp = '2026-03-29 01:30:00.123'
    const r = await db
      .insertInto('dialer_employee')
      .values({ ...employee('time'), panel_seen_at: stamp })
      .executeTakeFirstOrThrow()
    const row = await db
      .selectFrom('dialer_employee')
      .select('panel_seen_at')
      .where('id', '=', Number(r.insertId))
      .executeTakeFirst()
    t.equal(row?.panel_seen_at, stamp)
  })
})

t.test('describeDatabaseUrl never exposes the password', async (t) => {
  const { describeDatabaseUrl } = await import('../src/index.js')
  t.same(describeDatabaseUrl('mysql://u:secret@db.example:3307/leads'), {
    dialect: 'mysql',
    host: 'db.example:3307',
    database: 'leads',
  })
  t.same(describeDatabaseUrl('mysql://u@db/leads'), { dialect: 'mysql', host: 'db:3306', database: 'leads' })
  t.equal(describeDatabaseUrl('sqlite::memory:').database, ':memory:')
  t.match(describeDatabaseUrl('sqlite:./x.sqlite').database, /\/x\.sqlite$/)
  t.throws(() => describeDatabaseUrl('postgres://x'), /DATABASE_URL/)
})
