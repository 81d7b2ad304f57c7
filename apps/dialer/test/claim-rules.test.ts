import { parseConfig } from '@hold-dialer/rules'
import t from 'tap'
import { claimRules } from '../src/claim/rules.js'

const config = (env: Record<string, string>) =>
  parseConfig({ TIMEZONE: 'America/New_York', ...env }, { hostZone: 'UTC' })

t.test('no caps, no fallback by default; CALLING_HOURS off: no zone limit', async (t) => {
  t.same(claimRules(config({ CALLING_HOURS: 'off' }), new Date('2026-11-01T12:00:00Z')), {})
})

t.test('CALLING_HOURS: the stored zone values inside the window now, across DST', async (t) => {
  const c = config({ TIMEZONE: 'Asia/Kolkata' })
  const stored = {
    values: ['America/New_York', 'America/Los_Angeles America/New_York', 'Asia/Calcutta'],
    hasUnzoned: true,
  }
  // 2026-03-08: New York springs forward at 02:00 EST (07:00 UTC); 08:00 EDT is 12:00 UTC.
  t.same(claimRules(c, new Date('2026-03-08T11:59:59.999Z'), stored).customerZones, {
    callable: ['Asia/Calcutta'],
    unzonedCallable: true,
  })
  t.same(claimRules(c, new Date('2026-03-08T12:00:00Z'), stored).customerZones?.callable, [
    'America/New_York',
    'Asia/Calcutta',
  ])
  // The day before, 08:00 EST was 13:00 UTC.
  t.same(claimRules(c, new Date('2026-03-07T12:30:00Z'), stored).customerZones?.callable, ['Asia/Calcutta'])
  // Both US coasts: from 08:00 in Los Angeles (15:00 UTC in EDT/PDT) to 21:00 in New York (01:00 UTC).
  t.same(claimRules(c, new Date('2026-03-09T15:00:00Z'), stored).customerZones?.callable, [
    'America/New_York',
    'America/Los_Angeles America/New_York',
    'Asia/Calcutta',
  ])
  // 21:00 in New York; 06:30 in Kolkata, whose clock leads without a zone follow (TIMEZONE).
  t.same(claimRules(c, new Date('2026-03-10T01:00:00Z'), stored).customerZones, {
    callable: [],
    unzonedCallable: false,
  })
  t.same(claimRules(c, new Date('2026-03-10T00:59:59Z'), stored).customerZones?.callable, [
    'America/New_York',
    'America/Los_Angeles America/New_York',
  ])
})

t.test('the gap is counted back from now; the day starts at midnight in TIMEZONE, across DST', async (t) => {
  const c = config({ MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER: '600', MAX_CALLS_PER_NUMBER_PER_DAY: '2' })
  // 2026-11-01 is the day New York leaves DST at 02:00: midnight that day is still -04:00.
  const after = claimRules(c, new Date('2026-11-01T15:00:00Z'))
  t.same(after.numberCaps, {
    lastEndedBefore: new Date('2026-11-01T14:50:00Z'),
    perDay: { since: new Date('2026-11-01T04:00:00Z'), max: 2 },
  })
  // The next day starts at midnight -05:00.
  t.same(
    claimRules(c, new Date('2026-11-02T05:00:00Z')).numberCaps?.perDay?.since,
    new Date('2026-11-02T05:00:00Z'),
  )
  t.same(
    claimRules(c, new Date('2026-11-02T04:59:59.999Z')).numberCaps?.perDay?.since,
    new Date('2026-11-01T04:00:00Z'),
    'a millisecond before, still the DST-change day',
  )
})

t.test('one cap alone', async (t) => {
  t.same(
    Object.keys(claimRules(config({ MAX_CALLS_PER_NUMBER_PER_DAY: '1' }), new Date()).numberCaps ?? {}),
    ['perDay'],
  )
  t.same(
    Object.keys(
      claimRules(config({ MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER: '1' }), new Date()).numberCaps ?? {},
    ),
    ['lastEndedBefore'],
  )
})
