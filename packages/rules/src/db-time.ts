// The one text form of a timestamp in the database: UTC `YYYY-MM-DD HH:MM:SS.SSS`.
// MySQL DATETIME(3) and SQLite TEXT both hold it, and because every value has the same width
// and zone, comparing the strings orders the instants (the claim queries rely on that).
import { DateTime } from 'luxon'
import { instantAtOffset, wallTimeFromDigits } from './zoned-time.js'

const DB_TIME_FORMAT = 'yyyy-LL-dd HH:mm:ss.SSS'

// Drivers hand back the stored text with or without the fraction (DATETIME vs DATETIME(3)),
// and DATETIME(6) would give six digits; anything finer than milliseconds is truncated.
const DB_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/

// Instants whose ISO form has a four-digit year, the form every stored time has.
const FOUR_DIGIT_YEARS = [Date.parse('0000-01-01T00:00:00.000Z'), Date.parse('9999-12-31T23:59:59.999Z')]

/** `at` as the database's UTC text form, always with exactly three fraction digits. */
export function toDbTime(at: Date): string {
  const ms = at.getTime()
  if (Number.isNaN(ms)) {
    throw new RangeError('invalid Date')
  }
  // With a four-digit year the ISO form is this form with a 'T' and a 'Z': read from it. This runs
  // several times per claim and per pushed lead; Luxon's formatter took 2.2 µs a call against 0.5.
  if (ms >= FOUR_DIGIT_YEARS[0]! && ms <= FOUR_DIGIT_YEARS[1]!) {
    const iso = at.toISOString()
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`
  }
  return DateTime.fromJSDate(at, { zone: 'utc' }).toFormat(DB_TIME_FORMAT)
}

/**
 * Reads the database's UTC text form back (with or without the fraction). A Date is returned
 * unchanged, since some driver settings already convert DATETIME columns to Date.
 * Throws a RangeError for anything else: a malformed stored value is a bug, not user input.
 */
export function fromDbTime(stored: string | Date): Date {
  if (stored instanceof Date) {
    return stored
  }
  const match = DB_TIME.exec(stored)
  const wall = match === null ? null : wallTimeFromDigits(match.slice(1))
  const at = wall === null ? null : instantAtOffset(wall, 0)
  if (at === null) {
    throw new RangeError(`not a database time (UTC YYYY-MM-DD HH:MM:SS.SSS): ${JSON.stringify(stored)}`)
  }
  return at
}
