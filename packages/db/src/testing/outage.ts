import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import type { Test } from 'tap'
import { connect } from '../connect.js'
import { migrate } from '../migrate.js'
import { TcpProxy } from './tcp-proxy.js'
import { createTestDatabase, type TestDatabase, testMysqlUrl } from './test-database.js'

/**
 * A database a test can take away and give back for real (DECISIONS section 3, "Database
 * unavailable"): on SQLite another connection holds the write lock, on MariaDB the connections go
 * through a relay that is cut. Nothing is mocked.
 */
export interface Outage {
  database: TestDatabase
  /** Makes the database unusable for the API (it may already be). */
  takeAway(): Promise<void>
  giveBack(): Promise<void>
}

/** A fresh SQLite file (migrated when asked) that a test can lock from another connection. */
export async function sqliteOutage(t: Test, options: { migrate?: boolean } = {}): Promise<Outage> {
  const dir = await mkdtemp(join(tmpdir(), 'hd-outage-'))
  const path = join(dir, 'outage.sqlite')
  // The other process: its own connection to the file (in WAL mode, as every process opens it).
  const other = connect(`sqlite:${path}`)
  let locked = false
  // A short busy timeout, so each try fails in milliseconds instead of the default 5 s.
  const handle = connect(`sqlite:${path}`, { sqliteBusyTimeoutMs: 10 })
  if (options.migrate) await migrate(handle)
  t.teardown(async () => {
    if (locked) await sql`ROLLBACK`.execute(other.kysely)
    await other.close()
    await handle.close()
    await rm(dir, { recursive: true, force: true })
  })
  return {
    database: { dialect: 'sqlite', url: `sqlite:${path}`, handle, drop: async () => {} },
    takeAway: async () => {
      if (!locked) await sql`BEGIN IMMEDIATE`.execute(other.kysely)
      locked = true
    },
    giveBack: async () => {
      if (locked) await sql`COMMIT`.execute(other.kysely)
      locked = false
    },
  }
}

/**
 * A fresh MariaDB database (migrated when asked) reached through a relay that starts cut: call
 * `giveBack()` to open it.
 */
export async function mysqlOutage(t: Test, options: { migrate?: boolean } = {}): Promise<Outage> {
  const real = await createTestDatabase('mysql', { migrate: options.migrate ?? false })
  const server = new URL(testMysqlUrl())
  const proxy = await TcpProxy.create({ host: server.hostname, port: Number(server.port || 3306) })
  const url = new URL(real.url)
  url.host = `127.0.0.1:${proxy.port}`
  const handle = connect(url.toString())
  t.teardown(async () => {
    // The relay is opened before the pool is closed: a pool ends its connections with a goodbye to
    // the server, and a connection whose relay was cut mid-query (a dialer still polling when the
    // test ends) could leave that goodbye unanswered and the test file open until tap's timeout.
    await proxy.up()
    await handle.close()
    await proxy.down()
    await real.drop()
  })
  return {
    database: { dialect: 'mysql', url: url.toString(), handle, drop: async () => {} },
    takeAway: () => proxy.down(),
    giveBack: () => proxy.up(),
  }
}
