// One test per rule of the spec's "Callback time" section, plus DECISIONS section 3's
// zone rules and the DST choices documented in zoned-time.ts.
import t from 'tap'
import {
  CALLBACK_TIME_CALENDAR_MESSAGE,
  CALLBACK_TIME_FORMAT_MESSAGE,
  CALLBACK_TIME_RANGE_MESSAGE,
  formatLocal,
  parseCallbackTime,
} from '../src/callback-time.js'

const KOLKATA = 'Asia/Kolkata'
const NEW_YORK = 'America/New_York'

function acceptedAt(raw: unknown, zone: string): string {
  const result = parseCallbackTime(raw, zone)
  if (!result.ok) {
    throw new Error(`expected ${JSON.stringify(raw)} to be accepted, got: ${result.message}`)
  }
  return result.at.toISOString()
}

function rejection(raw: unknown, zone = KOLKATA): string {
  const result = parseCallbackTime(raw, zone)
  return result.ok ? `accepted as ${result.at.toISOString()}` : result.message
}

t.test('accepted: the spec format YYYY-MM-DD HH:MM:SS, read in TIMEZONE', async (t) => {
  t.equal(acceptedAt('2026-05-01 10:00:00', KOLKATA), '2026-05-01T04:30:00.000Z')
  t.equal(acceptedAt('2026-05-01 10:00:00', NEW_YORK), '2026-05-01T14:00:00.000Z')
  t.equal(acceptedAt('2026-01-15 23:59:59', 'Europe/London'), '2026-01-15T23:59:59.000Z')
})

t.test('accepted: ISO-8601 with a time part, with or without seconds and fraction', async (t) => {
  t.equal(acceptedAt('2026-05-01T10:00', KOLKATA), '2026-05-01T04:30:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:30', KOLKATA), '2026-05-01T04:30:30.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:30.5', KOLKATA), '2026-05-01T04:30:30.500Z')
  t.equal(acceptedAt('2026-05-01T10:00:30,25', KOLKATA), '2026-05-01T04:30:30.250Z', 'ISO comma fraction')
  t.equal(
    acceptedAt('2026-05-01T10:00:30.123999Z', KOLKATA),
    '2026-05-01T10:00:30.123Z',
    'sub-millisecond digits are truncated, not rounded',
  )
})

t.test('an ISO value with Z or an offset is honoured, whatever TIMEZONE is', async (t) => {
  t.equal(acceptedAt('2026-05-01T10:00:00Z', KOLKATA), '2026-05-01T10:00:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:00+05:30', NEW_YORK), '2026-05-01T04:30:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:00-0400', KOLKATA), '2026-05-01T14:00:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00+01', KOLKATA), '2026-05-01T09:00:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:00-00:00', KOLKATA), '2026-05-01T10:00:00.000Z')
})

t.test('an ISO value without an offset is a wall time in TIMEZONE', async (t) => {
  t.equal(acceptedAt('2026-07-01T09:00:00', 'Europe/London'), '2026-07-01T08:00:00.000Z', 'BST')
  t.equal(acceptedAt('2026-12-01T09:00:00', 'Europe/London'), '2026-12-01T09:00:00.000Z', 'GMT')
  t.equal(acceptedAt('2026-07-01T09:00', NEW_YORK), '2026-07-01T13:00:00.000Z')
})

t.test('past values are accepted (the lead is then due at once)', async (t) => {
  t.equal(acceptedAt('2001-09-09 01:46:40', 'UTC'), '2001-09-09T01:46:40.000Z')
  t.equal(acceptedAt('1999-12-31T23:59:59Z', KOLKATA), '1999-12-31T23:59:59.000Z')
})

t.test('surrounding white space is ignored', async (t) => {
  t.equal(acceptedAt('  2026-05-01 10:00:00\n', 'UTC'), '2026-05-01T10:00:00.000Z')
})

t.test('rejected: date-only values', async (t) => {
  t.equal(rejection('2026-05-01'), CALLBACK_TIME_FORMAT_MESSAGE)
  t.equal(rejection('2026-05-01T'), CALLBACK_TIME_FORMAT_MESSAGE)
  t.equal(rejection('2026-05-01Z'), CALLBACK_TIME_FORMAT_MESSAGE)
})

t.test('rejected: empty and blank strings', async (t) => {
  t.equal(rejection(''), CALLBACK_TIME_FORMAT_MESSAGE)
  t.equal(rejection('   '), CALLBACK_TIME_FORMAT_MESSAGE)
})

t.test('rejected: values that are not strings', async (t) => {
  for (const value of [null, undefined, 0, 1_777_000_000_000, true, {}, [], new Date(0)]) {
    t.equal(rejection(value), CALLBACK_TIME_FORMAT_MESSAGE, String(value))
  }
})

t.test('rejected: garbage and near misses of the two formats', async (t) => {
  for (const value of [
    'garbage',
    'tomorrow 10am',
    '2026-05-01 10:00', // the spec format needs seconds
    '2026-05-01 10:00:00Z', // offsets only on the ISO form
    '2026-5-1 10:00:00',
    '01/05/2026 10:00:00',
    '2026-05-01T10', // hour alone is not a time of day here
    '2026-05-01T10:00:00.', // a fraction needs digits
    '2026-05-01T10:00:00+5:30',
    '20260501T100000', // ISO basic format
    '2026-W18-5T10:00', // ISO week date
    '2026-05-01T10:00:00 +05:30',
  ]) {
    t.equal(rejection(value), CALLBACK_TIME_FORMAT_MESSAGE, value)
  }
})

t.test('accepted: lower-case t and z (RFC 3339 section 5.6)', async (t) => {
  t.equal(acceptedAt('2026-05-01t10:00:00z', KOLKATA), '2026-05-01T10:00:00.000Z')
  t.equal(acceptedAt('2026-05-01t10:00:00Z', KOLKATA), '2026-05-01T10:00:00.000Z')
  t.equal(acceptedAt('2026-05-01T10:00:00.5z', KOLKATA), '2026-05-01T10:00:00.500Z')
  t.equal(acceptedAt('2026-05-01t10:00', KOLKATA), '2026-05-01T04:30:00.000Z', 'naive, in TIMEZONE')
  t.equal(acceptedAt('2026-05-01t10:00+05:30', NEW_YORK), '2026-05-01T04:30:00.000Z')
  t.equal(rejection('2026-05-01x10:00:00'), CALLBACK_TIME_FORMAT_MESSAGE)
  t.equal(rejection('2026-05-01t10:00:00y'), CALLBACK_TIME_FORMAT_MESSAGE)
})

t.test('rejected: invalid calendar values, with their own message', async (t) => {
  for (const value of [
    '2026-02-30 10:00:00', // Feb 30
    '2026-02-29 10:00:00', // 2026 is not a leap year
    '2026-13-01 10:00:00', // month 13
    '2026-00-10 10:00:00',
    '2026-05-00 10:00:00',
    '2026-05-01 24:00:01',
    '2026-05-01 24:00:00',
    '2026-05-01T24:00',
    '2026-05-01 23:60:00',
    '2026-05-01 23:59:60', // no leap seconds
    '2026-05-01T10:00:00+24:00', // offset hour out of range
    '2026-05-01T10:00:00+05:60', // offset minute out of range
    '2026-02-30T10:00:00Z',
    '2026-02-30T10:00:00+05:30',
  ]) {
    t.equal(rejection(value), CALLBACK_TIME_CALENDAR_MESSAGE, value)
  }
  t.equal(acceptedAt('2028-02-29 10:00:00', 'UTC'), '2028-02-29T10:00:00.000Z', 'a real leap day')
})

t.test('rejected: instants the database cannot store (UTC years before 1000 or after 9999)', async (t) => {
  const kolkata = 'Asia/Kolkata'
  for (const [value, zone] of [
    ['0000-01-01 00:00:00', kolkata], // 5:30 east of UTC: year -1
    ['0999-12-31 23:59:59', 'UTC'],
    ['1000-01-01 05:29:59', kolkata], // 999-12-31 23:59:59 UTC
    ['1000-01-01T00:00:00+00:01', 'UTC'],
    ['9999-12-31T23:59:59-00:01', 'UTC'], // 10000-01-01 00:00:59 UTC
  ] as const) {
    const result = parseCallbackTime(value, zone)
    t.same(result, { ok: false, message: CALLBACK_TIME_RANGE_MESSAGE }, `${value} in ${zone}`)
  }
  t.equal(acceptedAt('1000-01-01 00:00:00', 'UTC'), '1000-01-01T00:00:00.000Z', 'the first storable second')
  t.equal(
    acceptedAt('9999-12-31T23:59:59.999Z', 'UTC'),
    '9999-12-31T23:59:59.999Z',
    'the last storable instant',
  )
})

t.test('DST: a naive time in a spring-forward gap moves forward by the gap', async (t) => {
  // New York 2026-03-08: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist.
  t.equal(acceptedAt('2026-03-08 02:30:00', NEW_YORK), '2026-03-08T07:30:00.000Z', '= 03:30 EDT')
  // London 2026-03-29: 01:00 GMT jumps to 02:00 BST.
  t.equal(acceptedAt('2026-03-29T01:15', 'Europe/London'), '2026-03-29T01:15:00.000Z', '= 02:15 BST')
  // Lord Howe 2026-10-04: 02:00 +10:30 jumps to 02:30 +11, a 30-minute gap.
  t.equal(acceptedAt('2026-10-04 02:15:00', 'Australia/Lord_Howe'), '2026-10-03T15:45:00.000Z', '= 02:45 +11')
})

t.test('DST: an ambiguous fall-back time is its first (earlier) reading', async (t) => {
  // New York 2026-11-01: 01:00-02:00 happens in EDT, then again in EST.
  t.equal(acceptedAt('2026-11-01 01:30:00', NEW_YORK), '2026-11-01T05:30:00.000Z', 'EDT, not EST')
  // London 2026-10-25: 01:00-02:00 happens in BST, then again in GMT.
  t.equal(acceptedAt('2026-10-25T01:30', 'Europe/London'), '2026-10-25T00:30:00.000Z', 'BST, not GMT')
  // Lord Howe 2026-04-05: 01:30-02:00 happens at +11, then again at +10:30.
  t.equal(acceptedAt('2026-04-05 01:45:00', 'Australia/Lord_Howe'), '2026-04-04T14:45:00.000Z', '+11')
})

t.test('an unknown zone is a programming error, not a bad client value', async (t) => {
  t.throws(() => parseCallbackTime('2026-05-01 10:00:00', 'Mars/Olympus_Mons'), RangeError)
})

t.test('formatLocal writes YYYY-MM-DD HH:MM:SS on the wall clock of the zone', async (t) => {
  const at = new Date('2026-05-01T04:30:00.999Z')
  t.equal(formatLocal(at, KOLKATA), '2026-05-01 10:00:00')
  t.equal(formatLocal(at, NEW_YORK), '2026-05-01 00:30:00')
  t.equal(formatLocal(at, 'UTC'), '2026-05-01 04:30:00')
  t.throws(() => formatLocal(new Date(Number.NaN), KOLKATA), RangeError)
  t.throws(() => formatLocal(at, 'Not/AZone'), RangeError)
})

t.test('formatLocal then parseCallbackTime is the same second', async (t) => {
  const at = new Date('2026-08-15T12:34:56.000Z')
  for (const zone of [KOLKATA, NEW_YORK, 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham']) {
    t.equal(acceptedAt(formatLocal(at, zone), zone), at.toISOString(), zone)
  }
})
