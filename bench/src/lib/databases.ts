import { mkdirSync, rmSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { connect, type Db, type Dialect, migrate } from '@hold-dialer/db'
import { createConnection } from 'mysql2/promise'

/** Server the MariaDB half runs against; the bench creates and drops its own databases on it. */
export function mysqlServerUrl(): URL {
  return new URL(process.env.BENCH_MYSQL_URL || process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/')
}

export function adminConnection() {
  const u = mysqlServerUrl()
  return createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  })
}

/** A `DATABASE_URL` for a fresh, empty database of this dialect (dropped first if it exists). */
export async function freshDatabaseUrl(dialect: Dialect, name: string): Promise<string> {
  if (dialect === 'sqlite') {
    const path = resolve('bench-results', 'db', `${name}.sqlite`)
    mkdirSync(dirname(path), { recursive: true })
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
    return `sqlite:${path}`
  }
  const conn = await adminConnection()
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``)
  await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`)
  await conn.end()
  const u = mysqlServerUrl()
  u.pathname = `/${name}`
  return u.toString()
}

export async function dropDatabase(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
    return
  }
  const conn = await adminConnection()
  await conn.query(`DROP DATABASE IF EXISTS \`${new URL(url).pathname.slice(1)}\``)
  await conn.end()
}

/** Opens and migrates a bench database with the product's own connection factory. */
export async function openMigrated(url: string, poolSize = 40): Promise<Db> {
  const db = connect(url, { poolSize })
  await migrate(db)
  return db
}

/** The server settings that decide write throughput, printed beside the figures. */
export async function mariadbSettings(): Promise<Record<string, string>> {
  const conn = await adminConnection()
  const [rows] = await conn.query(
    `SHOW VARIABLES WHERE Variable_name IN ('version', 'innodb_flush_log_at_trx_commit', 'sync_binlog',
      'log_bin', 'innodb_buffer_pool_size', 'innodb_log_file_size', 'innodb_doublewrite',
      'innodb_flush_method', 'max_connections')`,
  )
  await conn.end()
  const out: Record<string, string> = {}
  for (const r of rows as { Variable_name: string; Value: string }[]) out[r.Variable_name] = r.Value
  return out
}
