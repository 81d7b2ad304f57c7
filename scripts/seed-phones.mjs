#!/usr/bin/env node
// Seeds a new database with leads stored as an API of an earlier version stored them (digits only,
// phone_e164 and customer_tz NULL), to time `pnpm phones backfill` on it (docs/benchmarks.md):
//
//   pnpm build && node scripts/seed-phones.mjs sqlite:/tmp/backfill.sqlite --rows 1000000
//   DATABASE_URL=sqlite:/tmp/backfill.sqlite pnpm phones backfill
//
// The numbers are a mix a CRM might have sent: 60% US national (10 digits, real area codes), 15%
// British and 15% Indian with their country code, 10% that cannot be read. The database must not
// exist yet (an SQLite file is created, a MariaDB database is CREATEd); drop it afterwards.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { useSupportedNode } from './node-runtime.mjs'

await useSupportedNode()
const root = new URL('..', import.meta.url).pathname
const { connect, describeDatabaseUrl, migrate } = await import(`${root}packages/db/dist/index.js`)

const { positionals, values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' } },
  allowPositionals: true,
})
const [url] = positionals
const rows = Number(values.rows)
if (url === undefined || !Number.isInteger(rows) || rows < 1) {
  process.stderr.write('usage: node scripts/seed-phones.mjs <DATABASE_URL> [--rows N]\n')
  process.exit(2)
}
const target = describeDatabaseUrl(url)
if (target.dialect === 'sqlite') {
  if (existsSync(target.database)) {
    process.stderr.write(`seed-phones: ${target.database} exists; give a new file\n`)
    process.exit(2)
  }
} else {
  const mysql = createRequire(`${root}packages/db/package.json`)('mysql2/promise')
  const u = new URL(url)
  const conn = await mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  })
  // Fails when it exists: this script never writes into a database it did not make.
  await conn.query(`CREATE DATABASE \`${target.database}\``)
  await conn.end()
}

const handle = connect(url)
await migrate(handle)
const db = handle.kysely

// A fixed-seed generator (mulberry32), so every run seeds the same numbers.
let state = 42
const random = () => {
  state = (state + 0x6d2b79f5) | 0
  let x = Math.imul(state ^ (state >>> 15), 1 | state)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}
const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('')
const US_AREAS = ['212', '312', '415', '469', '713', '305', '206', '617', '702', '808', '907', '361']
function phone() {
  const pick = random()
  if (pick < 0.6)
    return `${US_AREAS[Math.floor(random() * US_AREAS.length)]}${2 + Math.floor(random() * 8)}${digits(6)}`
  if (pick < 0.75) return random() < 0.5 ? `4420${digits(8)}` : `447${digits(9)}`
  if (pick < 0.9) return `91${7 + Math.floor(random() * 3)}${digits(9)}`
  return random() < 0.5 ? digits(5) : `0${digits(9)}`
}

const stamp = '2026-01-05 10:00:00.000'
const lead = (n) => ({
  oli_id: `seed-${n}`,
  phone_number: phone(),
  client_name: 'Seeded',
  form_type: 'seed',
  priority_id: 1,
  dial_status: 'Pending',
  call_count: 0,
  isReserved: 0,
  isRnrSent: 0,
  status: 1,
  push_date: stamp,
  created_at: stamp,
  customer_tz: null,
  phone_e164: null,
})

const PER_STATEMENT = 1000
const PER_TRANSACTION = 50_000
const started = performance.now()
for (let at = 0; at < rows; at += PER_TRANSACTION) {
  const end = Math.min(rows, at + PER_TRANSACTION)
  await db.transaction().execute(async (trx) => {
    for (let i = at; i < end; i += PER_STATEMENT) {
      const batch = []
      for (let n = i; n < Math.min(end, i + PER_STATEMENT); n++) batch.push(lead(n))
      await trx.insertInto('hold_dialer_master_data').values(batch).execute()
    }
  })
  process.stderr.write(`seed-phones: ${end}/${rows} leads\n`)
}
await handle.close()
process.stdout.write(
  `seed-phones: ${rows} leads with no international form in ${target.database} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
)
