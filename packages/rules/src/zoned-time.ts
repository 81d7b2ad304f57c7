// Time-zone primitives shared by callback-time, working-hours and retry-schedule.
// Every conversion between an instant and a local wall time goes through Luxon here,
// so the DST rules (gap and overlap handling) are decided in exactly one place.
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon'

/** A calendar date in some time zone, as ISO `YYYY-MM-DD`. */
export type LocalDate = string

/** A local wall-clock reading, without a zone. */
export interface WallTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second?: number
  millisecond?: number
}

const LOCAL_DATE_FORMAT = 'yyyy-LL-dd'
const OFFSET_ZONE = /^[+\-\u2212]/

/** Whether `zone` is an IANA zone name Luxon (and so Intl) knows. */
export function isIanaZone(zone: string): boolean {
  // IANAZone.create caches one instance per name; IANAZone.isValidZone builds a new
  // Intl.DateTimeFormat on every call (70 us against 0.1 us, measured), and every
  // working-hours function checks its zone.
  // Node 22 and 24 accept a bare UTC offset ("+05:30") as a time zone (Node 20 did not); it is not an
  // IANA name and has no DST rules, so it is refused on every Node line alike.
  return !OFFSET_ZONE.test(zone) && IANAZone.create(zone).isValid
}

/** Throws a RangeError unless `zone` is an IANA zone name Luxon (and so Intl) knows. */
export function assertValidZone(zone: string): void {
  if (!isIanaZone(zone)) {
    throw new RangeError(`unknown IANA time zone ${JSON.stringify(zone)}`)
  }
}

/** The instant `at` seen in `zone`. Throws a RangeError for an invalid Date or zone. */
export function inZone(at: Date, zone: string): DateTime {
  assertValidZone(zone)
  const local = DateTime.fromJSDate(at, { zone })
  if (!local.isValid) {
    throw new RangeError('invalid Date')
  }
  return local
}

/** The calendar date of the instant `at` in `zone`. */
export function localDateOf(at: Date, zone: string): LocalDate {
  return inZone(at, zone).toFormat(LOCAL_DATE_FORMAT)
}

// Calendar arithmetic on plain dates is done in UTC, where every day is exactly 24 h long,
// so "days between" never depends on a DST change inside the interval.
function utcMidnight(date: LocalDate): DateTime {
  const midnight = DateTime.fromISO(date, { zone: 'utc' })
  if (!midnight.isValid || midnight.toFormat(LOCAL_DATE_FORMAT) !== date) {
    throw new RangeError(`not a calendar date YYYY-MM-DD: ${JSON.stringify(date)}`)
  }
  return midnight
}

/** `date` moved by `days` calendar days. */
export function addDays(date: LocalDate, days: number): LocalDate {
  return utcMidnight(date).plus({ days }).toFormat(LOCAL_DATE_FORMAT)
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return utcMidnight(to).diff(utcMidnight(from), 'days').days
}

/** The wall time `hour:minute` on the calendar day `date`. */
export function wallTimeOn(date: LocalDate, hour: number, minute: number): WallTime {
  const { year, month, day } = utcMidnight(date)
  return { year, month, day, hour, minute }
}

/**
 * The wall time spelled by the digit groups of a datetime string, in the order year, month,
 * day, hour, minute, second, fraction of a second (the last two may be missing). Fractions
 * finer than a millisecond are truncated: the database keeps milliseconds. Returns null for
 * hour 24 or more, which Luxon would otherwise read as the next midnight (24:00:01 must be
 * rejected, and no client means 24:00:00). Other out-of-range fields are left for Luxon.
 */
export function wallTimeFromDigits(groups: readonly (string | undefined)[]): WallTime | null {
  const [year, month, day, hour, minute, second, fraction] = groups
  const hourOfDay = Number(hour)
  if (hourOfDay > 23) {
    return null
  }
  return {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: hourOfDay,
    minute: Number(minute),
    second: Number(second ?? '0'),
    millisecond: Number(`${fraction ?? ''}000`.slice(0, 3)),
  }
}

/**
 * The instant at which the clocks in `zone` show `wall`, or null when the fields are not a
 * real calendar value (Feb 30, month 13, minute 60).
 *
 * DST rules, chosen once for the whole package:
 * - A wall time inside a spring-forward gap does not exist. Luxon moves it forward by the
 *   length of the gap (02:30 on a New York spring-forward day is 03:30 EDT; 02:15 on a
 *   Lord Howe spring-forward day is 02:45), and that is kept: the result is still "that
 *   much time after the last valid minute before the gap".
 * - A wall time inside a fall-back overlap happens twice. Luxon alone returns whichever
 *   reading its offset guess lands on (the later one for New York, the earlier one for
 *   Lord Howe), so the earliest reading is taken explicitly: a callback at 01:30 is due at
 *   the first 01:30, and a working day starting at 01:30 starts at the first 01:30.
 */
export function instantOfWallTime(wall: WallTime, zone: string): Date | null {
  assertValidZone(zone)
  const reading = DateTime.fromObject(wall, { zone })
  if (!reading.isValid) {
    return null
  }
  const earliest = Math.min(...reading.getPossibleOffsets().map((option) => option.toMillis()))
  return new Date(earliest)
}

/**
 * The instant at which a clock running at the fixed UTC offset `offsetMinutes` shows `wall`
 * (a value sent with `Z` or `+05:30`), or null when the fields are not a real calendar value.
 */
export function instantAtOffset(wall: WallTime, offsetMinutes: number): Date | null {
  const reading = DateTime.fromObject(wall, { zone: FixedOffsetZone.instance(offsetMinutes) })
  return reading.isValid ? reading.toJSDate() : null
}

/** The later of two instants. */
export function laterOf(a: Date, b: Date): Date {
  return new Date(Math.max(a.getTime(), b.getTime()))
}
