import { open } from 'node:fs/promises'
import type { Readable, Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import {
  type Database,
  fillDncIdentities,
  type NewDncRow,
  type PhoneReading,
  takeInsertedValues,
} from '@hold-dialer/db'
import { internationalForm, isPhoneCountry, toDbTime, UNREADABLE } from '@hold-dialer/rules'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify'
import type { Kysely } from 'kysely'
import { phoneReadingOf, runOperatorCli } from './operator-cli.js'

/**
 * `pnpm dnc ...`: the operator's do-not-call list (`hold_dialer_dnc`). A lead whose number is listed
 * is never dialed: the claim ends it (pool: archived with `disposed_reason` `dnc`; pinned: Disposed).
 * Results go to stdout, progress and errors to stderr.
 */
export const USAGE = `usage: pnpm dnc <command> [arguments]
  add <number> [--source S] [--expires WHEN] [--country CC]
                                    list a person's number (listed already, under any spelling:
                                    its source and expiry are replaced)
  remove <number> [--country CC]    take the number off the list, under every spelling
  list [--limit N]                  show the first N entries by number (default 100) and the total
  import <file.csv | -> [--source S] [--country CC] [--skip-bad]
                                    list every number in a CSV file (- reads standard input):
                                    columns number[,source[,expires_at]], or any columns named by a
                                    header row (number, source, expires_at; others ignored);
                                    --source applies to rows without one. The whole file is read
                                    first: when a line cannot be read (its number or expires_at),
                                    each such line is named and nothing is written, unless
                                    --skip-bad, which lists the rest. Progress on stderr.
  export [file.csv | -]             write the whole list as CSV (number,source,added_at,expires_at;
                                    number in its international form, +12125550100); default
                                    standard output
  help, --help, -h                  this text (also printed with no command)

A number is one person however it is written: +1 (212) 555-0100, 001 212 555 0100, 011 1 212 555
0100 and, in the US, 212-555-0100 are one entry, stored as +12125550100. A number without + or an
international prefix (00, 011) is a national number of CC: --country, else DEFAULT_COUNTRY, else
TIMEZONE's country (with none, the digits must start with the country code). A number that cannot
be read as a phone number is refused. WHEN is a UTC date or time: 2027-01-31 or
2027-01-31T18:00:00Z; without --expires an entry stays until removed.
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite), DEFAULT_COUNTRY and TIMEZONE.
Exit 0: done; 1: the database refused, the file could not be read, or an import line was refused
(nothing written, or with --skip-bad the rest listed); 2: bad command line or configuration.`

/** Rows per INSERT and rows per transaction of an import. */
const IMPORT_BATCH = 1000
const IMPORT_TRANSACTION = 20_000
/** A progress line every this many rows. */
const PROGRESS_EVERY = 50_000
const EXPORT_PAGE = 5000
/** Entries from before worked out per statement before a command reads the list. */
const FILL_BATCH = 5000
const SOURCE_MAX = 100
/** Bad rows of an import shown on stderr; the rest are only counted. */
const BAD_ROWS_SHOWN = 10

export interface DncIo {
  out(line: string): void
  err(line: string): void
  /** Standard input, for `import -`. */
  stdin?: Readable
  /** Standard output, for `export` without a file. */
  stdout?: Writable
}

const processIo: DncIo = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  stdin: process.stdin,
  stdout: process.stdout,
}

class UsageError extends Error {}
class ListError extends Error {}

/** One person to list: the number's international form and the entry's fields. */
interface Listing {
  e164: string
  source: string | null
  expiresAt: string | null
}

/** A number as typed on the command line: its international form ('' unreadable) and its digits. */
interface NumberArg {
  text: string
  e164: string
  /** Every digit of the text: the key an entry added before the international form may have. */
  digits: string
}

function numberArg(command: string, raw: string | undefined, country: string | undefined): NumberArg {
  if (raw === undefined) throw new UsageError(`${command} needs <number>`)
  return { text: raw, e164: internationalForm(raw, country), digits: raw.replace(/\D/g, '') }
}

/** Words the country a number was read in, for a refusal. */
function readIn(country: string | undefined): string {
  return country === undefined
    ? 'read with no country: give it with its country code, or --country'
    : `read in ${country}`
}

/** `--country`: a two-letter code libphonenumber knows; undefined: not given. */
function countryArg(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const code = raw.trim().toUpperCase()
  if (!/^[A-Z]{2}$/.test(code) || !isPhoneCountry(code))
    throw new UsageError(
      `--country ${JSON.stringify(raw)} is not a country with a telephone numbering plan (two letters, such as US or GB)`,
    )
  return code
}

/** `--expires`: a UTC date or date and time, as stored text; undefined: not given. */
function expiresArg(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const at = parseWhen(raw)
  if (at === null)
    throw new UsageError(
      `--expires ${JSON.stringify(raw)} is not a date (2027-01-31 or 2027-01-31T18:00:00Z)`,
    )
  return at
}

function parseWhen(raw: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw))
    return null
  // A time without an offset is UTC, as every stored time is.
  const iso =
    /[T ]\d{2}:\d{2}/.test(raw) && !/(Z|[+-]\d{2}:?\d{2})$/.test(raw) ? `${raw.replace(' ', 'T')}Z` : raw
  const at = new Date(iso)
  return Number.isNaN(at.getTime()) ? null : toDbTime(at)
}

function sourceArg(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const source = raw.trim()
  if (source === '' || source.length > SOURCE_MAX)
    throw new UsageError(`--source must be 1 to ${SOURCE_MAX} characters`)
  return source
}

function noMore(command: string, rest: string[]): void {
  if (rest.length > 0)
    throw new UsageError(`${command}: unexpected ${rest.map((a) => JSON.stringify(a)).join(' ')}`)
}

type Command =
  | { kind: 'help' }
  | { kind: 'add'; number: NumberArg; listing: Listing; reading: PhoneReading }
  | { kind: 'remove'; number: NumberArg; reading: PhoneReading }
  | { kind: 'list'; limit: number; reading: PhoneReading }
  | {
      kind: 'import'
      file: string
      source: string | null
      country: string | undefined
      skipBad: boolean
      reading: PhoneReading
    }
  | { kind: 'export'; file: string; reading: PhoneReading }

const OPTIONS = ['source', 'expires', 'limit', 'country', 'skip-bad'] as const

function parseCommand(argv: string[], env: Record<string, string | undefined>): Command {
  let positionals: string[]
  let values: Partial<Record<(typeof OPTIONS)[number], string | boolean>> & { help?: boolean }
  try {
    const parsed = parseArgs({
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: {
        help: { type: 'boolean', short: 'h' },
        source: { type: 'string' },
        expires: { type: 'string' },
        limit: { type: 'string' },
        country: { type: 'string' },
        'skip-bad': { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    })
    positionals = parsed.positionals
    values = parsed.values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const [command, ...args] = positionals
  if (values.help || command === undefined || command === 'help') return { kind: 'help' }
  const only = (allowed: string[]) => {
    for (const option of OPTIONS) {
      if (values[option] !== undefined && !allowed.includes(option))
        throw new UsageError(`${command} takes no --${option}`)
    }
  }
  const text = (option: 'source' | 'expires' | 'limit' | 'country') => values[option] as string | undefined
  // Only once the command line is sound: a bad variable is then the one thing to fix.
  const reading = () => {
    try {
      return phoneReadingOf(env)
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
  }
  switch (command) {
    case 'add': {
      only(['source', 'expires', 'country'])
      const [raw, ...rest] = args
      noMore('add', rest)
      const explicit = countryArg(text('country'))
      const source = sourceArg(text('source'))
      const expiresAt = expiresArg(text('expires'))
      const phones = reading()
      const country = explicit ?? phones.country
      const number = numberArg('add', raw, country)
      if (number.e164 === UNREADABLE)
        throw new UsageError(`${JSON.stringify(raw)} is not a phone number (${readIn(country)})`)
      return { kind: 'add', number, listing: { e164: number.e164, source, expiresAt }, reading: phones }
    }
    case 'remove': {
      only(['country'])
      const [raw, ...rest] = args
      noMore('remove', rest)
      const explicit = countryArg(text('country'))
      const phones = reading()
      const number = numberArg('remove', raw, explicit ?? phones.country)
      return { kind: 'remove', number, reading: phones }
    }
    case 'list': {
      only(['limit'])
      noMore('list', args)
      const raw = text('limit')
      const limit = raw === undefined ? 100 : Number(raw)
      if (!/^\d+$/.test(raw ?? '100') || limit < 1)
        throw new UsageError(`--limit must be a whole number above 0, not ${JSON.stringify(raw)}`)
      return { kind: 'list', limit, reading: reading() }
    }
    case 'import': {
      only(['source', 'country', 'skip-bad'])
      const [file, ...rest] = args
      if (file === undefined) throw new UsageError('import needs <file.csv> (or - for standard input)')
      noMore('import', rest)
      const country = countryArg(text('country'))
      const source = sourceArg(text('source'))
      const phones = reading()
      return {
        kind: 'import',
        file,
        source,
        country: country ?? phones.country,
        skipBad: values['skip-bad'] === true,
        reading: phones,
      }
    }
    case 'export': {
      only([])
      const [file = '-', ...rest] = args
      noMore('export', rest)
      return { kind: 'export', file, reading: reading() }
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}

/**
 * Works out the international form of entries from before it existed (`e164` NULL), as the dialer
 * and `pnpm phones backfill` do, so that every entry can be found by the person it lists. Once done,
 * a pass is one index look-up. Returns how many were worked out.
 */
export async function fillEntries(db: Kysely<Database>, reading: PhoneReading, io: DncIo): Promise<number> {
  let filled = 0
  for (;;) {
    const n = await fillDncIdentities(db, reading, FILL_BATCH)
    filled += n
    if (n < FILL_BATCH) break
  }
  if (filled > 0)
    io.err(
      `dnc: worked out the international form of ${filled} ${filled === 1 ? 'entry' : 'entries'} stored before it existed`,
    )
  return filled
}

/**
 * Lists people, in one transaction (`trx`), each with its source and expiry. A person already listed
 * (an entry with the same international form, under any key) has every such entry updated, its
 * `added_at` kept; anyone else gets a new entry under the international digits, the key of entries
 * added from now on. An entry from before that holds that key for another person (`3612345201`, a
 * Texas number stored as a US centre's CRM pushed it, is the key of Budapest's +3612345201) moves to
 * its own international digits first. Entries from before must have their form worked out
 * (`fillEntries`). Rows per statement: IMPORT_BATCH.
 */
async function listPeople(
  trx: Kysely<Database>,
  dialect: 'mysql' | 'sqlite',
  people: Listing[],
  addedAt: string,
): Promise<void> {
  // One listing per person; the last one wins, as it would one after the other.
  const byForm = new Map<string, Listing>()
  for (const person of people) {
    byForm.delete(person.e164)
    byForm.set(person.e164, person)
  }
  const forms = [...byForm.keys()]
  const keys = forms.map((e164) => e164.slice(1))
  const existing = await trx
    .selectFrom('hold_dialer_dnc')
    .select(['digits', 'e164', 'expires_at'])
    .where((eb) => eb.or([eb('e164', 'in', forms), eb('digits', 'in', keys)]))
    .execute()
  const ownerOfKey = new Map(forms.map((e164) => [e164.slice(1), e164]))
  const keysOf = new Map<string, string[]>()
  for (const entry of existing) {
    let digits: string | null = entry.digits
    const owner = ownerOfKey.get(entry.digits)
    if (owner !== undefined && entry.e164 !== owner && entry.e164 !== null && entry.e164 !== UNREADABLE) {
      // The key of someone being listed, held by an entry from before for another person.
      digits = await moveToOwnKey(trx, { ...entry, e164: entry.e164 })
    }
    // An unreadable entry from before under the key is taken over by the person (it matched the
    // same digits, and goes on matching them).
    if (digits !== null && entry.e164 !== null && byForm.has(entry.e164))
      keysOf.set(entry.e164, [...(keysOf.get(entry.e164) ?? []), digits])
  }
  const rows: NewDncRow[] = []
  for (const person of byForm.values()) {
    for (const digits of keysOf.get(person.e164) ?? [person.e164.slice(1)]) {
      rows.push({
        digits,
        e164: person.e164,
        source: person.source,
        added_at: addedAt,
        expires_at: person.expiresAt,
      })
    }
  }
  for (let i = 0; i < rows.length; i += IMPORT_BATCH) {
    await upsert(trx, dialect, rows.slice(i, i + IMPORT_BATCH))
  }
}

/**
 * Moves an entry from before to the key of its own international form; returns that key. When an
 * entry of the same person holds that key already, the two become one (the later expiry is kept)
 * and null is returned.
 */
async function moveToOwnKey(
  trx: Kysely<Database>,
  entry: { digits: string; e164: string; expires_at: string | null },
): Promise<string | null> {
  const own = entry.e164.slice(1)
  const holder = await trx
    .selectFrom('hold_dialer_dnc')
    .select(['e164', 'expires_at'])
    .where('digits', '=', own)
    .executeTakeFirst()
  if (holder === undefined) {
    await trx.updateTable('hold_dialer_dnc').set({ digits: own }).where('digits', '=', entry.digits).execute()
    return own
  }
  if (holder.e164 !== entry.e164)
    throw new ListError(
      `the entry stored as ${entry.digits} (${entry.e164}) holds the key of a number being listed, and its own key ${own} is held by another entry; remove one of them first`,
    )
  // Stored times sort as text; NULL (never expires) is the latest.
  const later =
    holder.expires_at === null || entry.expires_at === null
      ? null
      : [holder.expires_at, entry.expires_at].sort()[1]!
  await trx.updateTable('hold_dialer_dnc').set({ expires_at: later }).where('digits', '=', own).execute()
  await trx.deleteFrom('hold_dialer_dnc').where('digits', '=', entry.digits).execute()
  return null
}

/** Inserts or replaces entries (form, source and expiry replaced, `added_at` kept), in one statement. */
async function upsert(db: Kysely<Database>, dialect: 'mysql' | 'sqlite', rows: NewDncRow[]): Promise<void> {
  const insert = db.insertInto('hold_dialer_dnc').values(rows)
  const set = takeInsertedValues<NewDncRow, 'e164' | 'source' | 'expires_at'>(dialect, [
    'e164',
    'source',
    'expires_at',
  ])
  if (dialect === 'mysql') await insert.onDuplicateKeyUpdate(set).execute()
  else await insert.onConflict((oc) => oc.column('digits').doUpdateSet(set)).execute()
}

export interface ImportResult {
  listed: number
  bad: number
  seconds: number
}

export interface ImportOptions {
  /** The source of rows without one. */
  source: string | null
  /** The country national numbers are read in. */
  country: string | undefined
  /** List the readable rows when some are not; otherwise nothing is written. */
  skipBad: boolean
}

/**
 * Reads a CSV of numbers, then lists them. The whole input is read and checked first: a line whose
 * number cannot be read (`internationalForm` gives '') or whose expires_at is not a date is named by
 * its line number on stderr (the first BAD_ROWS_SHOWN; the rest counted, never shown by number), and
 * then nothing is written unless `skipBad`. A first row with a letter in it is a header. The rows are
 * written IMPORT_BATCH per statement and IMPORT_TRANSACTION per transaction (one commit, one fsync,
 * per 20,000 rows; a commit per row made 300,000 rows take minutes), so the dialer's claims go on
 * between transactions. The checked rows are held in memory meanwhile (a 300,000-row file: tens of MB).
 */
export async function importCsv(
  db: Kysely<Database>,
  dialect: 'mysql' | 'sqlite',
  input: Readable,
  options: ImportOptions,
  io: DncIo,
  now: Date = new Date(),
): Promise<ImportResult> {
  const started = performance.now()
  const addedAt = toDbTime(now)
  const people: Listing[] = []
  let bad = 0
  let first = true
  const parser = input.pipe(
    parse({ relax_column_count: true, skip_empty_lines: true, trim: true, bom: true, info: true }),
  )
  // Without a header: number, source, expires_at. A header names them (any order, other columns
  // ignored), so an export's number,source,added_at,expires_at imports back as it was.
  let columns = { number: 0, source: 1, expires: 2 }
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[]
    info: { lines: number }
  }>) {
    if (first && /[a-z]/i.test(record[0] ?? '')) {
      first = false
      const names = record.map((name) => name.toLowerCase())
      const find = (...wanted: string[]) => names.findIndex((name) => wanted.includes(name))
      columns = {
        number: find('number', 'digits', 'phone_number'),
        source: find('source'),
        expires: find('expires_at'),
      }
      if (columns.number < 0)
        throw new ListError('the header row has no number column (number, digits or phone_number)')
      continue
    }
    first = false
    const number = record[columns.number] ?? ''
    const source = record[columns.source] ?? ''
    const expires = record[columns.expires] ?? ''
    const e164 = internationalForm(number, options.country)
    const expiresAt = expires === '' ? null : parseWhen(expires)
    if (e164 === UNREADABLE || (expires !== '' && expiresAt === null)) {
      bad += 1
      if (bad <= BAD_ROWS_SHOWN)
        io.err(
          `dnc import: line ${info.lines} refused: ${e164 === UNREADABLE ? `the number is not a phone number (${readIn(options.country)})` : `expires_at ${JSON.stringify(expires)} is not a date`}`,
        )
      continue
    }
    people.push({ e164, source: source === '' ? options.source : source.slice(0, SOURCE_MAX), expiresAt })
  }
  if (bad > BAD_ROWS_SHOWN) io.err(`dnc import: ${bad - BAD_ROWS_SHOWN} more line(s) refused`)
  if (bad > 0 && !options.skipBad)
    throw new ListError(
      `${bad} line(s) refused; nothing written (fix them, or --skip-bad lists the ${people.length} other row(s))`,
    )
  let listed = 0
  for (let at = 0; at < people.length; at += IMPORT_TRANSACTION) {
    const chunk = people.slice(at, at + IMPORT_TRANSACTION)
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < chunk.length; i += IMPORT_BATCH)
        await listPeople(trx, dialect, chunk.slice(i, i + IMPORT_BATCH), addedAt)
    })
    const before = listed
    listed += chunk.length
    if (Math.floor(listed / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) {
      const seconds = (performance.now() - started) / 1000
      io.err(`dnc import: ${listed} of ${people.length} numbers listed (${Math.round(listed / seconds)}/s)`)
    }
  }
  return { listed, bad, seconds: (performance.now() - started) / 1000 }
}

/**
 * Writes the whole list as CSV, a page at a time in key order (keyset, so memory stays flat). The
 * number is the entry's international form; an entry that cannot be read has none, and is written
 * with its stored digits (an import refuses such a line). Entries from before must have their form
 * worked out (`fillEntries`). Returns the rows written and how many of them were unreadable.
 */
export async function exportCsv(
  db: Kysely<Database>,
  output: Writable,
): Promise<{ rows: number; unreadable: number }> {
  const csv = stringify({ header: true, columns: ['number', 'source', 'added_at', 'expires_at'] })
  // Standard output is never ended (the process may still write to it); a file is, and waited for.
  const toStdout = output === process.stdout
  csv.pipe(output, { end: !toStdout })
  let after = ''
  let count = 0
  let unreadable = 0
  for (;;) {
    const rows = await db
      .selectFrom('hold_dialer_dnc')
      .selectAll()
      .where('digits', '>', after)
      .orderBy('digits')
      .limit(EXPORT_PAGE)
      .execute()
    for (const r of rows) {
      if (!r.e164) unreadable += 1
      // Backpressure: wait for the consumer when its buffer is full.
      if (!csv.write([r.e164 || r.digits, r.source ?? '', r.added_at, r.expires_at ?? '']))
        await new Promise((resolve) => csv.once('drain', resolve))
    }
    count += rows.length
    if (rows.length < EXPORT_PAGE) break
    after = rows[rows.length - 1]!.digits
  }
  csv.end()
  await finished(toStdout ? csv : output)
  return { rows: count, unreadable }
}

/** Takes a person off the list: every entry of its international form, and one stored by the digits typed. */
async function removePerson(db: Kysely<Database>, number: NumberArg): Promise<number> {
  const r = await db
    .deleteFrom('hold_dialer_dnc')
    .where((eb) => {
      // An entry stored by the same digits whose form is unknown or unreadable: the same text typed
      // before (a readable entry of those digits may be another person, Texas's 3612345201 key).
      const byDigits = eb.and([
        eb('digits', '=', number.digits),
        eb.or([eb('e164', 'is', null), eb('e164', '=', UNREADABLE)]),
      ])
      return number.e164 === UNREADABLE ? byDigits : eb.or([eb('e164', '=', number.e164), byDigits])
    })
    .executeTakeFirst()
  return Number(r.numDeletedRows)
}

/** How an entry is shown: its international form, and the key it is stored under when another. */
function shown(entry: { digits: string; e164: string | null }): string {
  if (!entry.e164) return `${entry.digits} (not a readable number)`
  return entry.e164.slice(1) === entry.digits ? entry.e164 : `${entry.e164} (stored as ${entry.digits})`
}

/**
 * Runs one `pnpm dnc` command against `url`; returns the exit code. DEFAULT_COUNTRY and TIMEZONE
 * are read from `env` (the process's environment by default).
 */
export async function runDncCli(
  argv: string[],
  url: string,
  io: DncIo = processIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  return runOperatorCli({
    name: 'dnc',
    usage: USAGE,
    argv,
    url,
    io,
    parse: (args) => parseCommand(args, env),
    run: async (command, handle) => {
      const db = handle.kysely
      if (command.kind === 'help') return
      await fillEntries(db, command.reading, io)
      switch (command.kind) {
        case 'add': {
          const { listing } = command
          await db
            .transaction()
            .execute((trx) => listPeople(trx, handle.dialect, [listing], toDbTime(new Date())))
          io.out(
            `${listing.e164} listed${listing.expiresAt ? ` until ${listing.expiresAt} UTC` : ''}${listing.source ? ` (source ${listing.source})` : ''}`,
          )
          break
        }
        case 'remove': {
          const removed = await removePerson(db, command.number)
          const name = command.number.e164 || command.number.text
          if (removed === 0) throw new ListError(`${name} is not on the list`)
          io.out(`${name} removed${removed > 1 ? ` (${removed} entries)` : ''}`)
          break
        }
        case 'list': {
          const rows = await db
            .selectFrom('hold_dialer_dnc')
            .selectAll()
            .orderBy('e164')
            .orderBy('digits')
            .limit(command.limit)
            .execute()
          for (const r of rows)
            io.out(
              `${shown(r)}\tsource=${r.source ?? '-'}\tadded=${r.added_at}\texpires=${r.expires_at ?? 'never'}`,
            )
          const { n } = await db
            .selectFrom('hold_dialer_dnc')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
          io.out(`${Number(n)} number(s) listed${Number(n) > rows.length ? `, ${rows.length} shown` : ''}`)
          break
        }
        case 'import': {
          const input = command.file === '-' ? io.stdin : await readableFile(command.file)
          if (!input) throw new ListError('no standard input to read')
          const r = await importCsv(db, handle.dialect, input, command, io)
          io.out(
            `imported ${r.listed} number(s) in ${r.seconds.toFixed(1)} s${r.bad > 0 ? `; ${r.bad} line(s) refused (not a phone number or a bad expires_at)` : ''}`,
          )
          if (r.bad > 0) throw new ListError(`${r.bad} line(s) refused; the other ${r.listed} listed`)
          break
        }
        case 'export': {
          const output = command.file === '-' ? io.stdout : await writableFile(command.file)
          if (!output) throw new ListError('no standard output to write')
          const r = await exportCsv(db, output)
          if (command.file !== '-') io.err(`dnc export: ${r.rows} number(s) written to ${command.file}`)
          if (r.unreadable > 0)
            io.err(
              `dnc export: ${r.unreadable} entr${r.unreadable === 1 ? 'y' : 'ies'} from before cannot be read as a phone number; written with the stored digits (an import refuses them; --skip-bad lists the rest)`,
            )
          break
        }
      }
    },
  })
}

/**
 * The CSV to import, opened before anything is read: a missing or unreadable file is one line
 * naming it (a stream opened lazily would fail later, outside the command's error handling).
 */
async function readableFile(path: string): Promise<Readable> {
  let file: Awaited<ReturnType<typeof open>>
  try {
    file = await open(path, 'r')
  } catch (error) {
    throw new ListError(`cannot read ${path}: ${fileProblem(error)}`)
  }
  if ((await file.stat()).isDirectory()) {
    await file.close()
    throw new ListError(`cannot read ${path}: it is a folder`)
  }
  return file.createReadStream()
}

/** The export's file, created before the list is read: a folder that is missing or not writable is one line. */
async function writableFile(path: string): Promise<Writable> {
  try {
    return (await open(path, 'w')).createWriteStream()
  } catch (error) {
    throw new ListError(`cannot write ${path}: ${fileProblem(error)}`)
  }
}

function fileProblem(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  if (e.code === 'ENOENT') return 'no such file or folder'
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied'
  if (e.code === 'EISDIR') return 'it is a folder'
  return e.message
}
