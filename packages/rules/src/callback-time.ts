// The spec's "Callback time" rules, shared by `callback_scheduled_at` (push) and
// `scheduledAt` (escalated tickets, send-callback-request).
import {
  assertValidZone,
  instantAtOffset,
  instantOfWallTime,
  inZone,
  type WallTime,
  wallTimeFromDigits,
} from './zoned-time.js'

export { fromDbTime, toDbTime } from './db-time.js'

export type CallbackTimeResult = { ok: true; at: Date } | { ok: false; message: string }

export const CALLBACK_TIME_FORMAT_MESSAGE =
  'must be a datetime YYYY-MM-DD HH:MM:SS or ISO-8601 with a time part'
export const CALLBACK_TIME_CALENDAR_MESSAGE = 'must be a real calendar date and time'
export const CALLBACK_TIME_RANGE_MESSAGE = 'must fall between the years 1000 and 9999 (UTC)'

// MySQL's DATETIME holds 1000-01-01 00:00:00 to 9999-12-31 23:59:59; an instant outside it (e.g.
// `0000-01-01 00:00:00` in a zone east of UTC lands in year -1) could not be stored, so it is the
// client's error, not the server's.
const EARLIEST_STORABLE = Date.UTC(1000, 0, 1)
const LATEST_STORABLE = Date.UTC(10000, 0, 1)

// `2026-05-01 10:00:00`: the format the spec names, always naive (in TIMEZONE).
const NAIVE_DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/

// ISO-8601 extended calendar format with a time part: `2026-05-01T10:00`, `T10:00:00`,
// `T10:00:00.123` (ISO also allows a comma before the fraction), then optionally `Z`,
// `+05:30`, `-0400` or `+05`. `t` and `z` are accepted in lower case too, as RFC 3339
// section 5.6 allows (DECISIONS section 3). Week dates, ordinal dates and the basic format
// (`20260501T1000`) are ISO too, but no CRM sends them and accepting them would only widen
// what can be mistyped, so they are rejected with the same message.
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/

/**
 * Parses a callback time sent by a client.
 *
 * - A value without an offset is a wall time in `zone` (TIMEZONE); one with `Z` or an offset
 *   is honoured as sent.
 * - Past values are accepted (the lead is then due immediately).
 * - Surrounding white space is ignored; an empty or blank string is rejected.
 * - Fractions finer than a millisecond are truncated: the database keeps milliseconds.
 * - Invalid calendar values (Feb 30, month 13, 24:00:01, offset +25:00) are rejected with
 *   their own message, so a client can tell a typo in the format from an impossible date.
 * - Wall times in a DST gap or overlap follow `instantOfWallTime`: a time in a spring-forward
 *   gap moves forward by the gap's length, an ambiguous fall-back time is the first reading.
 *
 * `zone` must be a valid IANA zone (configuration checks it once); an unknown zone is a
 * programming error and throws a RangeError rather than blaming the client's value.
 */
export function parseCallbackTime(raw: unknown, zone: string): CallbackTimeResult {
  assertValidZone(zone)
  if (typeof raw !== 'string') {
    return { ok: false, message: CALLBACK_TIME_FORMAT_MESSAGE }
  }
  const text = raw.trim()
  const naive = NAIVE_DATETIME.exec(text)
  if (naive) {
    const wall = wallTimeFromDigits(naive.slice(1))
    return resolve(wall, (fields) => instantOfWallTime(fields, zone))
  }
  const iso = ISO_DATETIME.exec(text)
  if (iso) {
    const wall = wallTimeFromDigits(iso.slice(1, 8))
    const [zulu, sign, offsetHours, offsetMinutes] = iso.slice(8)
    if (zulu !== undefined) {
      return resolve(wall, (fields) => instantAtOffset(fields, 0))
    }
    if (sign === undefined) {
      return resolve(wall, (fields) => instantOfWallTime(fields, zone))
    }
    const offset = offsetMinutesOf(sign, offsetHours, offsetMinutes)
    if (offset === null) {
      return invalidCalendar()
    }
    return resolve(wall, (fields) => instantAtOffset(fields, offset))
  }
  return { ok: false, message: CALLBACK_TIME_FORMAT_MESSAGE }
}

/** `at` as `YYYY-MM-DD HH:MM:SS` on the wall clock of `zone` (the ticket and callback responses). */
export function formatLocal(at: Date, zone: string): string {
  return inZone(at, zone).toFormat('yyyy-LL-dd HH:mm:ss')
}

function resolve(wall: WallTime | null, toInstant: (wall: WallTime) => Date | null): CallbackTimeResult {
  const at = wall === null ? null : toInstant(wall)
  if (at === null) return invalidCalendar()
  const ms = at.getTime()
  if (!(ms >= EARLIEST_STORABLE && ms < LATEST_STORABLE)) {
    return { ok: false, message: CALLBACK_TIME_RANGE_MESSAGE }
  }
  return { ok: true, at }
}

function invalidCalendar(): CallbackTimeResult {
  return { ok: false, message: CALLBACK_TIME_CALENDAR_MESSAGE }
}

// Real offsets lie within +-14:00; +-23:59 is the widest any ISO or JS parser accepts.
function offsetMinutesOf(
  sign: string,
  hours: string | undefined,
  minutes: string | undefined,
): number | null {
  const h = Number(hours)
  const m = Number(minutes ?? '0')
  if (h > 23 || m > 59) {
    return null
  }
  return (sign === '-' ? -1 : 1) * (h * 60 + m)
}
