import { parseArgs } from 'node:util'
import type { Mode } from './metrics.js'

/** One simulated shift: the same population and timings for both dialing modes. */
export interface SimParams {
  agents: number
  leads: number
  /** Share of customers who answer, before and after the shift point. */
  answerRate: number
  answerRateAfter: number
  /** When the answer rate changes, as a share of the shift (0.5 = halfway). */
  shiftAt: number
  ringMeanSeconds: number
  talkMeanSeconds: number
  /** How long an answered customer waits on hold before hanging up: mean, and the minimum (nobody hangs up on the first word). */
  patienceMeanSeconds: number
  patienceMinSeconds: number
  wrapSeconds: number
  durationMinutes: number
  /** Simulated seconds per real second. */
  timeScale: number
  seed: number
  abandonRateMax: number
  maxDialLevel: number
  /** Simulated seconds between two chart samples. */
  sampleSeconds: number
  /**
   * Answered calls and abandon rate of the centre's earlier days inside the governor's window (30 days),
   * as a running centre has. 0: a brand-new window, where the budget starts at nothing.
   */
  historyAnswered: number
  historyAbandonRate: number
}

export const DEFAULT_PARAMS: SimParams = {
  agents: 20,
  leads: 4000,
  answerRate: 0.25,
  answerRateAfter: 0.5,
  shiftAt: 0.5,
  ringMeanSeconds: 12,
  talkMeanSeconds: 180,
  patienceMeanSeconds: 20,
  patienceMinSeconds: 3,
  wrapSeconds: 15,
  durationMinutes: 60,
  timeScale: 20,
  seed: 42,
  abandonRateMax: 0.03,
  maxDialLevel: 3,
  sampleSeconds: 30,
  historyAnswered: 10_000,
  historyAbandonRate: 0.01,
}

/** Each parameter's flag is its name in kebab case (`answerRateAfter` is `--answer-rate-after`). */
const HELP: Record<keyof SimParams, string> = {
  agents: 'agents, all ready for the whole shift (at least 1)',
  leads: 'leads in the list at the start',
  answerRate: 'share of customers who answer, 0-1',
  answerRateAfter: 'the same after the shift point, 0-1',
  shiftAt: 'when the answer rate changes, as a share of the shift, 0-1',
  ringMeanSeconds: 'mean ring time of a call that is answered (no answer rings 30 s)',
  talkMeanSeconds: 'mean conversation',
  patienceMeanSeconds: 'mean patience of a customer on hold (exponential, past the minimum)',
  patienceMinSeconds: 'minimum patience on hold',
  wrapSeconds: "agent's wrap-up after a conversation",
  durationMinutes: 'simulated length of the shift',
  timeScale: 'simulated seconds per real second (at least 1)',
  seed: "the simulator's random seed",
  abandonRateMax: 'abandon cap (ABANDON_RATE_MAX), 0-1',
  maxDialLevel: 'MAX_DIAL_LEVEL',
  sampleSeconds: 'simulated seconds between two chart samples',
  historyAnswered: "answered calls already in the governor's window (0: an empty window)",
  historyAbandonRate: 'abandon rate of those calls, 0-1',
}

const SHARES: (keyof SimParams)[] = [
  'answerRate',
  'answerRateAfter',
  'shiftAt',
  'abandonRateMax',
  'historyAbandonRate',
]

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const PARAM_KEYS = Object.keys(DEFAULT_PARAMS) as (keyof SimParams)[]
const DEFAULT_OUT = 'sim-results'
const MODES: readonly Mode[] = ['progressive', 'predictive']
const DEFAULT_PROGRESS_MINUTES = 5

export const USAGE = [
  'usage: pnpm simulate [flags]',
  '',
  'A call-centre shift in accelerated time, progressive then predictive on the same seeded population.',
  'Writes simulation.json, simulation.md and simulation.svg to the output folder; progress goes to',
  'stderr. Exit 0: every invariant held; 1: an invariant broke; 2: bad flags.',
  '',
  'flags (default in brackets):',
  `  --out DIR                     output folder [${DEFAULT_OUT}]`,
  `  --progress-minutes N          progress line every N simulated minutes, 0 for none [${DEFAULT_PROGRESS_MINUTES}]`,
  `  --modes LIST                  modes to run, comma-separated (e.g. predictive) [${MODES.join(',')}]`,
  ...PARAM_KEYS.map((k) => `  --${`${kebab(k)} N`.padEnd(28)}${HELP[k]} [${DEFAULT_PARAMS[k]}]`),
  '  -h, --help                    this text',
].join('\n')

/** A flag the user got wrong: main prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export type SimArgs =
  | { help: true }
  | { help: false; params: SimParams; out: string; progressMinutes: number; modes: Mode[] }

/** `--modes predictive` or `--modes progressive,predictive`: each mode once, in the usual order. */
function parseModes(raw: string): Mode[] {
  const asked = raw.split(',').map((m) => m.trim())
  for (const m of asked) {
    if (!MODES.includes(m as Mode))
      throw new UsageError(
        `--modes takes progressive, predictive or both comma-separated, got ${JSON.stringify(raw)}`,
      )
  }
  return MODES.filter((m) => asked.includes(m))
}

function toNumber(flag: string, raw: string): number {
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new UsageError(`--${flag} needs a non-negative number, got ${JSON.stringify(raw)}`)
  return value
}

/**
 * The command line over the defaults. A leading `--` (what `pnpm simulate -- --agents 5` passes on)
 * is ignored. Unknown flags, positional arguments and bad values throw a UsageError.
 */
export function parseSimArgs(argv: string[]): SimArgs {
  const args = argv[0] === '--' ? argv.slice(1) : argv
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        out: { type: 'string' },
        'progress-minutes': { type: 'string' },
        modes: { type: 'string' },
        ...Object.fromEntries(PARAM_KEYS.map((k) => [kebab(k), { type: 'string' as const }])),
      },
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  if (values.help === true) return { help: true }
  const params: SimParams = { ...DEFAULT_PARAMS }
  for (const key of PARAM_KEYS) {
    const raw = values[kebab(key)]
    if (typeof raw === 'string') params[key] = toNumber(kebab(key), raw)
  }
  for (const key of SHARES) {
    if (params[key] > 1) throw new UsageError(`--${kebab(key)} is a share, 0-1, got ${params[key]}`)
  }
  if (params.agents < 1) throw new UsageError('--agents must be at least 1')
  if (params.timeScale < 1) throw new UsageError('--time-scale must be at least 1')
  if (params.durationMinutes <= 0) throw new UsageError('--duration-minutes must be more than 0')
  if (params.sampleSeconds <= 0) throw new UsageError('--sample-seconds must be more than 0')
  const progress = values['progress-minutes']
  const modes = typeof values.modes === 'string' ? parseModes(values.modes) : [...MODES]
  return {
    modes,
    help: false,
    params,
    out: typeof values.out === 'string' && values.out !== '' ? values.out : DEFAULT_OUT,
    progressMinutes:
      typeof progress === 'string' ? toNumber('progress-minutes', progress) : DEFAULT_PROGRESS_MINUTES,
  }
}
