// WORK_START / WORK_END: examples, including the DST days of the documented choices.
import t from 'tap'
import {
  assertWorkingHours,
  hasWorkingTime,
  isWithinWorkingHours,
  nextRetryAtForPush,
  nextWorkStart,
  parseClockTime,
  type WorkingHours,
  workEndOfDay,
  workingTimeBack,
  workStartOfDay,
  workWindowOfDay,
} from '../src/working-hours.js'

const KOLKATA: WorkingHours = { zone: 'Asia/Kolkata', start: '09:00', end: '18:00' }
const NEW_YORK: WorkingHours = { zone: 'America/New_York', start: '09:00', end: '18:00' }

const iso = (at: Date | null) => at?.toISOString() ?? null
const utc = (text: string) => new Date(text)

t.test('parseClockTime reads HH:MM 00:00-23:59 and nothing else', async (t) => {
  t.same(parseClockTime('00:00'), { hour: 0, minute: 0 })
  t.same(parseClockTime('09:05'), { hour: 9, minute: 5 })
  t.same(parseClockTime('23:59'), { hour: 23, minute: 59 })
  for (const text of ['24:00', '9:00', '09:60', '09:00:00', '', 'nine', ' 09:00']) {
    t.equal(parseClockTime(text), null, text)
  }
})

t.test('assertWorkingHours refuses what configuration would refuse', async (t) => {
  t.same(assertWorkingHours(KOLKATA), { start: { hour: 9, minute: 0 }, end: { hour: 18, minute: 0 } })
  t.throws(() => assertWorkingHours({ ...KOLKATA, zone: 'Nowhere/Land' }), RangeError)
  t.throws(() => assertWorkingHours({ ...KOLKATA, start: '9am' }), RangeError)
  t.throws(() => assertWorkingHours({ ...KOLKATA, end: '24:00' }), RangeError)
  t.throws(() => assertWorkingHours({ ...KOLKATA, start: '18:00', end: '09:00' }), RangeError)
  t.throws(() => assertWorkingHours({ ...KOLKATA, start: '09:00', end: '09:00' }), RangeError, 'empty window')
})

t.test('the window of a local day is [WORK_START, WORK_END) in the zone', async (t) => {
  const window = workWindowOfDay('2026-05-01', KOLKATA)
  t.equal(iso(window.start), '2026-05-01T03:30:00.000Z')
  t.equal(iso(window.end), '2026-05-01T12:30:00.000Z')
  t.equal(iso(workStartOfDay('2026-05-01', KOLKATA)), '2026-05-01T03:30:00.000Z')
  t.equal(iso(workEndOfDay('2026-05-01', KOLKATA)), '2026-05-01T12:30:00.000Z')
  t.throws(() => workWindowOfDay('2026-02-30', KOLKATA), RangeError, 'not a calendar date')
})

t.test('DST days: 09:00-18:00 keeps its wall times on 23- and 25-hour days', async (t) => {
  const spring = workWindowOfDay('2026-03-08', NEW_YORK)
  t.equal(iso(spring.start), '2026-03-08T13:00:00.000Z', '09:00 EDT')
  const fall = workWindowOfDay('2026-11-01', NEW_YORK)
  t.equal(iso(fall.start), '2026-11-01T14:00:00.000Z', '09:00 EST')
  t.equal(iso(fall.end), '2026-11-01T23:00:00.000Z', '18:00 EST')
})

t.test('DST days: a start in a spring-forward gap moves forward by the gap', async (t) => {
  const window = workWindowOfDay('2026-03-08', { zone: 'America/New_York', start: '02:30', end: '10:00' })
  t.equal(iso(window.start), '2026-03-08T07:30:00.000Z', '03:30 EDT')
  const lordHowe = workWindowOfDay('2026-10-04', {
    zone: 'Australia/Lord_Howe',
    start: '02:10',
    end: '10:00',
  })
  t.equal(iso(lordHowe.start), '2026-10-03T15:40:00.000Z', '02:40 +11 (a 30-minute gap)')
})

t.test('DST days: a start in a fall-back overlap is its first reading', async (t) => {
  const window = workWindowOfDay('2026-11-01', { zone: 'America/New_York', start: '01:30', end: '10:00' })
  t.equal(iso(window.start), '2026-11-01T05:30:00.000Z', '01:30 EDT')
})

t.test('DST days: a window shorter than the gap that straddles it is empty', async (t) => {
  const hours = { zone: 'America/New_York', start: '02:30', end: '03:15' }
  const window = workWindowOfDay('2026-03-08', hours)
  t.equal(iso(window.start), '2026-03-08T07:30:00.000Z', '03:30 EDT')
  t.equal(iso(window.end), '2026-03-08T07:15:00.000Z', '03:15 EDT')
  t.equal(hasWorkingTime(window), false)
  t.equal(hasWorkingTime(workWindowOfDay('2026-03-09', hours)), true)
  t.equal(isWithinWorkingHours(utc('2026-03-08T07:20:00Z'), hours), false, '03:20 EDT')
})

t.test('isWithinWorkingHours: start is inside, end is outside', async (t) => {
  t.equal(isWithinWorkingHours(utc('2026-05-01T03:29:59.999Z'), KOLKATA), false, '08:59:59.999')
  t.equal(isWithinWorkingHours(utc('2026-05-01T03:30:00.000Z'), KOLKATA), true, '09:00')
  t.equal(isWithinWorkingHours(utc('2026-05-01T08:00:00.000Z'), KOLKATA), true, '13:30')
  t.equal(isWithinWorkingHours(utc('2026-05-01T12:29:59.999Z'), KOLKATA), true, '17:59:59.999')
  t.equal(isWithinWorkingHours(utc('2026-05-01T12:30:00.000Z'), KOLKATA), false, '18:00')
  t.equal(isWithinWorkingHours(utc('2026-04-30T20:00:00.000Z'), KOLKATA), false, '01:30 next day')
})

t.test('isWithinWorkingHours uses the local day, not the UTC day', async (t) => {
  // 2026-05-01 23:30 UTC is 2026-05-02 05:00 in Kolkata but 19:30 on 05-01 in New York.
  const hours = { zone: 'Asia/Kolkata', start: '04:00', end: '06:00' }
  t.equal(isWithinWorkingHours(utc('2026-05-01T23:30:00Z'), hours), true)
  t.equal(isWithinWorkingHours(utc('2026-05-01T23:30:00Z'), { ...hours, zone: 'UTC' }), false)
})

t.test("nextWorkStart: today if before today's start, else tomorrow", async (t) => {
  t.equal(
    iso(nextWorkStart(utc('2026-05-01T00:00:00Z'), KOLKATA)),
    '2026-05-01T03:30:00.000Z',
    '05:30 -> today',
  )
  t.equal(
    iso(nextWorkStart(utc('2026-05-01T03:30:00Z'), KOLKATA)),
    '2026-05-02T03:30:00.000Z',
    'at 09:00 -> tomorrow',
  )
  t.equal(
    iso(nextWorkStart(utc('2026-05-01T08:00:00Z'), KOLKATA)),
    '2026-05-02T03:30:00.000Z',
    'in hours -> tomorrow',
  )
  t.equal(
    iso(nextWorkStart(utc('2026-05-01T17:00:00Z'), KOLKATA)),
    '2026-05-02T03:30:00.000Z',
    '22:30 -> tomorrow',
  )
  t.equal(
    iso(nextWorkStart(utc('2026-05-01T18:30:00Z'), KOLKATA)),
    '2026-05-02T03:30:00.000Z',
    '00:00 -> today',
  )
})

t.test('nextWorkStart across a DST change is the wall-clock WORK_START, not 24 h later', async (t) => {
  // Saturday 2026-03-07 20:00 EST; Sunday 09:00 is EDT, 23 h of clock later than Saturday 09:00.
  t.equal(iso(nextWorkStart(utc('2026-03-08T01:00:00Z'), NEW_YORK)), '2026-03-08T13:00:00.000Z')
  t.equal(iso(nextWorkStart(utc('2026-10-31T23:00:00Z'), NEW_YORK)), '2026-11-01T14:00:00.000Z')
  const london = { zone: 'Europe/London', start: '01:30', end: '05:00' }
  t.equal(iso(nextWorkStart(utc('2026-03-28T12:00:00Z'), london)), '2026-03-29T01:30:00.000Z', '02:30 BST')
})

t.test('nextWorkStart skips a day whose window a DST gap swallowed', async (t) => {
  const hours = { zone: 'America/New_York', start: '02:30', end: '03:15' }
  // Saturday 04:00 EST: Saturday's window is over and Sunday's is empty, so Monday 02:30 EDT.
  t.equal(iso(nextWorkStart(utc('2026-03-07T09:00:00Z'), hours)), '2026-03-09T06:30:00.000Z')
})

t.test('nextRetryAtForPush: NULL inside working hours, otherwise the next WORK_START', async (t) => {
  t.equal(nextRetryAtForPush(utc('2026-05-01T08:00:00Z'), KOLKATA), null)
  t.equal(nextRetryAtForPush(utc('2026-05-01T03:30:00Z'), KOLKATA), null, 'at WORK_START')
  t.equal(
    iso(nextRetryAtForPush(utc('2026-05-01T12:30:00Z'), KOLKATA)),
    '2026-05-02T03:30:00.000Z',
    'at WORK_END',
  )
  t.equal(iso(nextRetryAtForPush(utc('2026-05-01T01:00:00Z'), KOLKATA)), '2026-05-01T03:30:00.000Z', 'early')
})

t.test('workingTimeBack: the instant that much working time ago, across nights and DST', async (t) => {
  const hours = { zone: 'UTC', start: '09:00', end: '18:00' }
  t.same(workingTimeBack(new Date('2026-11-23T10:00:00Z'), 30, hours), new Date('2026-11-23T09:30:00Z'))
  t.same(workingTimeBack(new Date('2026-11-23T09:10:00Z'), 30, hours), new Date('2026-11-22T17:40:00Z'))
  t.same(workingTimeBack(new Date('2026-11-23T20:00:00Z'), 60, hours), new Date('2026-11-23T17:00:00Z'))
  t.same(
    workingTimeBack(new Date('2026-11-23T08:00:00Z'), 30, hours),
    new Date('2026-11-22T17:30:00Z'),
    'before WORK_START',
  )
  t.same(workingTimeBack(new Date('2026-11-24T10:00:00Z'), 600, hours), new Date('2026-11-23T09:00:00Z'))
  const ny = { zone: 'America/New_York', start: '09:00', end: '18:00' }
  // Sunday 2026-03-08 is the spring-forward day: its window is still 9 hours, 13:00-22:00 UTC.
  t.same(workingTimeBack(new Date('2026-03-09T13:30:00Z'), 60, ny), new Date('2026-03-08T21:30:00Z'))
  t.equal(workingTimeBack(new Date('2026-11-23T10:00:00Z'), 60 * 9 * 3, hours, 1), null, 'not within maxDays')
})
