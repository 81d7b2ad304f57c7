// Simulates whole leads: a first attempt anywhere (a due callback may be outside hours), then a
// Not Connected after every attempt, each settled some time later, until the schedule says
// exhausted. Checks every scheduled attempt against DECISIONS section 6.
import fc from 'fast-check'
import t from 'tap'
import { nextAttempt, quotaOfDay, type RetryPolicy, retryDayIndex } from '../src/retry-schedule.js'
import { isWithinWorkingHours } from '../src/working-hours.js'
import { localDateOf } from '../src/zoned-time.js'
import { workingWindow, zoneAndInstant } from './fixtures/time-arbitraries.js'

const HOUR_S = 3600
const RUNS = { numRuns: 1000 }

const pattern = fc
  .array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 })
  .filter((entries) => entries.some((entry) => entry > 0))

const scenario = fc
  .record({
    zoneAndFirst: zoneAndInstant,
    window: workingWindow,
    pattern,
    retrySeconds: fc.oneof(fc.constant(3600), fc.integer({ min: 0, max: 6 * HOUR_S })),
    maxTries: fc.integer({ min: 1, max: 14 }),
    // How long after each attempt its Not Connected is settled (ring time, or a lost call).
    settleDelays: fc.array(fc.integer({ min: 0, max: 3 * HOUR_S }), { minLength: 15, maxLength: 15 }),
  })
  .map(({ zoneAndFirst: [zone, first], window, ...rest }) => ({
    first,
    policy: { ...rest, hours: { zone, ...window } } satisfies RetryPolicy,
    settleDelays: rest.settleDelays,
  }))

interface Run {
  attempts: Date[]
  settles: Date[]
  exhausted: boolean
}

function simulate(first: Date, policy: RetryPolicy, settleDelays: number[]): Run {
  const attempts = [first]
  const settles: Date[] = []
  for (const delay of settleDelays) {
    const last = attempts[attempts.length - 1] as Date
    const now = new Date(last.getTime() + delay * 1000)
    settles.push(now)
    const result = nextAttempt({ attempts, now }, policy)
    if (result.kind === 'exhausted') {
      return { attempts, settles, exhausted: true }
    }
    attempts.push(result.at)
  }
  return { attempts, settles, exhausted: false }
}

t.test('every lead ends, after at most MAX_TRIES attempts', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const run = simulate(first, policy, settleDelays)
      return run.exhausted && run.attempts.length <= policy.maxTries
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('it ends early only because the pattern ends in 0', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const run = simulate(first, policy, settleDelays)
      return run.attempts.length === policy.maxTries || policy.pattern[policy.pattern.length - 1] === 0
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('no attempt is scheduled before its settle time, or outside working hours', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const { attempts, settles } = simulate(first, policy, settleDelays)
      return attempts
        .slice(1)
        .every((at, i) => at >= (settles[i] as Date) && isWithinWorkingHours(at, policy.hours))
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('no day gets more attempts than its quota', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const { attempts } = simulate(first, policy, settleDelays)
      const perDay = new Map<number, number>()
      for (const at of attempts) {
        const day = retryDayIndex(first, at, policy.hours.zone)
        perDay.set(day, (perDay.get(day) ?? 0) + 1)
      }
      // The first attempt is not the schedule's to allow (a Pending lead or a due callback),
      // so day 0 may hold that one even when its quota is 0.
      return [...perDay].every(
        ([day, count]) => count <= Math.max(quotaOfDay(policy.pattern, day), day === 0 ? 1 : 0),
      )
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('two attempts on the same day are at least RETRY_SECONDS apart', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const { attempts } = simulate(first, policy, settleDelays)
      const zone = policy.hours.zone
      return attempts.slice(1).every((at, i) => {
        const previous = attempts[i] as Date
        const sameDay = localDateOf(at, zone) === localDateOf(previous, zone)
        return !sameDay || at.getTime() - previous.getTime() >= policy.retrySeconds * 1000
      })
    }),
    RUNS,
  )
  t.pass('checked')
})

// Not strictly: with RETRY_SECONDS 0 and a settle in the same millisecond as the attempt,
// the next attempt may be that same instant.
t.test('attempts never move back in time', async (t) => {
  fc.assert(
    fc.property(scenario, ({ first, policy, settleDelays }) => {
      const { attempts } = simulate(first, policy, settleDelays)
      return attempts.slice(1).every((at, i) => at >= (attempts[i] as Date))
    }),
    RUNS,
  )
  t.pass('checked')
})
