// The database's UTC text form: fixed width, so string order is time order on both dialects.
import t from 'tap'
import { fromDbTime, toDbTime } from '../src/db-time.js'

t.test('toDbTime writes UTC YYYY-MM-DD HH:MM:SS.SSS with exactly three fraction digits', async (t) => {
  t.equal(toDbTime(new Date('2026-05-01T04:30:00Z')), '2026-05-01 04:30:00.000')
  t.equal(toDbTime(new Date('2026-05-01T04:30:00.5Z')), '2026-05-01 04:30:00.500')
  t.equal(toDbTime(new Date('2026-12-31T23:59:59.999Z')), '2026-12-31 23:59:59.999')
  t.equal(toDbTime(new Date('2026-05-01T10:00:00+05:30')), '2026-05-01 04:30:00.000', 'always UTC')
})

t.test('toDbTime: the first and last four-digit years, and the years beyond them', async (t) => {
  t.equal(toDbTime(new Date('0000-01-01T00:00:00.000Z')), '0000-01-01 00:00:00.000')
  t.equal(toDbTime(new Date('9999-12-31T23:59:59.999Z')), '9999-12-31 23:59:59.999')
  t.equal(toDbTime(new Date('+010000-01-01T00:00:00.000Z')), '10000-01-01 00:00:00.000')
  t.equal(toDbTime(new Date('-000001-06-01T12:00:00.000Z')), '-0001-06-01 12:00:00.000')
})

t.test('toDbTime refuses an invalid Date', async (t) => {
  t.throws(() => toDbTime(new Date(Number.NaN)), RangeError)
})

t.test('fromDbTime reads the form back as UTC, with or without the fraction', async (t) => {
  t.equal(fromDbTime('2026-05-01 04:30:00.000').toISOString(), '2026-05-01T04:30:00.000Z')
  t.equal(fromDbTime('2026-05-01 04:30:00.123').toISOString(), '2026-05-01T04:30:00.123Z')
  t.equal(fromDbTime('2026-05-01 04:30:00').toISOString(), '2026-05-01T04:30:00.000Z')
  t.equal(fromDbTime('2026-05-01 04:30:00.5').toISOString(), '2026-05-01T04:30:00.500Z')
  t.equal(fromDbTime('2026-05-01 04:30:00.123456').toISOString(), '2026-05-01T04:30:00.123Z', 'DATETIME(6)')
})

t.test('fromDbTime passes a Date through unchanged', async (t) => {
  const at = new Date('2026-05-01T04:30:00Z')
  t.equal(fromDbTime(at), at)
})

t.test('fromDbTime refuses anything else', async (t) => {
  for (const stored of [
    '',
    '2026-05-01',
    '2026-05-01T04:30:00.000Z',
    '2026-05-01 04:30:00.000Z',
    '2026-05-01 04:30',
    '2026-02-30 04:30:00.000',
    '2026-05-01 24:00:00.000',
    'garbage',
  ]) {
    t.throws(() => fromDbTime(stored), RangeError, stored)
  }
})

t.test('round trip, and string order is time order', async (t) => {
  const instants = [
    '1999-12-31T23:59:59.999Z',
    '2026-03-08T06:59:59.999Z',
    '2026-03-08T07:00:00.000Z',
    '2026-11-01T05:30:00.001Z',
    '2026-11-01T06:30:00.000Z',
  ].map((iso) => new Date(iso))
  const stored = instants.map(toDbTime)
  t.same(
    stored.map((text) => fromDbTime(text).toISOString()),
    instants.map((at) => at.toISOString()),
  )
  t.same([...stored].reverse().sort(), stored, 'lexicographic sort keeps chronological order')
})
