// When a Not Connected (or, in pinned mode, hold-timeout Abandoned) lead is tried again.
// DECISIONS section 6 is the rule; each sentence of it maps to one step of nextAttempt.
import { isInWindow, type WorkingHours, workWindowOfDay } from './working-hours.js'
import { addDays, daysBetween, type LocalDate, laterOf, localDateOf } from './zoned-time.js'

export interface RetryPolicy {
  /** `pattern[d]`: attempts allowed on day d, counted in calendar days from the first attempt. */
  pattern: number[]
  /** Minimum gap between two attempts on the same day (RETRY_SECONDS). */
  retrySeconds: number
  /** Total attempts after which the lead is finished (MAX_TRIES). */
  maxTries: number
  hours: WorkingHours
}

export type NextAttempt = { kind: 'retry'; at: Date } | { kind: 'exhausted' }

export type CallbackMode = 'pool' | 'pinned'

/** The spec's default `retry_pattern`: `[2,2,2,2]` for pool (Mode A), `[2,2,1]` for pinned (Mode B). */
export function defaultRetryPattern(mode: CallbackMode): number[] {
  return mode === 'pinned' ? [2, 2, 1] : [2, 2, 2, 2]
}

/**
 * The quota of day `day`. Days past the end of the pattern reuse its last entry: with the
 * default `[2,2,2,2]` and a MAX_TRIES raised to 10 the lead gets two more tries on day 4 and
 * ends there, so MAX_TRIES alone decides when a long schedule stops. The rejected
 * alternative, "no quota after the pattern", would make any MAX_TRIES above the pattern's
 * sum silently meaningless. A pattern ending in 0 therefore stops after its last positive day.
 */
export function quotaOfDay(pattern: readonly number[], day: number): number {
  const last = pattern.length - 1
  if (last < 0) {
    throw new RangeError('retry pattern must have at least one entry')
  }
  return pattern[Math.min(day, last)] as number
}

/** Day index of `at`: calendar days in `zone` between the first attempt's date and its date. */
export function retryDayIndex(firstAttempt: Date, at: Date, zone: string): number {
  return daysBetween(localDateOf(firstAttempt, zone), localDateOf(at, zone))
}

/**
 * The next attempt after a failed one, or `exhausted` when the lead is finished.
 *
 * `attempts` are the start times of every attempt since the lead's first one (the dial-state
 * reset clears that history), ascending, including the one that just ended; `now` is the
 * settle time. What the caller does with `exhausted` depends on the mode (pool archives,
 * pinned sets Disposed).
 */
export function nextAttempt(
  input: { attempts: readonly Date[]; now: Date },
  policy: RetryPolicy,
): NextAttempt {
  const { attempts, now } = input
  // "call_count reaching MAX_TRIES ends the lead".
  if (attempts.length >= policy.maxTries) {
    return { kind: 'exhausted' }
  }
  const first = attempts[0]
  const last = attempts[attempts.length - 1]
  if (first === undefined || last === undefined) {
    throw new RangeError('attempts must include at least the attempt that just ended')
  }
  const { zone } = policy.hours
  // "counted in TIMEZONE calendar days from its first attempt (day 0)".
  const firstDate = localDateOf(first, zone)
  const lastDate = localDateOf(last, zone)
  const lastDay = daysBetween(firstDate, lastDate)

  const sameDay = sameDayRetry(attempts, last, lastDate, lastDay, now, policy)
  if (sameDay !== null) {
    return { kind: 'retry', at: sameDay }
  }
  return nextDayRetry(firstDate, lastDay, now, policy)
}

/**
 * "Within one day two attempts are at least RETRY_SECONDS apart": the next slot is
 * max(last + RETRY_SECONDS, now), taken only while the day still has quota and the slot is
 * on the same local day and before WORK_END. A slot before WORK_START waits for WORK_START:
 * that is how a due callback dialed before hours (which ignores the gate) hands back to the
 * normal schedule.
 */
function sameDayRetry(
  attempts: readonly Date[],
  last: Date,
  lastDate: LocalDate,
  lastDay: number,
  now: Date,
  policy: RetryPolicy,
): Date | null {
  const { zone } = policy.hours
  const usedOnLastDay = attempts.filter((at) => localDateOf(at, zone) === lastDate).length
  if (usedOnLastDay >= quotaOfDay(policy.pattern, lastDay)) {
    return null
  }
  const slot = laterOf(new Date(last.getTime() + policy.retrySeconds * 1000), now)
  const window = workWindowOfDay(lastDate, policy.hours)
  const at = laterOf(slot, window.start)
  return localDateOf(slot, zone) === lastDate && isInWindow(at, window) ? at : null
}

/**
 * "When a day's quota is used, or the next slot falls at or after WORK_END, the next attempt
 * is the next day's WORK_START that still has quota."
 *
 * Days whose whole window already lies before `now` are skipped (the settle came late, say a
 * lost call released after CALL_TIMEOUT_SECONDS); when `now` is inside a later day's window
 * the attempt is `now` rather than a WORK_START in the past, so the result is never before
 * `now`. A day whose window a DST gap swallowed has no instant inside it and is skipped too.
 */
function nextDayRetry(firstDate: LocalDate, lastDay: number, now: Date, policy: RetryPolicy): NextAttempt {
  const today = daysBetween(firstDate, localDateOf(now, policy.hours.zone))
  return retryFromDay(Math.max(lastDay + 1, today), firstDate, now, policy)
}

/** The first day from `day` on with quota and a window not yet over (a recursion, not an open loop). */
function retryFromDay(day: number, firstDate: LocalDate, now: Date, policy: RetryPolicy): NextAttempt {
  if (quotaOfDay(policy.pattern, day) > 0) {
    const window = workWindowOfDay(addDays(firstDate, day), policy.hours)
    const at = laterOf(window.start, now)
    if (isInWindow(at, window)) return { kind: 'retry', at }
  } else if (day >= policy.pattern.length - 1) {
    // Every later day reuses this 0: no day will ever have quota again.
    return { kind: 'exhausted' }
  }
  return retryFromDay(day + 1, firstDate, now, policy)
}

/** The spec's Abandoned retry: `now` + ABANDON_RETRY_SECONDS (300 by default), any time of day. */
export function retryDelayForAbandon(now: Date, abandonRetrySeconds: number): Date {
  return new Date(now.getTime() + abandonRetrySeconds * 1000)
}
