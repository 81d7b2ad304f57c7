import t from 'tap'
import { runStatement, type Statement, withBatchTransaction } from '../src/index.js'
import { forEachDialect } from '../src/testing/index.js'

const insert = (name: string): Statement => ({
  sql: 'INSERT INTO dialer_employee (name, extension, email) VALUES (?, ?, ?)',
  params: [name, null, null],
})
const select = (name: string): Statement => ({
  sql: 'SELECT id, name, email FROM dialer_employee WHERE name = ? ORDER BY id',
  params: [name],
})

forEachDialect(t, async (t, database) => {
  const handle = database.handle
  const { kysely: db } = handle
  const named = async (name: string) =>
    (await db.selectFrom('dialer_employee').select(['name', 'email']).where('name', '=', name).execute()).map(
      (r) => r.email,
    )

  t.test('runs statements in order and returns each result; commit keeps them', async (t) => {
    const out = await withBatchTransaction(handle, async (s) => {
      const [a, b, rows] = await s.run([insert('b1'), insert('b1'), select('b1')])
      t.equal(a!.affectedRows, 1)
      t.equal(b!.affectedRows, 1)
      t.equal(rows!.rows.length, 2, 'a later statement of the batch sees the earlier ones')
      const [update] = await s.run(
        [{ sql: 'UPDATE dialer_employee SET email = ? WHERE name = ?', params: ['x@example.test', 'b1'] }],
        { commit: true },
      )
      return update!.affectedRows
    })
    t.equal(out, 2)
    t.same(await named('b1'), ['x@example.test', 'x@example.test'])
  })

  t.test('a session that ends without commit is rolled back', async (t) => {
    const value = await withBatchTransaction(handle, async (s) => {
      await s.run([insert('no-commit')])
      return 'done'
    })
    t.equal(value, 'done')
    t.same(await named('no-commit'), [])
  })

  t.test('a failing statement rolls back the whole transaction, earlier batches too', async (t) => {
    await t.rejects(
      withBatchTransaction(handle, async (s) => {
        await s.run([insert('failed')])
        await s.run([insert('failed'), { sql: 'SELECT no_such_column FROM dialer_employee', params: [] }], {
          commit: true,
        })
      }),
    )
    t.same(await named('failed'), [])
    // The connection is usable afterwards, outside any transaction.
    await withBatchTransaction(handle, (s) => s.run([insert('after')], { commit: true }))
    t.same(await named('after'), [null])
  })

  t.test('an error thrown by the caller rolls back and is rethrown unchanged', async (t) => {
    const boom = new Error('caller')
    await t.rejects(
      withBatchTransaction(handle, async (s) => {
        await s.run([insert('thrown')])
        throw boom
      }),
      boom,
    )
    t.same(await named('thrown'), [])
  })

  t.test('a retryable error runs the whole session again', async (t) => {
    let calls = 0
    const busy = Object.assign(new Error('busy'), {
      code: database.dialect === 'mysql' ? 'ER_LOCK_DEADLOCK' : 'SQLITE_BUSY',
    })
    await withBatchTransaction(
      handle,
      async (s) => {
        calls++
        await s.run([insert('retried')], { commit: calls > 1 })
        if (calls === 1) throw busy
      },
      { baseDelayMs: 1 },
    )
    t.equal(calls, 2)
    t.same(await named('retried'), [null], 'the first try left nothing behind')
  })

  t.test('values are placeholders, never SQL', async (t) => {
    const name = "x'); DELETE FROM dialer_employee; --"
    await withBatchTransaction(handle, (s) => s.run([insert(name)], { commit: true }))
    t.same(await named(name), [null])
    t.ok((await named('b1')).length === 2, 'nothing else was touched')
  })

  t.test('a statement runs on Kysely too, in its transaction, with its changed rows and rows', async (t) => {
    await runStatement(db, insert('rs1'))
    const changed = await db.transaction().execute(async (trx) => {
      const update = await runStatement(trx, {
        sql: 'UPDATE dialer_employee SET email = ? WHERE name = ?',
        params: ['rs@example.test', 'rs1'],
      })
      t.same((await runStatement(trx, select('rs1'))).rows.length, 1, 'a read returns its rows')
      return update.affectedRows
    })
    t.equal(changed, 1)
    t.same(await named('rs1'), ['rs@example.test'])
  })

  if (database.dialect === 'mysql') {
    t.test('the batch pool runs in the same session settings as the main pool', async (t) => {
      const [row] = await withBatchTransaction(handle, async (s) => {
        const [r] = await s.run([
          { sql: 'SELECT @@session.time_zone AS tz, @@session.tx_isolation AS iso', params: [] },
        ])
        return r!.rows
      })
      t.same(row, { tz: '+00:00', iso: 'READ-COMMITTED' })
    })
  }
})
