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
 * in flight (each weighted by its chance to answer after ringing that long), and adds a line while the
 * chance that it answers to find every agent taken stays within a risk set by the target abandon rate
 * (ABANDON_RATE_TARGET, under the cap) and the measured one. See `forecastLines` and `lineRisk`.
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
  /** ABANDON_RATE_TARGET: the abandon rate the forecast aims at, under the cap. */
  targetAbandonRate: number
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

/**
 * Answered calls of the dialer's own before the forecast may go past the dial level per idle agent:
 * before them the delays measured are the short ones (the long ones still ring), and lifting the level
 * from the start gave bursts of answers within the first 5 minutes (docs/simulation).
 */
export const FORECAST_FREE_ANSWERED = 50

/** Abandon rate at which the dial level starts to fall, and where it reaches 1, as shares of the cap. */
export const THROTTLE_FROM = 0.7
export const THROTTLE_FULL = 0.9

/**
 * How far the measured abandon rate moves the risk a new line may take (`lineRisk`): the target's risk
 * is scaled by target / (the recent rate if the next answer were abandoned), within these bounds.
 */
export const RISK_SCALE_MIN = 0.25
export const RISK_SCALE_MAX = 2

/**
 * The chance, for a new line, of answering to find every agent taken that the forecast accepts: the
 * target abandon rate scaled by target / ((abandoned + 1) / (answered + 1)) over the dialer's recent
 * answered calls, within RISK_SCALE_MIN..RISK_SCALE_MAX. Counting the next answer as abandoned keeps
 * the risk low while few calls are measured: one early abandon in 20 answered calls is 5%, past the
 * throttle (THROTTLE_FROM of the cap), which then held the dial level at 1 for many minutes; a pacer
 * aiming at 2% per line lost more talk that way than it won (docs/simulation). 100 clean calls double
 * the risk, a recent rate over the target lowers it.
 */
export function lineRisk(target: number, recent?: { answered: number; abandoned: number }): number {
  const answered = recent?.answered ?? 0
  const abandoned = recent?.abandoned ?? 0
  const ifAbandoned = (abandoned + 1) / (answered + 1)
  return target * Math.min(RISK_SCALE_MAX, Math.max(RISK_SCALE_MIN, target / ifAbandoned))
}

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
  const perAgentCap = Math.floor(input.maxDialLevel * input.readyAgents) - input.inFlight - input.waiting
  // With a forecast, the dial level limits lines per idle agent only while the throttle acts (the
  // abandon rate past THROTTLE_FROM of the cap). Otherwise the forecast knows better: at 25% answered
  // about 11 lines ring at once to keep 20 agents busy, and 3 lines per idle agent then held back any
  // new line until 4 agents were idle or nearly, the larger part of the agents' idle time in the
  // simulation (docs/simulation). MAX_DIAL_LEVEL per ready agent still holds.
  const forecasting =
    input.forecast !== undefined &&
    input.answerRate !== null &&
    (input.recent?.answered ?? 0) >= FORECAST_FREE_ANSWERED
  const throttled = Math.max(rate, recent) > THROTTLE_FROM * input.abandonRateMax
  const wanted =
    forecasting && !throttled
      ? perAgentCap
      : Math.floor(Math.max(0, free + (input.soonFree ?? 0)) * level) - input.inFlight
  const cap = Math.min(wanted, safe + risk, perAgentCap)
  const forecast =
    input.forecast && input.answerRate !== null
      ? forecastLines(
          input.forecast,
          input.idleAgents - input.waiting,
          input.answerRate,
          Math.max(0, cap),
          lineRisk(Math.min(input.forecast.targetAbandonRate, input.abandonRateMax), input.recent),
        )
      : cap
  // Lines that find an agent even if every one answers are always allowed: the forecast's margin would
  // otherwise keep a lone idle agent waiting for a second.
  const lines = Math.max(0, Math.min(cap, Math.max(forecast, safe)))
  return { ...none, lines }
}

/**
 * Lines to add now (at most `limit`) while a new line, if it answers, still finds an agent with
 * probability at least 1 - `risk`. `free` is idle agents less waiting customers; `answerRate` the share
 * of lines answered (before the ring timeout).
 *
 * With answer delays exponential of mean m and timeout T, an answering line rings past e seconds with
 * probability (e^(-e/m) - e^(-T/m)) / (1 - e^(-T/m)); a line that has rung e seconds unanswered then
 * still answers with probability q(e) = p s / (p s + 1 - p), p the answer rate and s that share; a fresh
 * line q(0) = p. An agent whose wrap-up ends in w seconds is in time for an answer that comes after
 * w - COMPLIANCE_SECONDS, probability e^(-(w - c)/m) for a fresh line. While the delay is unmeasured,
 * lines in flight count as fresh and only wrap-ups ending within the compliance time count.
 *
 * The answers (one chance per line) and the agents in wrap-up (one chance each) are counted exactly, as
 * sums of independent yes/no chances: a new line is abandoned if it answers when the other answers
 * already took every agent, chance P(answers >= agents). Holding that chance per added line to a risk,
 * rather than the surplus of agents to 0.5 + 2 standard deviations as before, spends the abandon budget
 * where it buys most talk: the earlier margin held the simulation at 1% abandoned with agents idle 12-14%
 * of the time (docs/simulation).
 */
export function forecastLines(
  f: Forecast,
  free: number,
  answerRate: number,
  limit: number,
  risk: number,
): number {
  const p = Math.min(1, Math.max(0, answerRate))
  // Nobody answered lately: no line is expected to take an agent, so the caps decide.
  if (p === 0) return limit
  const m =
    f.answerDelayMean !== null && f.answerDelayMean > 0
      ? untruncatedMean(f.answerDelayMean, f.ringTimeoutSeconds)
      : null
  const timeoutTail = m === null ? 0 : Math.exp(-f.ringTimeoutSeconds / m)
  // Agents in time: `free` for sure, plus one chance per agent in wrap-up.
  let agents = [1]
  for (const w of f.wrapRemainingSeconds) {
    const late = Math.max(0, w - f.complianceSeconds)
    agents = addChance(agents, m === null ? (late === 0 ? 1 : 0) : Math.exp(-late / m))
  }
  let answers = [1]
  for (const e of f.ringingSeconds) {
    const s = m === null ? 1 : Math.max(0, Math.exp(-Math.max(0, e) / m) - timeoutTail) / (1 - timeoutTail)
    answers = addChance(answers, (p * s) / (p * s + 1 - p))
  }
  let lines = 0
  while (lines < limit && chanceAtLeast(answers, agents, free) <= risk + 1e-12) {
    answers = addChance(answers, p)
    lines += 1
  }
  return lines
}

/**
 * The mean m of the exponential ring-to-answer delay, from the mean of the delays measured, which are
 * only those under the ring timeout T: that mean is m - T e^(-T/m) / (1 - e^(-T/m)), less than m
 * (9.3 s for m = 12 s and T = 30 s). Taken as m, it made a line that had rung 15 s look half as likely
 * to answer as it was, and the forecast dialed on answers it did not expect. Solved by bisection. A
 * measured mean at or past T / 2 (delays spread evenly over the ring time: no decay to fit) gives 100 T,
 * where a line's age hardly lowers its chance to answer: the cautious side.
 */
export function untruncatedMean(measured: number, timeout: number): number {
  const truncated = (m: number) => m - (timeout * Math.exp(-timeout / m)) / (1 - Math.exp(-timeout / m))
  if (timeout <= 0 || measured <= 0) return measured
  let lo = measured
  let hi = 100 * timeout
  if (truncated(hi) <= measured) return hi
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (truncated(mid) < measured) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** The distribution of a count (index: value) after one more independent yes with chance `q`. */
function addChance(dist: readonly number[], q: number): number[] {
  const out = new Array<number>(dist.length + 1).fill(0)
  for (let k = 0; k < dist.length; k++) {
    const pk = dist[k] ?? 0
    out[k] = (out[k] ?? 0) + pk * (1 - q)
    out[k + 1] = (out[k + 1] ?? 0) + pk * q
  }
  return out
}

/** P(answers >= free + extra agents), the two counts independent. */
function chanceAtLeast(answers: readonly number[], extra: readonly number[], free: number): number {
  // tail[k] = P(answers >= k)
  const tail = new Array<number>(answers.length + 1).fill(0)
  for (let k = answers.length - 1; k >= 0; k--) tail[k] = (tail[k + 1] ?? 0) + (answers[k] ?? 0)
  let total = 0
  for (let j = 0; j < extra.length; j++) {
    const need = Math.max(0, Math.ceil(free) + j)
    total += (extra[j] ?? 0) * (need < tail.length ? (tail[need] ?? 0) : 0)
  }
  return total
}
