import { randomInt } from 'node:crypto'
import { parseArgs } from 'node:util'
import type { DialerSource } from '@hold-dialer/bench/fleet'

export const FAULT_KINDS = ['kill', 'stop', 'db', 'pbx'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
export type DialMode = 'progressive' | 'predictive'

export interface ChaosOptions {
  /** Length of the part of the run that injects faults; the settling and the checks come after. */
  seconds: number
  seed: number
  dialers: number
  agents: number
  leads: number
  mode: DialMode
  /** RESERVATION_TIMEOUT_SECONDS given to every dialer. */
  reservationTimeout: number
  faults: FaultKind[]
  /** How long a dialer hit by a fault has to place or settle a call again. */
  recoverySeconds: number
  /** pbx-sim's simulated seconds per real second. */
  timeScale: number
  dialerSource: DialerSource
  /** Leave the run's database on the server for a look afterwards (its name is printed). */
  keepDatabase: boolean
  /** A folder for each dialer's log (JSON lines), or none. */
  logs: string | undefined
  /** The dialers' LOG_LEVEL: warn (default) or lower; the report counts warnings and errors. */
  logLevel: string
}

export const DEFAULT_SECONDS = 60

/** Enough leads that the dialers never run out while faults are injected (about 8 calls a second). */
export const defaultLeads = (seconds: number) => 500 + 12 * seconds

export const USAGE = `Usage: pnpm chaos [options]

Several real dialer processes on one fresh MariaDB database and one pbx-sim, with faults injected on
a schedule drawn from the seed, and the invariants checked every 150 ms and at the end. Prints a table;
exit code 1 when an invariant failed, 2 on a bad option.

  --seconds N               how long faults are injected (default ${DEFAULT_SECONDS}, or CHAOS_SECONDS); the
                            dialers then settle (RESERVATION_TIMEOUT + up to 35 s) and are stopped
  --seed N                  seed of the customers' outcomes and of the fault schedule (default: a
                            random one, printed; the same seed draws the same schedule again)
  --dialers N               dialer processes, each with its own DIALER_ID (default 3, at least 2)
  --agents N                agents, every one ready and shared by all dialers (default 30)
  --leads N                 leads inserted before the start (default 500 + 12 per second)
  --mode MODE               progressive or predictive (DIAL_MODE, default progressive)
  --reservation-timeout N   RESERVATION_TIMEOUT_SECONDS of every dialer (default 5)
  --faults LIST             which faults, comma-separated (default all): kill (kill -9 of a dialer,
                            restarted with the same DIALER_ID after 0.3-3 s), stop (SIGSTOP of a
                            dialer past the reservation timeout, then SIGCONT), db (KILL of every
                            MariaDB connection of the dialers), pbx (pbx-sim closed and started again
                            on its port)
  --recovery-seconds N      how long a dialer hit by a fault has to place or settle a call again
                            (default 20)
  --time-scale N            pbx-sim's simulated seconds per real second (default 10: a conversation of
                            20-80 s lasts 2-8 s, so faults land mid-call)
  --dialer-source SOURCE    dist (the build, default) or src (the sources through tsx)
  --keep-database           leave the run's database (hd_chaos_...) on the server afterwards
  --logs DIR                write each dialer's log to DIR/chaos-N.log
  --log-level LEVEL         the dialers' LOG_LEVEL (default warn; info logs every call)
  --help, -h                this text

Environment: CHAOS_SECONDS sets --seconds (a long run: CHAOS_SECONDS=1800 pnpm chaos);
TEST_MYSQL_URL (or BENCH_MYSQL_URL) the MariaDB server, default mysql://root@127.0.0.1:3306/; the
user must be able to create and drop databases, create triggers and KILL connections.`

export const OPTIONS = {
  seconds: { type: 'string' },
  seed: { type: 'string' },
  dialers: { type: 'string' },
  agents: { type: 'string' },
  leads: { type: 'string' },
  mode: { type: 'string' },
  'reservation-timeout': { type: 'string' },
  faults: { type: 'string' },
  'recovery-seconds': { type: 'string' },
  'time-scale': { type: 'string' },
  'dialer-source': { type: 'string' },
  'keep-database': { type: 'boolean', default: false },
  logs: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const

/** A bad option value: the message names it; the caller adds the usage. */
export class UsageError extends Error {
  override name = 'UsageError'
}

function whole(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name}: expected a whole number >= ${min}, got ${raw}`)
  return n
}

/** The options of `argv` (after `pnpm chaos`), with CHAOS_SECONDS from `env` when --seconds is not given. */
export function parseChaosOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): ChaosOptions {
  const { values } = parseArgs({
    // `pnpm chaos -- --seconds 10` passes the `--` on.
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: OPTIONS,
    strict: true,
  })
  const seconds = whole(
    values.seconds === undefined ? 'CHAOS_SECONDS' : '--seconds',
    values.seconds ?? (env.CHAOS_SECONDS || undefined),
    DEFAULT_SECONDS,
  )
  const mode = values.mode ?? 'progressive'
  if (mode !== 'progressive' && mode !== 'predictive')
    throw new UsageError(`--mode: expected progressive or predictive, got ${mode}`)
  const faults = (values.faults ?? FAULT_KINDS.join(','))
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '')
  for (const f of faults) {
    if (!(FAULT_KINDS as readonly string[]).includes(f))
      throw new UsageError(`--faults: unknown fault ${f} (expected ${FAULT_KINDS.join(', ')})`)
  }
  const source = values['dialer-source'] ?? 'dist'
  if (source !== 'dist' && source !== 'src')
    throw new UsageError(`--dialer-source: expected dist or src, got ${source}`)
  return {
    seconds,
    seed: whole('--seed', values.seed, randomInt(1, 2 ** 31), 0),
    dialers: whole('--dialers', values.dialers, 3, 2),
    agents: whole('--agents', values.agents, 30),
    leads: whole('--leads', values.leads, defaultLeads(seconds)),
    mode,
    reservationTimeout: whole('--reservation-timeout', values['reservation-timeout'], 5),
    faults: [...new Set(faults)] as FaultKind[],
    recoverySeconds: whole('--recovery-seconds', values['recovery-seconds'], 20),
    timeScale: whole('--time-scale', values['time-scale'], 10),
    dialerSource: source,
    keepDatabase: values['keep-database'] ?? false,
    logs: values.logs,
    logLevel: values['log-level'] ?? 'warn',
  }
}
