// WORK_START / WORK_END: the daily window in which the dialer may place non-callback calls.
import {
  addDays,
  assertValidZone,
  instantOfWallTime,
  type LocalDate,
  localDateOf,
  wallTimeOn,
} from './zoned-time.js'

/** The working window [start, end) on the local wall clock of `zone`, every calendar day. */
export interface WorkingHours {
  /** IANA zone (TIMEZONE). */
  zone: string
  /** `HH:MM`, 00:00-23:59, inclusive. */
  start: string
  /** `HH:MM`, 00:00-23:59, exclusive; later than `start`. */
  end: string
}

/** One day's working window as instants: start inclusive, end exclusive. */
export interface WorkWindow {
  start: Date
  end: Date
}

export interface ClockTime {
  hour: number
  minute: number
}

const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/

/** `HH:MM` (00:00-23:59) as numbers, or null when it is anything else. */
export function parseClockTime(text: string): ClockTime | null {
  const match = CLOCK_TIME.exec(text)
  return match === null ? null : { hour: Number(match[1]), minute: Number(match[2]) }
}

/**
 * Throws a RangeError unless the zone is a valid IANA zone and start/end are `HH:MM` with
 * start < end. Configuration validates the same rules once at boot; checking again here
 * keeps a hand-built value from looping or silently meaning something else.
 */
export function assertWorkingHours(hours: WorkingHours): { start: ClockTime; end: ClockTime } {
  assertValidZone(hours.zone)
  const start = parseClockTime(hours.start)
  const end = parseClockTime(hours.end)
  if (start === null || end === null || hours.start >= hours.end) {
    throw new RangeError(
      `working hours must be HH:MM with start before end, got ${JSON.stringify(hours.start)}-${JSON.stringify(hours.end)}`,
    )
  }
  return { start, end }
}

/**
 * The working window of the local calendar day `date` (`YYYY-MM-DD`).
 *
 * On a DST change day the window follows `instantOfWallTime`: a start or end inside a
 * spring-forward gap moves forward by the gap's length (09:00-18:00 is never affected; a
 * 02:30 start in New York becomes 03:30 EDT), and one inside a fall-back overlap is its first
 * reading. A window shorter than the gap that straddles it can come out empty (end <= start);
 * `hasWorkingTime` tells, and such a day simply has no working time.
 */
export function workWindowOfDay(date: LocalDate, hours: WorkingHours): WorkWindow {
  const { start, end } = assertWorkingHours(hours)
  return {
    start: wallInstant(date, start, hours.zone),
    end: wallInstant(date, end, hours.zone),
  }
}

/** WORK_START of the local calendar day `date`. */
export function workStartOfDay(date: LocalDate, hours: WorkingHours): Date {
  return workWindowOfDay(date, hours).start
}

/** WORK_END of the local calendar day `date` (the first instant outside the window). */
export function workEndOfDay(date: LocalDate, hours: WorkingHours): Date {
  return workWindowOfDay(date, hours).end
}

/** False only for a day whose window a DST gap swallowed (see `workWindowOfDay`). */
export function hasWorkingTime(window: WorkWindow): boolean {
  return window.start < window.end
}

/** Whether `at` lies in [window.start, window.end). */
export function isInWindow(at: Date, window: WorkWindow): boolean {
  return window.start <= at && at < window.end
}

/**
 * Whether `now` is inside the working window of its own local day.
 *
 * Decided on instants, not on the wall-clock reading, so it always agrees with
 * `nextWorkStart` and the retry schedule: on the rare day when WORK_START or WORK_END falls
 * into a DST gap or overlap, the window is the one `workWindowOfDay` describes. Every other
 * day this is exactly "start <= local HH:MM < end".
 */
export function isWithinWorkingHours(now: Date, hours: WorkingHours): boolean {
  return isInWindow(now, workWindowOfDay(localDateOf(now, hours.zone), hours))
}

/**
 * The next WORK_START strictly after `now`: today's if `now` is before it, else tomorrow's
 * (local calendar days in the zone). A day whose window a DST gap swallowed has no working
 * time and is skipped, so the result always lies inside a working window.
 */
export function nextWorkStart(now: Date, hours: WorkingHours): Date {
  // Ends within three days: a gap can swallow at most one day's window in a row, because
  // assertWorkingHours guarantees start < end on the wall clock.
  return firstStartFrom(localDateOf(now, hours.zone), now, hours)
}

function firstStartFrom(date: LocalDate, now: Date, hours: WorkingHours): Date {
  const window = workWindowOfDay(date, hours)
  return window.start > now && hasWorkingTime(window)
    ? window.start
    : firstStartFrom(addDays(date, 1), now, hours)
}

/**
 * The spec's `next_retry_at` for a pushed (non-callback) lead: NULL inside working hours,
 * so it can be claimed at once, otherwise the next WORK_START.
 */
export function nextRetryAtForPush(now: Date, hours: WorkingHours): Date | null {
  return isWithinWorkingHours(now, hours) ? null : nextWorkStart(now, hours)
}

function wallInstant(date: LocalDate, time: ClockTime, zone: string): Date {
  // Never null: the date comes from Luxon and the clock time was validated.
  return instantOfWallTime(wallTimeOn(date, time.hour, time.minute), zone) as Date
}

/**
 * The instant from which exactly `minutes` of working time (the daily windows of `hours`) run up to
 * `now`, walking back through the windows; null when the last `maxDays` days hold less. What
 * PINNED_FALLBACK_MINUTES counts for Pending leads and retries: a lead waits that much of its agent's
 * working time, whatever nights and days lie between, so a limit longer than one working day still
 * comes (a 600-minute limit with 09:00-18:00 is reached on the second day).
 */
export function workingTimeBack(now: Date, minutes: number, hours: WorkingHours, maxDays = 400): Date | null {
  let remaining = minutes * 60_000
  let day = localDateOf(now, hours.zone)
  for (let i = 0; i <= maxDays; i++, day = addDays(day, -1)) {
    const { start, end } = workWindowOfDay(day, hours)
    const until = Math.min(end.getTime(), now.getTime())
    const available = until - start.getTime()
    if (available <= 0) continue
    if (available >= remaining) return new Date(until - remaining)
    remaining -= available
  }
  return null
}
