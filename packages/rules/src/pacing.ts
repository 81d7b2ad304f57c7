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
 *
 * Within those guards, when the dialer passes a `forecast`, the forecast decides: it counts the agents
 * who will be free when a customer dialed now answers (idle ones, and those in wrap-up weighted by the
 * chance the answer comes after their wrap-up ends) against the answers still to come from the lines
 * in flight (each weighted by its chance to answer after ringing that long), and adds lines while the
 * expected surplus of agents stays above a margin that grows with the spread of those answers. See
 * `forecastLines`.
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
  /** What the dialer knows of its lines and agents in time; without it, only the counts above pace. */
  forecast?: Forecast
}

/**
 * Timings for the forecast. Ring-to-answer times are modelled as exponential with the measured mean:
 * a simple model, and the margin absorbs its error (measured in docs/simulation).
 */
export interface Forecast {
  /** How long each line in flight has been ringing, in seconds. */
  ringingSeconds: readonly number[]
  /** For each ready agent in wrap-up (not on a call): seconds until the wrap-up ends. */
  wrapRemainingSeconds: readonly number[]
  /** Mean seconds from dialing to the answer over recent answered calls; null while unmeasured. */
  answerDelayMean: number | null
  /** RING_TIMEOUT_SECONDS: a line not answered by then is not answered. */
  ringTimeoutSeconds: number
  /** COMPLIANCE_SECONDS: an agent who frees up this soon after the answer is still in time. */
  complianceSeconds: number
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
export const THROTTLE_FROM = 0.7
export const THROTTLE_FULL = 0.9

/**
 * The forecast's margin, in agents: lines are added while the expected number of free agents, less the
 * expected answers, stays at or above MARGIN_AGENTS + MARGIN_SPREAD x the standard deviation of those
 * answers. Chosen on a quick event-level model of the simulation's centre (20 agents, 25% then 50%
 * answered, talk 180 s, wrap 15 s; 50 seeds), then confirmed by `pnpm simulate` (docs/simulation):
 * 2 and 0.5 held the abandon rate near 1.2% on average (room for a sudden rise in the answer rate
 * under the 3% cap); 1 and 0 gave about 19%, 2 and 0 about 5%, with under 2% more talk time.
 */
export const MARGIN_SPREAD = 2
export const MARGIN_AGENTS = 0.5

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
  const cap = Math.min(wanted, safe + risk, perAgentCap)
  const forecast =
    input.forecast && input.answerRate !== null
      ? forecastLines(input.forecast, input.idleAgents - input.waiting, input.answerRate, Math.max(0, cap))
      : cap
  // Lines that find an agent even if every one answers are always allowed: the forecast's margin would
  // otherwise keep a lone idle agent waiting for a second.
  const lines = Math.max(0, Math.min(cap, Math.max(forecast, safe)))
  return { ...none, lines }
}

/**
 * Lines to add now (at most `limit`) so that the agents free when the answers come still outnumber the
 * answers by the margin. `free` is idle agents less waiting customers; `answerRate` the share of lines
 * answered (before the ring timeout).
 *
 * With answer delays exponential of mean m and timeout T, an answering line rings past e seconds with
 * probability (e^(-e/m) - e^(-T/m)) / (1 - e^(-T/m)); a line that has rung e seconds unanswered then
 * still answers with probability q(e) = p s / (p s + 1 - p), p the answer rate and s that share; a fresh
 * line q(0) = p. An agent whose wrap-up ends in w seconds is in time for an answer that comes after
 * w - COMPLIANCE_SECONDS, probability e^(-(w - c)/m) for a fresh line. While the delay is unmeasured,
 * lines in flight count as fresh and only wrap-ups ending within the compliance time count.
 */
export function forecastLines(f: Forecast, free: number, answerRate: number, limit: number): number {
  const p = Math.min(1, Math.max(0, answerRate))
  // Nobody answered lately: no line is expected to take an agent, so the caps decide.
  if (p === 0) return limit
  const m = f.answerDelayMean !== null && f.answerDelayMean > 0 ? f.answerDelayMean : null
  const timeoutTail = m === null ? 0 : Math.exp(-f.ringTimeoutSeconds / m)
  let agents = free
  for (const w of f.wrapRemainingSeconds) {
    const late = Math.max(0, w - f.complianceSeconds)
    agents += m === null ? (late === 0 ? 1 : 0) : Math.exp(-late / m)
  }
  let expected = 0
  let variance = 0
  for (const e of f.ringingSeconds) {
    const s = m === null ? 1 : Math.max(0, Math.exp(-Math.max(0, e) / m) - timeoutTail) / (1 - timeoutTail)
    const q = (p * s) / (p * s + 1 - p)
    expected += q
    variance += q * (1 - q)
  }
  let lines = 0
  while (lines < limit) {
    const e = expected + (lines + 1) * p
    const v = variance + (lines + 1) * p * (1 - p)
    if (agents - e < MARGIN_AGENTS + MARGIN_SPREAD * Math.sqrt(v)) break
    lines += 1
  }
  return lines
}
