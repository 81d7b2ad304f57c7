import { customerZoneColumn, internationalFormOfDigits } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.js'
import { withTransaction } from '../transaction.js'
import { dialectOf } from './dialect-of.js'

/** How stored digits are read: national numbers' country and the clock of a number with none. */
export interface PhoneReading {
  /** DEFAULT_COUNTRY, else TIMEZONE's country (`phoneCountry`); undefined: digits carry their code. */
  country: string | undefined
  /** TIMEZONE: `customer_tz` of a number that maps to no zone. */
  fallbackZone: string
}

/** Rows filled by one `fillPhoneIdentities` pass, per table. */
export interface FilledRows {
  leads: number
  dnc: number
  attempts: number
}

/**
 * Works out the international form of up to `limit` rows of each table the claim reads that have
 * none yet (NULL: written before the column existed, or by an API of an earlier version during an
 * upgrade), and the lead's `customer_tz` from it: `fillLeadIdentities`, `fillDncIdentities` and
 * `fillAttemptIdentities` in turn. Found through each column's index (`ix_master_phone_e164`,
 * `ix_dnc_e164`, `ix_attempts_phone_e164`), so a pass with nothing to do is three index look-ups.
 * The archive (`hold_dialer_disposed`) is not read by the claim; `pnpm phones backfill` fills it
 * with `fillArchivedIdentities`.
 */
export async function fillPhoneIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
): Promise<FilledRows> {
  return {
    leads: await fillLeadIdentities(db, reading, limit),
    dnc: await fillDncIdentities(db, reading, limit),
    attempts: await fillAttemptIdentities(db, reading, limit),
  }
}

/**
 * Up to `limit` leads without an international form get one, and their `customer_tz`; returns how
 * many were read (fewer than `limit`: none is left). Only digits are stored on such a lead, so they
 * are read as `internationalFormOfDigits` reads them. One statement writes them all; a lead is written
 * only while it still has no international form and the same digits, so a push that landed meanwhile
 * (with its own form, worked out from the text sent) is never overwritten.
 */
export async function fillLeadIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
): Promise<number> {
  const leads = await db
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'phone_number'])
    .where('phone_e164', 'is', null)
    .limit(limit)
    .execute()
  await writeLeadForms(db, 'hold_dialer_master_data', leads, reading)
  return leads.length
}

/**
 * The archive's rows without an international form, in id order after `afterId`, up to `limit` of
 * them: filled as `fillLeadIdentities` fills leads. The archive has no index on the column, so it is
 * walked by its key; `lastId` is where the next call goes on (`afterId` when none was read).
 */
export async function fillArchivedIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
  afterId = 0,
): Promise<{ rows: number; lastId: number }> {
  const rows = await db
    .selectFrom('hold_dialer_disposed')
    .select(['id', 'phone_number'])
    .where('id', '>', afterId)
    .where('phone_e164', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute()
  await writeLeadForms(db, 'hold_dialer_disposed', rows, reading)
  return { rows: rows.length, lastId: rows.length > 0 ? Number(rows[rows.length - 1]!.id) : afterId }
}

/** Up to `limit` do-not-call entries without an international form get one; returns how many. */
export async function fillDncIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
): Promise<number> {
  const formOf = memoised(reading)
  const entries = await db
    .selectFrom('hold_dialer_dnc')
    .select('digits')
    .where('e164', 'is', null)
    .limit(limit)
    .execute()
  if (entries.length > 0) {
    await withTransaction(db, (trx) =>
      updateFromValues(trx, {
        table: 'hold_dialer_dnc',
        key: 'digits',
        unset: 'e164',
        match: [],
        set: ['e164'],
        rows: entries.map((entry) => [entry.digits, formOf(entry.digits)]),
      }),
    )
  }
  return entries.length
}

/** Up to `limit` call attempts without an international form get one; returns how many. */
export async function fillAttemptIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
): Promise<number> {
  const formOf = memoised(reading)
  const calls = await db
    .selectFrom('hold_dialer_call_attempts')
    .select(['id', 'phone_number'])
    .where('phone_e164', 'is', null)
    .limit(limit)
    .execute()
  if (calls.length > 0) {
    await withTransaction(db, (trx) =>
      updateFromValues(trx, {
        table: 'hold_dialer_call_attempts',
        key: 'id',
        unset: 'phone_e164',
        match: [],
        set: ['phone_e164'],
        rows: calls.map((call) => [call.id, formOf(call.phone_number)]),
      }),
    )
  }
  return calls.length
}

/**
 * Writes `phone_e164` and `customer_tz` of leads (live or archived) as read with `phone_number`; a
 * row whose form is no longer NULL, or whose digits are no longer those, is left alone.
 */
export async function writeLeadForms(
  db: Kysely<Database>,
  table: 'hold_dialer_master_data' | 'hold_dialer_disposed',
  leads: { id: number; phone_number: string }[],
  reading: PhoneReading,
): Promise<void> {
  if (leads.length === 0) return
  const formOf = memoised(reading)
  const rows = leads.map((lead) => {
    const e164 = formOf(lead.phone_number)
    return [lead.id, lead.phone_number, e164, customerZoneColumn(e164, reading.fallbackZone)]
  })
  await withTransaction(db, (trx) =>
    updateFromValues(trx, {
      table,
      key: 'id',
      unset: 'phone_e164',
      match: ['phone_number'],
      set: ['phone_e164', 'customer_tz'],
      rows,
    }),
  )
}

/**
 * One UPDATE for a batch of rows, each with its own values: joined to the batch as a derived table
 * (`FROM (VALUES ...)` on SQLite, a `UNION ALL` of one-row SELECTs on MariaDB, which has no named
 * VALUES rows), by `key`. A row is written only while `unset` is still NULL and each `match` column
 * still holds the value the batch read. A statement per row made a million leads take minutes on
 * MariaDB (a round trip each) and most of the time on SQLite (Kysely compiling each statement).
 * Each row of `rows` is `[key, ...match, ...set]`.
 */
async function updateFromValues(
  db: Kysely<Database>,
  spec: {
    table: string
    key: string
    unset: string
    match: string[]
    set: string[]
    rows: (string | number)[][]
  },
): Promise<void> {
  const columns = [spec.key, ...spec.match, ...spec.set]
  const name = (i: number) => `v${i}`
  const target = sql.ref(spec.table)
  const col = (column: string) => sql.ref(`${spec.table}.${column}`)
  const v = (column: string) => sql.ref(`v.${name(columns.indexOf(column))}`)
  const assignments = sql.join(spec.set.map((c) => sql`${sql.ref(c)} = ${v(c)}`))
  const conditions = [
    sql`${col(spec.key)} = ${v(spec.key)}`,
    sql`${col(spec.unset)} IS NULL`,
    ...spec.match.map((c) => sql`${col(c)} = ${v(c)}`),
  ]
  const where = sql.join(conditions, sql` AND `)
  if (dialectOf(db) === 'sqlite') {
    // SQLite names a VALUES list's columns column1, column2, ...; renamed v0, v1, ... by a SELECT.
    const renamed = sql.join(columns.map((_, i) => sql`${sql.ref(`column${i + 1}`)} AS ${sql.ref(name(i))}`))
    const values = sql.join(spec.rows.map((row) => sql`(${sql.join(row)})`))
    await sql`UPDATE ${target} SET ${assignments} FROM (SELECT ${renamed} FROM (VALUES ${values})) AS v WHERE ${where}`.execute(
      db,
    )
    return
  }
  const [first, ...rest] = spec.rows
  const named = sql.join(first!.map((value, i) => sql`${value} AS ${sql.ref(name(i))}`))
  const selects = [sql`SELECT ${named}`, ...rest.map((row) => sql`SELECT ${sql.join(row)}`)]
  const derived = sql.join(selects, sql` UNION ALL `)
  // MariaDB's multi-table UPDATE names the table's columns in SET unqualified only when unambiguous.
  const qualified = sql.join(spec.set.map((c) => sql`${col(c)} = ${v(c)}`))
  await sql`UPDATE ${target} JOIN (${derived}) AS v ON ${col(spec.key)} = ${v(spec.key)} SET ${qualified} WHERE ${where}`.execute(
    db,
  )
}

/** Each distinct digits read once per batch: a table of retries holds the same numbers many times. */
function memoised(reading: PhoneReading): (digits: string) => string {
  const known = new Map<string, string>()
  return (digits) => {
    let form = known.get(digits)
    if (form === undefined) {
      form = internationalFormOfDigits(digits, reading.country)
      known.set(digits, form)
    }
    return form
  }
}
