import { createReadStream, createWriteStream } from 'node:fs'
import type { Readable, Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { type Database, type NewDncRow, takeInsertedValues } from '@hold-dialer/db'
import { normalisePhone, toDbTime } from '@hold-dialer/rules'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify'
import type { Kysely } from 'kysely'
import { runOperatorCli } from './operator-cli.js'

/**
 * `pnpm dnc ...`: the operator's do-not-call list (`hold_dialer_dnc`). A lead whose number is listed
 * is never dialed: the claim ends it (pool: archived with `disposed_reason` `dnc`; pinned: Disposed).
 * Results go to stdout, progress and errors to stderr.
 */
export const USAGE = `usage: pnpm dnc <command> [arguments]
  add <number> [--source S] [--expires WHEN]
                                    list a number (again: its source and expiry are replaced)
  remove <number>                   take a number off the list
  list [--limit N]                  show the first N entries by number (default 100) and the total
  import <file.csv | -> [--source S]
                                    list every number in a CSV file (- reads standard input):
                                    columns number[,source[,expires_at]], or any columns named by a
                                    header row (number, source, expires_at; others ignored);
                                    --source applies to rows without one. Progress on stderr.
  export [file.csv | -]             write the whole list as CSV (number,source,added_at,expires_at);
                                    default standard output
  help, --help, -h                  this text (also printed with no command)

A number is written as leads are pushed: its digits are what is matched (+1 (212) 555-0100 is
12125550100; 2125550100 is another number). WHEN is a UTC date or time: 2027-01-31 or
2027-01-31T18:00:00Z; without --expires an entry stays until removed.
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite).
Exit 0: done; 1: the database refused or the file could not be read; 2: bad command line.`

/** Rows per INSERT and rows per transaction of an import. */
const IMPORT_BATCH = 1000
const IMPORT_TRANSACTION = 20_000
/** A progress line every this many rows. */
const PROGRESS_EVERY = 50_000
const EXPORT_PAGE = 5000
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

function numberArg(command: string, raw: string | undefined): string {
  if (raw === undefined) throw new UsageError(`${command} needs <number>`)
  const phone = normalisePhone(raw)
  if (!phone.ok) throw new UsageError(`${JSON.stringify(raw)} is not a phone number: it ${phone.message}`)
  return phone.digits
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
  | { kind: 'add'; digits: string; source: string | null; expiresAt: string | null }
  | { kind: 'remove'; digits: string }
  | { kind: 'list'; limit: number }
  | { kind: 'import'; file: string; source: string | null }
  | { kind: 'export'; file: string }

function parseCommand(argv: string[]): Command {
  let positionals: string[]
  let values: { help?: boolean; source?: string; expires?: string; limit?: string }
  try {
    const parsed = parseArgs({
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: {
        help: { type: 'boolean', short: 'h' },
        source: { type: 'string' },
        expires: { type: 'string' },
        limit: { type: 'string' },
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
    for (const option of ['source', 'expires', 'limit'] as const) {
      if (values[option] !== undefined && !allowed.includes(option))
        throw new UsageError(`${command} takes no --${option}`)
    }
  }
  switch (command) {
    case 'add': {
      only(['source', 'expires'])
      const [number, ...rest] = args
      const digits = numberArg('add', number)
      noMore('add', rest)
      return { kind: 'add', digits, source: sourceArg(values.source), expiresAt: expiresArg(values.expires) }
    }
    case 'remove': {
      only([])
      const [number, ...rest] = args
      const digits = numberArg('remove', number)
      noMore('remove', rest)
      return { kind: 'remove', digits }
    }
    case 'list': {
      only(['limit'])
      noMore('list', args)
      const limit = values.limit === undefined ? 100 : Number(values.limit)
      if (!/^\d+$/.test(values.limit ?? '100') || limit < 1)
        throw new UsageError(`--limit must be a whole number above 0, not ${JSON.stringify(values.limit)}`)
      return { kind: 'list', limit }
    }
    case 'import': {
      only(['source'])
      const [file, ...rest] = args
      if (file === undefined) throw new UsageError('import needs <file.csv> (or - for standard input)')
      noMore('import', rest)
      return { kind: 'import', file, source: sourceArg(values.source) }
    }
    case 'export': {
      only([])
      const [file = '-', ...rest] = args
      noMore('export', rest)
      return { kind: 'export', file }
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}

/** Inserts or replaces entries (source and expiry replaced, `added_at` kept), in one statement. */
async function upsert(db: Kysely<Database>, dialect: 'mysql' | 'sqlite', rows: NewDncRow[]): Promise<void> {
  const insert = db.insertInto('hold_dialer_dnc').values(rows)
  const set = takeInsertedValues<NewDncRow, 'source' | 'expires_at'>(dialect, ['source', 'expires_at'])
  if (dialect === 'mysql') await insert.onDuplicateKeyUpdate(set).execute()
  else await insert.onConflict((oc) => oc.column('digits').doUpdateSet(set)).execute()
}

export interface ImportResult {
  listed: number
  bad: number
  seconds: number
}

/**
 * Reads a CSV of numbers and lists them: IMPORT_BATCH rows per INSERT, IMPORT_TRANSACTION rows per
 * transaction (one commit, one fsync, per 20,000 rows; a commit per row made 300,000 rows take
 * minutes). A row whose first cell is not a phone number is counted and skipped, except a first row
 * that is a header (a cell with a letter in it).
 */
export async function importCsv(
  db: Kysely<Database>,
  dialect: 'mysql' | 'sqlite',
  input: Readable,
  defaultSource: string | null,
  io: DncIo,
  now: Date = new Date(),
): Promise<ImportResult> {
  const started = performance.now()
  const addedAt = toDbTime(now)
  let listed = 0
  let bad = 0
  let lineNo = 0
  let pending: NewDncRow[] = []
  let chunk: NewDncRow[][] = []
  let chunkRows = 0
  const flushTransaction = async () => {
    if (pending.length > 0) chunk.push(pending)
    pending = []
    if (chunk.length === 0) return
    const batches = chunk
    chunk = []
    chunkRows = 0
    await db.transaction().execute(async (trx) => {
      for (const rows of batches) await upsert(trx, dialect, rows)
    })
    const before = listed
    listed += batches.reduce((n, rows) => n + rows.length, 0)
    if (Math.floor(listed / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) {
      const seconds = (performance.now() - started) / 1000
      io.err(`dnc import: ${listed} numbers listed (${Math.round(listed / seconds)}/s)`)
    }
  }
  const parser = input.pipe(
    parse({ relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }),
  )
  // Without a header: number, source, expires_at. A header names them (any order, other columns
  // ignored), so an export's number,source,added_at,expires_at imports back as it was.
  let columns = { number: 0, source: 1, expires: 2 }
  for await (const record of parser as AsyncIterable<string[]>) {
    lineNo += 1
    if (lineNo === 1 && /[a-z]/i.test(record[0] ?? '')) {
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
    const number = record[columns.number] ?? ''
    const source = record[columns.source] ?? ''
    const expires = record[columns.expires] ?? ''
    const phone = normalisePhone(number)
    const expiresAt = expires === '' ? null : parseWhen(expires)
    const rowSource = source === '' ? defaultSource : source.slice(0, SOURCE_MAX)
    if (!phone.ok || (expires !== '' && expiresAt === null)) {
      bad += 1
      if (bad <= BAD_ROWS_SHOWN)
        io.err(
          `dnc import: line ${lineNo} skipped: ${!phone.ok ? `the number ${phone.message}` : `expires_at ${JSON.stringify(expires)} is not a date`}`,
        )
      continue
    }
    pending.push({ digits: phone.digits, source: rowSource, added_at: addedAt, expires_at: expiresAt })
    if (pending.length >= IMPORT_BATCH) {
      chunk.push(pending)
      chunkRows += pending.length
      pending = []
      if (chunkRows >= IMPORT_TRANSACTION) await flushTransaction()
    }
  }
  await flushTransaction()
  return { listed, bad, seconds: (performance.now() - started) / 1000 }
}

/** Writes the whole list as CSV, a page at a time in number order (keyset, so memory stays flat). */
export async function exportCsv(db: Kysely<Database>, output: Writable): Promise<number> {
  const csv = stringify({ header: true, columns: ['number', 'source', 'added_at', 'expires_at'] })
  // Standard output is never ended (the process may still write to it); a file is, and waited for.
  const toStdout = output === process.stdout
  csv.pipe(output, { end: !toStdout })
  let after = ''
  let count = 0
  for (;;) {
    const rows = await db
      .selectFrom('hold_dialer_dnc')
      .selectAll()
      .where('digits', '>', after)
      .orderBy('digits')
      .limit(EXPORT_PAGE)
      .execute()
    for (const r of rows) {
      // Backpressure: wait for the consumer when its buffer is full.
      if (!csv.write([r.digits, r.source ?? '', r.added_at, r.expires_at ?? '']))
        await new Promise((resolve) => csv.once('drain', resolve))
    }
    count += rows.length
    if (rows.length < EXPORT_PAGE) break
    after = rows[rows.length - 1]!.digits
  }
  csv.end()
  await finished(toStdout ? csv : output)
  return count
}

/** Runs one `pnpm dnc` command against `url`; returns the exit code. */
export async function runDncCli(argv: string[], url: string, io: DncIo = processIo): Promise<number> {
  return runOperatorCli({
    name: 'dnc',
    usage: USAGE,
    argv,
    url,
    io,
    parse: parseCommand,
    run: async (command, handle) => {
      const db = handle.kysely
      switch (command.kind) {
        case 'add':
          await upsert(db, handle.dialect, [
            {
              digits: command.digits,
              source: command.source,
              added_at: toDbTime(new Date()),
              expires_at: command.expiresAt,
            },
          ])
          io.out(
            `${command.digits} listed${command.expiresAt ? ` until ${command.expiresAt} UTC` : ''}${command.source ? ` (source ${command.source})` : ''}`,
          )
          break
        case 'remove': {
          const r = await db
            .deleteFrom('hold_dialer_dnc')
            .where('digits', '=', command.digits)
            .executeTakeFirst()
          if (Number(r.numDeletedRows) === 0) throw new ListError(`${command.digits} is not on the list`)
          io.out(`${command.digits} removed`)
          break
        }
        case 'list': {
          const rows = await db
            .selectFrom('hold_dialer_dnc')
            .selectAll()
            .orderBy('digits')
            .limit(command.limit)
            .execute()
          for (const r of rows)
            io.out(
              `${r.digits}\tsource=${r.source ?? '-'}\tadded=${r.added_at}\texpires=${r.expires_at ?? 'never'}`,
            )
          const { n } = await db
            .selectFrom('hold_dialer_dnc')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
          io.out(`${Number(n)} number(s) listed${Number(n) > rows.length ? `, ${rows.length} shown` : ''}`)
          break
        }
        case 'import': {
          const input = command.file === '-' ? io.stdin : createReadStream(command.file)
          if (!input) throw new ListError('no standard input to read')
          const r = await importCsv(db, handle.dialect, input, command.source, io)
          io.out(
            `imported ${r.listed} number(s) in ${r.seconds.toFixed(1)} s${r.bad > 0 ? `; ${r.bad} row(s) skipped (not a number or a bad expires_at)` : ''}`,
          )
          break
        }
        case 'export': {
          const output = command.file === '-' ? io.stdout : createWriteStream(command.file)
          if (!output) throw new ListError('no standard output to write')
          const n = await exportCsv(db, output)
          if (command.file !== '-') io.err(`dnc export: ${n} number(s) written to ${command.file}`)
          break
        }
      }
    },
  })
}
