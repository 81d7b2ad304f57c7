/**
 * Predictive pacing: how many customer lines to dial now. Pure: the dialer passes what it sees.
 *
 * The guard that keeps the abandon rate at or below its cap is a budget, not a forecast: a call is
 * abandoned only if it is answered when no agent is free, so the answers that could end that way (the
 * "exposure": waiting customers beyond the idle agents, plus the lines in flight beyond them weighted
 * by the guard answer rate) are never allowed to exceed the abandons the window can still absorb,
 * floor(cap x answered) - abandoned. The guard answer rate is twice the measured one (at least the
 * measured one plus 0.1, at most 1; 1 while unmeasured): even if the answer rate doubles at once and
 * no agent frees up, the rate cannot pass the cap. Assuming every line answers (guard 1) was tried
 * first: it is safe against anything but keeps the dial level near 1 for hours on a fresh window.
 * Within the budget the dial level follows the measured answer rate (1 / answer rate lines per idle
 * agent), capped at MAX_DIAL_LEVEL per ready agent, and falls to 1 as the abandon rate nears the cap.
 */
export interface PacingInput {
  /** Agents logged in (panel active) and ready, idle or on a call. */
  readyAgents: number
  /** Agents free to take a call this moment. */
  idleAgents: number
  /**
   * Agents who will be free within about one ring time (in wrap-up that ends soon). Lines dialed for
   * them are paced like lines for idle agents but count against the budget: they are not free yet.
   */
  soonFree?: number
  /** Answered customers waiting for an agent. */
  waiting: number
  /** Customer lines dialing, not yet answered. */
  inFlight: number
  /** Measured share of dialed lines that are answered; null while too few calls were measured. */
  answerRate: number | null
  /** The governor's rolling window. */
  window: { answered: number; abandoned: number }
  /**
   * The most recent answered calls (e.g. the last 200). Their rate also throttles the dial level, so a
   * long, clean window cannot hide a bad hour; it does not add to the budget.
   */
  recent?: { answered: number; abandoned: number }
  abandonRateMax: number
  maxDialLevel: number
}

export interface PacingDecision {
  /** New lines to dial now. */
  lines: number
  /** Lines per idle agent the decision aimed for. */
  dialLevel: number
  /** Abandons the window can still absorb. */
  budget: number
  /** Measured abandon rate over the window (0 with no answered call). */
  abandonRate: number
}

/** Recent answered calls needed before their abandon rate throttles the dial level. */
export const MIN_RECENT_ANSWERED = 20

/** Abandon rate at which the dial level starts to fall, and where it reaches 1, as shares of the cap. */
export const THROTTLE_FROM = 0.5
export const THROTTLE_FULL = 0.8

/** The answer rate the budget is held against: a sudden doubling of the measured rate. */
export function guardAnswerRate(answerRate: number | null): number {
  if (answerRate === null) return 1
  return Math.min(1, Math.max(2 * answerRate, answerRate + 0.1))
}

export function abandonRate(window: { answered: number; abandoned: number }): number {
  return window.answered === 0 ? 0 : window.abandoned / window.answered
}

/** Dial level from the answer rate, damped linearly to 1 between THROTTLE_FROM and THROTTLE_FULL of the cap. */
export function dialLevel(
  answerRate: number | null,
  rate: number,
  cap: number,
  maxDialLevel: number,
): number {
  if (answerRate === null || answerRate <= 0) return 1
  const wanted = Math.min(maxDialLevel, Math.max(1, 1 / answerRate))
  if (cap <= 0) return 1
  const share = rate / cap
  if (share >= THROTTLE_FULL) return 1
  if (share <= THROTTLE_FROM) return wanted
  const damp = (THROTTLE_FULL - share) / (THROTTLE_FULL - THROTTLE_FROM)
  return 1 + (wanted - 1) * damp
}

export function pacing(input: PacingInput): PacingDecision {
  const rate = abandonRate(input.window)
  const recent = input.recent && input.recent.answered >= MIN_RECENT_ANSWERED ? abandonRate(input.recent) : 0
  const budget = Math.max(
    0,
    Math.floor(input.abandonRateMax * input.window.answered) - input.window.abandoned,
  )
  const level = dialLevel(input.answerRate, Math.max(rate, recent), input.abandonRateMax, input.maxDialLevel)
  const none = { lines: 0, dialLevel: level, budget, abandonRate: rate }
  // Never dial with nobody logged in and ready.
  if (input.readyAgents <= 0) return none
  const free = input.idleAgents - input.waiting
  const guard = guardAnswerRate(input.answerRate)
  // Lines that find an agent even if all of them answer at once.
  const safe = Math.max(0, free - input.inFlight)
  // Exposure already taken: waiting customers beyond the idle agents, and lines beyond the free agents
  // weighted by the guard answer rate.
  const exposure = Math.max(0, -free) + guard * Math.max(0, input.inFlight - Math.max(0, free))
  const risk = Math.max(0, Math.floor((budget - exposure) / guard + 1e-9))
  const wanted = Math.floor(Math.max(0, free + (input.soonFree ?? 0)) * level) - input.inFlight
  const perAgentCap = Math.floor(input.maxDialLevel * input.readyAgents) - input.inFlight - input.waiting
  const lines = Math.max(0, Math.min(wanted, safe + risk, perAgentCap))
  return { ...none, lines }
}
