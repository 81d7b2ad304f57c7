// The time-zone primitives the other modules share.
import t from 'tap'
import {
  addDays,
  assertValidZone,
  daysBetween,
  instantAtOffset,
  instantOfWallTime,
  inZone,
  laterOf,
  localDateOf,
  wallTimeFromDigits,
  wallTimeOn,
} from '../src/zoned-time.js'

t.test('assertValidZone accepts IANA names and refuses anything else', async (t) => {
  t.doesNotThrow(() => assertValidZone('Asia/Kolkata'))
  t.doesNotThrow(() => assertValidZone('UTC'))
  for (const zone of ['', 'Asia/Mumbai', '+05:30', 'local']) {
    t.throws(() => assertValidZone(zone), RangeError, zone)
  }
})

t.test("localDateOf is the calendar date on the zone's wall clock", async (t) => {
  const at = new Date('2026-05-01T20:00:00Z')
  t.equal(localDateOf(at, 'UTC'), '2026-05-01')
  t.equal(localDateOf(at, 'Asia/Kolkata'), '2026-05-02')
  t.equal(localDateOf(at, 'Pacific/Honolulu'), '2026-05-01')
  t.throws(() => inZone(new Date(Number.NaN), 'UTC'), RangeError)
})

t.test('addDays and daysBetween count calendar days, DST or not', async (t) => {
  t.equal(addDays('2026-03-07', 1), '2026-03-08')
  t.equal(addDays('2026-02-28', 1), '2026-03-01')
  t.equal(addDays('2026-12-31', 1), '2027-01-01')
  t.equal(addDays('2026-05-01', -1), '2026-04-30')
  t.equal(daysBetween('2026-03-07', '2026-03-09'), 2)
  t.equal(daysBetween('2026-10-31', '2026-11-02'), 2)
  t.equal(daysBetween('2026-05-02', '2026-05-01'), -1)
  t.equal(daysBetween('2026-05-01', '2026-05-01'), 0)
  for (const bad of ['2026-02-30', '2026-5-1', '2026-05-01T10:00', 'today']) {
    t.throws(() => addDays(bad, 1), RangeError, bad)
    t.throws(() => daysBetween('2026-05-01', bad), RangeError, bad)
  }
})

t.test('wallTimeOn and wallTimeFromDigits build wall times', async (t) => {
  t.strictSame(wallTimeOn('2026-05-01', 9, 30), { year: 2026, month: 5, day: 1, hour: 9, minute: 30 })
  t.strictSame(wallTimeFromDigits(['2026', '05', '01', '09', '30']), {
    year: 2026,
    month: 5,
    day: 1,
    hour: 9,
    minute: 30,
    second: 0,
    millisecond: 0,
  })
  t.equal(wallTimeFromDigits(['2026', '05', '01', '09', '30', '15', '7'])?.millisecond, 700)
  t.equal(wallTimeFromDigits(['2026', '05', '01', '09', '30', '15', '0049'])?.millisecond, 4, 'truncated')
  t.equal(wallTimeFromDigits(['2026', '05', '01', '24', '00', '00']), null, 'hour 24')
})

t.test('instantOfWallTime and instantAtOffset return null for impossible dates', async (t) => {
  const feb30 = { year: 2026, month: 2, day: 30, hour: 9, minute: 0 }
  t.equal(instantOfWallTime(feb30, 'Asia/Kolkata'), null)
  t.equal(instantAtOffset(feb30, 330), null)
  const may1 = { year: 2026, month: 5, day: 1, hour: 9, minute: 0 }
  t.equal(instantOfWallTime(may1, 'Asia/Kolkata')?.toISOString(), '2026-05-01T03:30:00.000Z')
  t.equal(instantAtOffset(may1, -240)?.toISOString(), '2026-05-01T13:00:00.000Z')
  t.throws(() => instantOfWallTime(may1, 'Nowhere/Land'), RangeError)
})

t.test('laterOf', async (t) => {
  const a = new Date('2026-05-01T00:00:00Z')
  const b = new Date('2026-05-01T00:00:01Z')
  t.equal(laterOf(a, b).toISOString(), b.toISOString())
  t.equal(laterOf(b, a).toISOString(), b.toISOString())
})
