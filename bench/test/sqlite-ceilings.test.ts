import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { seedPendingLeads } from '../src/claims/claim-pool.js'
import { rawSqliteClaims } from '../src/claims/raw-claims.js'
import { openMigrated } from '../src/lib/databases.js'
import { leadBody } from '../src/lib/lead-mix.js'
import { PlainGroupCommit } from '../src/lib/plain-group-commit.js'
import { openPlainSqlite, sqliteGroupUpsertCeiling, sqliteUpsertCeiling } from '../src/push/sqlite-ceiling.js'

/** A migrated SQLite file of its own for one test, deleted after it. */
async function freshFile(t: { teardown(fn: () => void): void }): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ceiling-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'ceiling.sqlite')
  const db = await openMigrated(`sqlite:${path}`, 1)
  await db.close()
  return path
}

let made = 0
const freshLead = () => {
  made += 1
  return leadBody(`G${String(made).padStart(8, '0')}`, `7${String(made).padStart(10, '0')}`)
}

t.test('the group commit writes every waiting request in one group, and the next ones after', async (t) => {
  const written: number[][] = []
  const groups = new PlainGroupCommit<number, number>((reqs) => {
    written.push([...reqs])
    return reqs.map((r) => r * 10)
  })
  const first = await Promise.all([1, 2, 3].map((n) => groups.submit(n)))
  t.same(first, [10, 20, 30], 'each request gets its own result')
  t.same(await groups.submit(4), 40)
  t.same(written, [[1, 2, 3], [4]])
  t.same([groups.groups, groups.requests], [2, 4])
  const failing = new PlainGroupCommit<number, number>(() => {
    throw new Error('disk full')
  })
  const both = [failing.submit(1), failing.submit(2)]
  for (const p of both) await t.rejects(p, /disk full/, 'every request of a failed group fails')
})

t.test('single-lead ceiling: each row written once, 16 clients committing in groups', async (t) => {
  const path = await freshFile(t)
  const r = await sqliteGroupUpsertCeiling(path, { clients: 16, seconds: 0.3, next: () => [freshLead()] })
  const handle = openPlainSqlite(path)
  t.teardown(() => handle.close())
  const { n } = handle.prepare('SELECT COUNT(*) AS n FROM hold_dialer_master_data').get() as { n: number }
  t.ok(r.requests > 16, `${r.requests} requests`)
  t.equal(n, r.rows, 'one row per lead written')
  t.equal(r.rows, r.requests, 'one lead per request')
  t.ok(r.commits !== undefined && r.commits < r.requests, `${r.commits} commits for ${r.requests} requests`)
  t.ok((r.commits ?? 0) * 16 >= r.requests, 'no group holds more than the 16 clients')
})

t.test('batch ceiling: one commit per request', async (t) => {
  const path = await freshFile(t)
  const r = sqliteUpsertCeiling(path, { seconds: 0.2, next: () => [freshLead(), freshLead()] })
  t.equal(r.commits, r.requests)
  t.equal(r.rows, 2 * r.requests)
})

t.test('claims ceiling: claims made together share a commit, each lead claimed once', async (t) => {
  const path = await freshFile(t)
  const db = await openMigrated(`sqlite:${path}`, 1)
  await seedPendingLeads(db.kysely, 3000)
  await db.close()
  const handle = openPlainSqlite(path)
  t.teardown(() => handle.close())
  const r = await rawSqliteClaims(handle, { claimers: 30, seconds: 0.3 })
  t.equal(r.doubleClaims, 0)
  t.ok(r.claims > 30, `${r.claims} claims`)
  // One commit per settle, plus one per group of claims: far fewer groups than claims.
  const claimGroups = r.commits - r.claims
  t.ok(claimGroups > 0 && claimGroups * 5 < r.claims, `${claimGroups} claim commits for ${r.claims} claims`)
  const { settled } = handle
    .prepare("SELECT COUNT(*) AS settled FROM hold_dialer_master_data WHERE dial_status = 'Not Connected'")
    .get() as { settled: number }
  t.ok(settled >= r.claims, 'every claim was settled')
})
