// One test per sentence of DECISIONS section 6, then the edges the sentences leave open.
import { DateTime } from 'luxon'
import t from 'tap'
import {
  defaultRetryPattern,
  type NextAttempt,
  nextAttempt,
  quotaOfDay,
  type RetryPolicy,
  retryDayIndex,
  retryDelayForAbandon,
} from '../src/retry-schedule.js'

const ZONE = 'Asia/Kolkata'

const POLICY: RetryPolicy = {
  pattern: [2, 2, 2, 2],
  retrySeconds: 3600,
  maxTries: 8,
  hours: { zone: ZONE, start: '09:00', end: '18:00' },
}

/** `YYYY-MM-DD HH:MM[:SS]` on the wall clock of `zone`. */
function local(text: string, zone = ZONE): Date {
  const format = text.length > 16 ? 'yyyy-LL-dd HH:mm:ss' : 'yyyy-LL-dd HH:mm'
  const reading = DateTime.fromFormat(text, format, { zone })
  if (!reading.isValid) {
    throw new Error(`bad test time ${text}`)
  }
  return reading.toJSDate()
}

/** The result as a local wall time, so expectations read like the rule. */
function shown(result: NextAttempt, zone = ZONE): string {
  return result.kind === 'retry'
    ? DateTime.fromJSDate(result.at, { zone }).toFormat('yyyy-LL-dd HH:mm:ss')
    : 'exhausted'
}

function next(attempts: string[], now: string, policy: Partial<RetryPolicy> = {}): string {
  return shown(
    nextAttempt({ attempts: attempts.map((a) => local(a)), now: local(now) }, { ...POLICY, ...policy }),
  )
}

t.test('retry_pattern[d] is how many attempts a lead may get on day d', async (t) => {
  const pattern = [3, 1, 2]
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:01', { pattern }), '2026-05-01 11:00:00', '1 of 3 used')
  t.equal(
    next(['2026-05-01 10:00', '2026-05-01 11:00'], '2026-05-01 11:01', { pattern }),
    '2026-05-01 12:00:00',
  )
  t.equal(
    next(['2026-05-01 10:00', '2026-05-01 11:00', '2026-05-01 12:00'], '2026-05-01 12:01', { pattern }),
    '2026-05-02 09:00:00',
    'day 0 quota of 3 used',
  )
  t.equal(
    next(
      ['2026-05-01 10:00', '2026-05-01 11:00', '2026-05-01 12:00', '2026-05-02 09:00'],
      '2026-05-02 09:01',
      {
        pattern,
      },
    ),
    '2026-05-03 09:00:00',
    'day 1 quota of 1 used',
  )
})

t.test('days are counted in TIMEZONE calendar days from the first attempt (day 0)', async (t) => {
  // 00:30 and 17:00 IST on 2026-05-01 are on different UTC dates (04-30 19:00Z, 05-01 11:30Z),
  // yet both on local day 0: with [2,1] day 0 is used up, day 1 allows one more.
  const attempts = ['2026-05-01 00:30', '2026-05-01 17:00']
  const hours = { zone: ZONE, start: '00:00', end: '23:59' }
  t.equal(next(attempts, '2026-05-01 17:01', { pattern: [2, 1], hours }), '2026-05-02 00:00:00')
  t.equal(retryDayIndex(local('2026-05-01 00:30'), local('2026-05-01 17:00'), ZONE), 0)
  t.equal(retryDayIndex(local('2026-05-01 00:30'), local('2026-05-02 00:00'), ZONE), 1)
  t.equal(
    retryDayIndex(local('2026-05-01 00:30'), local('2026-05-01 17:00'), 'UTC'),
    1,
    'the UTC count differs',
  )
  // Day 0 is the first attempt's day, not the day the lead was pushed: after a first attempt
  // on day 0 with [1,2], the next is day 1 even though the day has hours left.
  t.equal(next(['2026-05-03 10:00'], '2026-05-03 10:01', { pattern: [1, 2] }), '2026-05-04 09:00:00')
})

t.test('within one day two attempts are at least RETRY_SECONDS apart', async (t) => {
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:00:40'), '2026-05-01 11:00:00', 'last + 3600 s')
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:00:40', { retrySeconds: 900 }), '2026-05-01 10:15:00')
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 11:30'), '2026-05-01 11:30:00', 'a late settle: now')
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:00:30', { retrySeconds: 0 }), '2026-05-01 10:00:30')
})

t.test("when a day's quota is used, the next attempt is the next day's WORK_START", async (t) => {
  t.equal(next(['2026-05-01 10:00', '2026-05-01 11:00'], '2026-05-01 11:01'), '2026-05-02 09:00:00')
  t.equal(
    next(
      ['2026-05-01 10:00', '2026-05-01 11:00', '2026-05-02 09:00', '2026-05-02 10:00'],
      '2026-05-02 10:01',
    ),
    '2026-05-03 09:00:00',
  )
})

t.test("when the next slot falls at or after WORK_END, it is the next day's WORK_START", async (t) => {
  t.equal(next(['2026-05-01 17:00'], '2026-05-01 17:01'), '2026-05-02 09:00:00', 'slot 18:00 = WORK_END')
  t.equal(next(['2026-05-01 17:30'], '2026-05-01 17:31'), '2026-05-02 09:00:00', 'slot 18:30 > WORK_END')
  t.equal(next(['2026-05-01 16:59:59'], '2026-05-01 17:00'), '2026-05-01 17:59:59', 'slot 17:59:59 fits')
  t.equal(next(['2026-05-01 23:30'], '2026-05-01 23:31'), '2026-05-02 09:00:00', 'slot on the next date')
})

t.test("the next day's WORK_START is the next day that still has quota", async (t) => {
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:01', { pattern: [1, 0, 0, 2] }), '2026-05-04 09:00:00')
})

t.test('call_count reaching MAX_TRIES ends the lead', async (t) => {
  const attempts = ['2026-05-01 10:00', '2026-05-01 11:00', '2026-05-02 09:00']
  t.equal(next(attempts, '2026-05-02 09:01', { maxTries: 3 }), 'exhausted')
  t.equal(next(attempts, '2026-05-02 09:01', { maxTries: 4 }), '2026-05-02 10:00:00')
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:01', { maxTries: 1 }), 'exhausted')
  const eight = [1, 2, 3, 4].flatMap((day) => [`2026-05-0${day} 09:00`, `2026-05-0${day} 10:00`])
  t.equal(next(eight, '2026-05-04 10:01'), 'exhausted', 'the default [2,2,2,2] with MAX_TRIES 8')
})

t.test('days past the pattern reuse its last entry, so MAX_TRIES still decides the end', async (t) => {
  const eight = [1, 2, 3, 4].flatMap((day) => [`2026-05-0${day} 09:00`, `2026-05-0${day} 10:00`])
  t.equal(next(eight, '2026-05-04 10:01', { maxTries: 10 }), '2026-05-05 09:00:00', 'day 4 reuses 2')
  t.equal(next([...eight, '2026-05-05 09:00'], '2026-05-05 09:01', { maxTries: 10 }), '2026-05-05 10:00:00')
  t.equal(
    next([...eight, '2026-05-05 09:00', '2026-05-05 10:00'], '2026-05-05 10:01', { maxTries: 10 }),
    'exhausted',
  )
  t.equal(quotaOfDay([2, 1], 0), 2)
  t.equal(quotaOfDay([2, 1], 1), 1)
  t.equal(quotaOfDay([2, 1], 40), 1)
})

t.test('a pattern ending in 0 ends the lead after its last day with quota', async (t) => {
  t.equal(next(['2026-05-01 10:00'], '2026-05-01 10:01', { pattern: [1, 0], maxTries: 10 }), 'exhausted')
  t.equal(
    next(['2026-05-01 10:00'], '2026-05-01 10:01', { pattern: [1, 0, 1, 0], maxTries: 10 }),
    '2026-05-03 09:00:00',
  )
  t.equal(
    next(['2026-05-01 10:00', '2026-05-03 09:00'], '2026-05-03 09:01', {
      pattern: [1, 0, 1, 0],
      maxTries: 10,
    }),
    'exhausted',
  )
})

t.test('a due callback ignores the gate; a Not Connected after it resumes the schedule', async (t) => {
  // The callback is the lead's first attempt (the reset cleared the history).
  t.equal(next(['2026-05-01 07:00'], '2026-05-01 07:01'), '2026-05-01 09:00:00', 'before hours: WORK_START')
  t.equal(next(['2026-05-01 08:30'], '2026-05-01 08:31'), '2026-05-01 09:30:00', 'gap still applies')
  t.equal(next(['2026-05-01 20:00'], '2026-05-01 20:01'), '2026-05-02 09:00:00', 'after hours: next day')
  t.equal(next(['2026-05-01 12:00'], '2026-05-01 12:01'), '2026-05-01 13:00:00', 'in hours: RETRY_SECONDS')
  t.equal(
    next(['2026-05-01 07:00', '2026-05-01 09:00'], '2026-05-01 09:01'),
    '2026-05-02 09:00:00',
    'the callback counted against day 0',
  )
})

t.test("a settle later than the next day's WORK_START is never scheduled in the past", async (t) => {
  const twoOnDay0 = ['2026-05-01 10:00', '2026-05-01 11:00']
  t.equal(next(twoOnDay0, '2026-05-02 12:00'), '2026-05-02 12:00:00', 'inside day 1: now')
  t.equal(next(twoOnDay0, '2026-05-02 19:00'), '2026-05-03 09:00:00', 'after day 1: day 2')
  t.equal(next(twoOnDay0, '2026-05-09 19:00', { pattern: [2, 1, 0] }), 'exhausted', 'no day with quota left')
})

t.test("DST: the next day's WORK_START is on the wall clock", async (t) => {
  const hours = { zone: 'America/New_York', start: '09:00', end: '18:00' }
  const result = nextAttempt(
    { attempts: [local('2026-03-07 17:30', hours.zone)], now: local('2026-03-07 17:31', hours.zone) },
    { ...POLICY, hours },
  )
  t.equal(shown(result, hours.zone), '2026-03-08 09:00:00')
  t.equal(result.kind === 'retry' ? result.at.toISOString() : '', '2026-03-08T13:00:00.000Z', '09:00 EDT')
})

t.test('DST: a day whose window a gap swallowed has no attempt', async (t) => {
  const hours = { zone: 'America/New_York', start: '02:30', end: '03:15' }
  const result = nextAttempt(
    { attempts: [local('2026-03-07 02:40', hours.zone)], now: local('2026-03-07 02:41', hours.zone) },
    { ...POLICY, pattern: [1, 1, 1], hours },
  )
  t.equal(shown(result, hours.zone), '2026-03-09 02:30:00', 'Sunday 03-08 had no working time')
  const sameDay = nextAttempt(
    { attempts: [local('2026-03-08 01:00', hours.zone)], now: local('2026-03-08 01:01', hours.zone) },
    { ...POLICY, retrySeconds: 60, hours },
  )
  t.equal(shown(sameDay, hours.zone), '2026-03-09 02:30:00', 'not the empty window of 03-08')
})

t.test('bad input is refused rather than scheduled', async (t) => {
  t.throws(() => nextAttempt({ attempts: [], now: local('2026-05-01 10:00') }, POLICY), RangeError)
  t.throws(() => next(['2026-05-01 10:00'], '2026-05-01 10:01', { pattern: [] }), RangeError)
  t.throws(() => quotaOfDay([], 0), RangeError)
})

t.test('defaultRetryPattern: [2,2,2,2] for pool (Mode A), [2,2,1] for pinned (Mode B)', async (t) => {
  t.same(defaultRetryPattern('pool'), [2, 2, 2, 2])
  t.same(defaultRetryPattern('pinned'), [2, 2, 1])
  const mine = defaultRetryPattern('pool')
  mine.push(9)
  t.same(defaultRetryPattern('pool'), [2, 2, 2, 2], 'each call returns a fresh array')
})

t.test('retryDelayForAbandon is now + ABANDON_RETRY_SECONDS, at any hour', async (t) => {
  t.equal(
    retryDelayForAbandon(local('2026-05-01 12:00'), 300).toISOString(),
    local('2026-05-01 12:05').toISOString(),
  )
  t.equal(
    retryDelayForAbandon(local('2026-05-01 23:58'), 300).toISOString(),
    local('2026-05-02 00:03').toISOString(),
  )
  t.equal(
    retryDelayForAbandon(local('2026-05-01 12:00'), 72 * 3600).toISOString(),
    local('2026-05-04 12:00').toISOString(),
    'the UK 72 h rule',
  )
})
