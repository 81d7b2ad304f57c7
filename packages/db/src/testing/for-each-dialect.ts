import type { Test } from 'tap'
import type { Dialect } from '../connect.js'
import { createTestDatabase, recordDialectResult, type TestDatabase, testDialects } from './test-database.js'

/**
 * Runs `fn` once per dialect under test, each in a subtest named after the dialect with its own
 * fresh, migrated database that is dropped when the subtest ends.
 */
export async function forEachDialect(
  t: Test,
  fn: (t: Test, database: TestDatabase) => Promise<void>,
): Promise<void> {
  for (const dialect of testDialects()) {
    await runOnDialect(t, dialect, fn)
  }
}

async function runOnDialect(
  t: Test,
  dialect: Dialect,
  fn: (t: Test, database: TestDatabase) => Promise<void>,
): Promise<void> {
  const result = await t.test(dialect, async (st) => {
    const database = await createTestDatabase(dialect)
    st.teardown(() => database.drop())
    await fn(st, database)
  })
  recordDialectResult(dialect, t.name, result?.ok ?? false)
}
