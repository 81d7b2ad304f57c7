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

/** `--agents 20 --duration-minutes 60 ...` over the defaults; unknown or bad flags throw. */
export function parseParams(argv: string[]): SimParams {
  const out: SimParams = { ...DEFAULT_PARAMS }
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] ?? ''
    const key = flag
      .replace(/^--/, '')
      .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof SimParams
    const value = Number(argv[i + 1])
    if (!flag.startsWith('--') || !(key in out)) throw new Error(`unknown flag ${flag}`)
    if (!Number.isFinite(value) || value < 0) throw new Error(`${flag} needs a non-negative number`)
    out[key] = value
  }
  if (out.answerRate > 1 || out.answerRateAfter > 1) throw new Error('answer rates are shares, 0-1')
  if (out.agents < 1 || out.timeScale < 1) throw new Error('--agents and --time-scale must be at least 1')
  return out
}
