import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import {
  type Database,
  describeDatabaseUrl,
  fillArchivedIdentities,
  fillAttemptIdentities,
  fillDncIdentities,
  fillLeadIdentities,
  type PhoneReading,
} from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import { phoneReadingOf, runOperatorCli } from './operator-cli.js'

/**
 * `pnpm phones ...`: the operator's side of the international form (`phone_e164`). `backfill` works
 * it out for every stored row that has none (rows stored before the column existed), as the dialer
 * does a little at a time, but a whole table at once with progress. Summary on stdout, progress and
 * errors on stderr.
 */
export const USAGE = `usage: pnpm phones <command> [arguments]
  backfill [--batch N]              work out the international form of every stored number that has
                                    none (phone_e164 NULL: rows stored before the column existed):
                                    leads and their customer_tz, archived leads, do-not-call entries
                                    and call attempts; N rows per statement (default 5000, 100 to
                                    10000). Progress on stderr, a summary on stdout. Safe while the
                                    API and the dialer run; stopped, it goes on where it was when run
                                    again (it only reads rows that still have no form).
  help, --help, -h                  this text (also printed with no command)

Stored digits are read as the dialer reads them: a national number of DEFAULT_COUNTRY (else
TIMEZONE's country) when valid there, else as starting with their country code; a number that
cannot be read gets '' (never dialed) and a number of no known zone gets TIMEZONE as its zone.
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite), DEFAULT_COUNTRY and TIMEZONE; run it with
the dialer's settings. An SQLite file that does not exist is refused, never created.
Exit 0: done; 1: the database refused; 2: bad command line or configuration.`

const BATCH_DEFAULT = 5000
const BATCH_MIN = 100
const BATCH_MAX = 10_000
/** At most one progress line this often (ms), and one at the end of each table. */
const PROGRESS_EVERY_MS = 1000

export interface PhonesIo {
  out(line: string): void
  err(line: string): void
}

const processIo: PhonesIo = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
}

class UsageError extends Error {}

type Command = { kind: 'help' } | { kind: 'backfill'; batch: number; reading: PhoneReading }

function parseCommand(argv: string[], url: string, env: Record<string, string | undefined>): Command {
  let positionals: string[]
  let values: { help?: boolean; batch?: string }
  try {
    const parsed = parseArgs({
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: { help: { type: 'boolean', short: 'h' }, batch: { type: 'string' } },
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
  if (command !== 'backfill') throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  if (args.length > 0)
    throw new UsageError(`backfill: unexpected ${args.map((a) => JSON.stringify(a)).join(' ')}`)
  const batch = values.batch === undefined ? BATCH_DEFAULT : Number(values.batch)
  if (!/^\d+$/.test(values.batch ?? '0') || batch < BATCH_MIN || batch > BATCH_MAX)
    throw new UsageError(
      `--batch must be a whole number from ${BATCH_MIN} to ${BATCH_MAX}, not ${JSON.stringify(values.batch)}`,
    )
  let reading: PhoneReading
  try {
    reading = phoneReadingOf(env)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  // `connect` would create an SQLite file (and the migration a schema) where there was none: a
  // mistyped path would "succeed" with nothing filled.
  const target = describeDatabaseUrl(url)
  if (target.dialect === 'sqlite' && target.database !== ':memory:' && !existsSync(target.database))
    throw new UsageError(`there is no database at ${target.database} (DATABASE_URL); nothing to fill`)
  return { kind: 'backfill', batch, reading }
}

/** One table's part of a backfill. */
interface Table {
  name: string
  /** Rows without a form when the backfill starts. */
  count(db: Kysely<Database>): Promise<number>
  /** Fills up to `batch` rows; returns how many it read and whether any may be left. */
  pass(db: Kysely<Database>, reading: PhoneReading, batch: number): Promise<{ rows: number; more: boolean }>
}

const countNull = async (
  db: Kysely<Database>,
  table: 'hold_dialer_master_data' | 'hold_dialer_disposed' | 'hold_dialer_call_attempts',
) => {
  const { n } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('phone_e164', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(n)
}

function tables(): Table[] {
  // The archive has no index on the column: it is walked by its key, from where the last pass ended.
  let archivedAfter = 0
  const until = (rows: number, batch: number) => ({ rows, more: rows === batch })
  return [
    {
      name: 'leads',
      count: (db) => countNull(db, 'hold_dialer_master_data'),
      pass: async (db, reading, batch) => until(await fillLeadIdentities(db, reading, batch), batch),
    },
    {
      name: 'archived leads',
      count: (db) => countNull(db, 'hold_dialer_disposed'),
      pass: async (db, reading, batch) => {
        const r = await fillArchivedIdentities(db, reading, batch, archivedAfter)
        archivedAfter = r.lastId
        return until(r.rows, batch)
      },
    },
    {
      name: 'do-not-call entries',
      count: async (db) => {
        const { n } = await db
          .selectFrom('hold_dialer_dnc')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('e164', 'is', null)
          .executeTakeFirstOrThrow()
        return Number(n)
      },
      pass: async (db, reading, batch) => until(await fillDncIdentities(db, reading, batch), batch),
    },
    {
      name: 'call attempts',
      count: (db) => countNull(db, 'hold_dialer_call_attempts'),
      pass: async (db, reading, batch) => until(await fillAttemptIdentities(db, reading, batch), batch),
    },
  ]
}

export interface BackfillResult {
  /** Rows read and written per table, in order. */
  tables: { name: string; rows: number; seconds: number }[]
  seconds: number
}

/** Whole seconds, or minutes and seconds. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

/**
 * Fills every table's rows without a form, a batch at a time: each batch is one SELECT through the
 * column's index and one UPDATE in its own short transaction, so the API and the dialer go on
 * between batches. Progress (rows done of the count taken at the start, rate, time left) at most
 * once a second and at the end of each table. Rows that arrive without a form meanwhile (an API of
 * an earlier version still running) are filled too, so done may pass the count.
 */
export async function backfill(
  db: Kysely<Database>,
  reading: PhoneReading,
  batch: number,
  io: Pick<PhonesIo, 'err'>,
  clock: () => number = () => performance.now(),
): Promise<BackfillResult> {
  const started = clock()
  const result: BackfillResult = { tables: [], seconds: 0 }
  for (const table of tables()) {
    const total = await table.count(db)
    const tableStarted = clock()
    let done = 0
    let shownAt = tableStarted
    const progress = () => {
      const seconds = (clock() - tableStarted) / 1000
      const rate = seconds > 0 ? done / seconds : 0
      const left = Math.max(0, total - done)
      const eta = left === 0 ? 'done' : rate > 0 ? `about ${duration(left / rate)} left` : 'time left unknown'
      const percent = total > 0 ? ` (${Math.min(100, Math.floor((done / total) * 100))}%)` : ''
      io.err(`phones backfill: ${table.name} ${done}/${total}${percent}, ${Math.round(rate)} rows/s, ${eta}`)
    }
    if (total > 0) {
      for (;;) {
        const pass = await table.pass(db, reading, batch)
        done += pass.rows
        if (!pass.more) break
        if (clock() - shownAt >= PROGRESS_EVERY_MS) {
          shownAt = clock()
          progress()
        }
      }
      progress()
    }
    result.tables.push({ name: table.name, rows: done, seconds: (clock() - tableStarted) / 1000 })
  }
  result.seconds = (clock() - started) / 1000
  return result
}

/** The summary line of a backfill. */
function summary(r: BackfillResult): string {
  const rows = r.tables.reduce((n, table) => n + table.rows, 0)
  const parts = r.tables.map(
    (table) =>
      `${table.name} ${table.rows}${table.rows > 0 ? ` (${table.seconds.toFixed(1)} s, ${Math.round(table.rows / Math.max(table.seconds, 0.001))} rows/s)` : ''}`,
  )
  return `phones backfill: ${rows} row(s) filled in ${r.seconds.toFixed(1)} s: ${parts.join('; ')}`
}

/**
 * Runs one `pnpm phones` command against `url`; returns the exit code. DEFAULT_COUNTRY and TIMEZONE
 * are read from `env` (the process's environment by default).
 */
export async function runPhonesCli(
  argv: string[],
  url: string,
  io: PhonesIo = processIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  return runOperatorCli({
    name: 'phones',
    usage: USAGE,
    argv,
    url,
    io,
    parse: (args) => parseCommand(args, url, env),
    run: async (command, handle) => {
      if (command.kind === 'help') return
      const r = await backfill(handle.kysely, command.reading, command.batch, io)
      io.out(summary(r))
    },
  })
}
