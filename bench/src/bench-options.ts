import { type ParseArgsConfig, parseArgs } from 'node:util'
import type { Dialect } from '@hold-dialer/db'

export interface BenchOptions {
  rounds: number
  seconds: number
  dialects: Dialect[]
  batchConnections: number
  singleConnections: number
  dialerSeconds: number
  logLevel: string
  out: string
  /** The API's port; the HTTP floor's bare Fastify app takes the next one. */
  port: number
  /** Run the API under `node --cpu-prof`, profiles in bench-results/prof. */
  profile: boolean
  smoke: boolean
  /** Parts to run (default all): `push`, `claims`, `dialer`, `scaleout` (MariaDB only). */
  only: BenchPart[]
}

export const BENCH_PARTS = ['push', 'claims', 'dialer', 'scaleout'] as const
export type BenchPart = (typeof BENCH_PARTS)[number]

export const USAGE = `Usage: pnpm bench [--rounds 5] [--seconds 8] [--dialects mysql,sqlite] [--batch-connections 4]
  [--single-connections 16] [--dialer-seconds 15] [--log-level warn] [--out bench-results/latest.json]
  [--port 3100] [--profile] [--smoke] [--only push,claims,dialer,scaleout] [--help]`

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: expected a number > 0, got ${raw}\n${USAGE}`)
  return n
}

const OPTIONS = {
  rounds: { type: 'string' },
  seconds: { type: 'string' },
  dialects: { type: 'string' },
  'batch-connections': { type: 'string' },
  'single-connections': { type: 'string' },
  'dialer-seconds': { type: 'string' },
  'log-level': { type: 'string' },
  out: { type: 'string' },
  port: { type: 'string' },
  profile: { type: 'boolean', default: false },
  smoke: { type: 'boolean', default: false },
  only: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const

// `pnpm bench -- --only push` passes the `--` on.
const argsOf = (argv: string[]) => (argv[0] === '--' ? argv.slice(1) : argv)

/**
 * `--help` / `-h`: the usage on stdout, exit code 0. An option parseArgs refuses (unknown, missing its
 * value): the error and the usage on stderr, exit code 2. Undefined: run the bench.
 */
export function helpOrRefusal(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void },
  command: { options: ParseArgsConfig['options']; usage: string } = { options: OPTIONS, usage: USAGE },
): number | undefined {
  try {
    const { values } = parseArgs({ args: argsOf(argv), options: command.options, strict: true })
    if ((values as { help?: boolean }).help !== true) return undefined
    io.out(command.usage)
    return 0
  } catch (error) {
    io.err(`${(error as Error).message}\n${command.usage}`)
    return 2
  }
}

/** `--smoke`: one short round of everything, to prove the bench still runs (CI), not to measure. */
export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argsOf(argv),
    options: OPTIONS,
    strict: true,
  })
  if (values.help) throw new Error(USAGE)
  const smoke = values.smoke ?? false
  const dialects = (values.dialects ?? 'mysql,sqlite').split(',').map((d) => d.trim())
  for (const d of dialects) if (d !== 'mysql' && d !== 'sqlite') throw new Error(`--dialects: unknown ${d}`)
  const only = (values.only ?? BENCH_PARTS.join(',')).split(',').map((p) => p.trim())
  for (const p of only) {
    if (!(BENCH_PARTS as readonly string[]).includes(p)) {
      throw new Error(`--only: unknown part ${p} (expected ${BENCH_PARTS.join(', ')})`)
    }
  }
  return {
    rounds: Math.round(positive('rounds', values.rounds, smoke ? 1 : 5)),
    seconds: positive('seconds', values.seconds, smoke ? 1 : 8),
    dialects: dialects as Dialect[],
    batchConnections: Math.round(positive('batch-connections', values['batch-connections'], 4)),
    singleConnections: Math.round(positive('single-connections', values['single-connections'], 16)),
    dialerSeconds: positive('dialer-seconds', values['dialer-seconds'], smoke ? 2 : 15),
    logLevel: values['log-level'] ?? 'warn',
    out: values.out ?? (smoke ? 'bench-results/smoke.json' : 'bench-results/latest.json'),
    port: Math.round(positive('port', values.port, 3100)),
    profile: values.profile ?? false,
    smoke,
    only: only as BenchPart[],
  }
}
