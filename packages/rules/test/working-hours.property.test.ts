// Properties of the working-hours maths around real DST transitions in New York, London,
// Kolkata (no DST: the control) and Lord Howe (a 30-minute shift).
import fc from 'fast-check'
import t from 'tap'
import {
  hasWorkingTime,
  isWithinWorkingHours,
  nextRetryAtForPush,
  nextWorkStart,
  type WorkingHours,
  workWindowOfDay,
} from '../src/working-hours.js'
import { addDays, localDateOf } from '../src/zoned-time.js'
import {
  offsetOf,
  wallClock,
  wallTimeExists,
  workingWindow,
  zoneAndInstant,
} from './fixtures/time-arbitraries.js'

const HOUR_MS = 3_600_000
const RUNS = { numRuns: 1000 }

const hoursAndInstant = fc
  .tuple(zoneAndInstant, workingWindow)
  .map(([[zone, now], window]): [WorkingHours, Date] => [{ zone, ...window }, now])

function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))
}

t.test('nextWorkStart is strictly after now and inside a working window', async (t) => {
  fc.assert(
    fc.property(hoursAndInstant, ([hours, now]) => {
      const next = nextWorkStart(now, hours)
      return next > now && isWithinWorkingHours(next, hours)
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('nextWorkStart shows WORK_START on the wall clock unless WORK_START fell in a gap', async (t) => {
  fc.assert(
    fc.property(hoursAndInstant, ([hours, now]) => {
      const next = nextWorkStart(now, hours)
      const date = localDateOf(next, hours.zone)
      if (wallTimeExists(date, hours.start, hours.zone)) {
        return wallClock(next, hours.zone) === hours.start
      }
      // In a gap: moved forward by the gap, so later on the wall clock but by at most an hour.
      const shift = minutesOf(wallClock(next, hours.zone)) - minutesOf(hours.start)
      return shift > 0 && shift <= 60
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test('nextWorkStart is within 48 h, and is the first start after now', async (t) => {
  fc.assert(
    fc.property(hoursAndInstant, ([hours, now]) => {
      const next = nextWorkStart(now, hours)
      const today = localDateOf(now, hours.zone)
      const todays = workWindowOfDay(today, hours)
      const tomorrows = workWindowOfDay(addDays(today, 1), hours)
      if (todays.start > now && hasWorkingTime(todays)) {
        return next.getTime() === todays.start.getTime()
      }
      if (hasWorkingTime(tomorrows)) {
        return next.getTime() === tomorrows.start.getTime() && next.getTime() - now.getTime() <= 48 * HOUR_MS
      }
      // Tomorrow's window was swallowed by a gap: the day after, still within 72 h.
      return next.getTime() - now.getTime() <= 72 * HOUR_MS
    }),
    RUNS,
  )
  t.pass('checked')
})

t.test(
  'isWithinWorkingHours agrees with the local wall clock whenever no DST change intervenes',
  async (t) => {
    let compared = 0
    fc.assert(
      fc.property(hoursAndInstant, ([hours, now]) => {
        const { start, end } = workWindowOfDay(localDateOf(now, hours.zone), hours)
        const offset = offsetOf(now, hours.zone)
        const sameOffset = offsetOf(start, hours.zone) === offset && offsetOf(end, hours.zone) === offset
        const exactWallTimes =
          wallClock(start, hours.zone) === hours.start && wallClock(end, hours.zone) === hours.end
        if (!sameOffset || !exactWallTimes) {
          return true
        }
        compared += 1
        const wall = wallClock(now, hours.zone)
        return isWithinWorkingHours(now, hours) === (hours.start <= wall && wall < hours.end)
      }),
      RUNS,
    )
    t.ok(compared > RUNS.numRuns / 2, `the wall-clock oracle applied in ${compared} runs`)
  },
)

t.test('isWithinWorkingHours always agrees with the wall clock in a zone without DST', async (t) => {
  fc.assert(
    fc.property(
      workingWindow,
      fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2029, 0, 1) }),
      (window, ts) => {
        const hours = { zone: 'Asia/Kolkata', ...window }
        const now = new Date(ts)
        const wall = wallClock(now, hours.zone)
        return isWithinWorkingHours(now, hours) === (hours.start <= wall && wall < hours.end)
      },
    ),
    RUNS,
  )
  t.pass('checked')
})

t.test('nextRetryAtForPush is NULL exactly inside working hours', async (t) => {
  fc.assert(
    fc.property(hoursAndInstant, ([hours, now]) => {
      const next = nextRetryAtForPush(now, hours)
      return isWithinWorkingHours(now, hours)
        ? next === null
        : next?.getTime() === nextWorkStart(now, hours).getTime()
    }),
    RUNS,
  )
  t.pass('checked')
})
