import { parseConfig } from '@hold-dialer/rules'
import t from 'tap'
import { claimRules } from '../src/claim/rules.js'

const config = (env: Record<string, string>) =>
  parseConfig({ TIMEZONE: 'America/New_York', ...env }, { hostZone: 'UTC' })

t.test('no caps by default: the claim request carries none', async (t) => {
  t.same(claimRules(config({}), new Date('2026-11-01T12:00:00Z')), {})
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
