import { parseConfig } from '@hold-dialer/rules'
import t from 'tap'
import { fakeClockEnv, MIDDAY_HOUR, middayZone, withoutFakeClock } from '../src/testing/index.js'

const localHour = (at: Date, zone: string) =>
  Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(at))

t.test('middayZone: every moment of a day is between 11:00 and 12:00 in its zone', async (t) => {
  // Every minute of a day, and the last second of a year (a month end and a day end at once).
  const moments = Array.from({ length: 24 * 60 }, (_, m) => new Date(Date.UTC(2026, 11, 31, 0, m, 30)))
  moments.push(new Date('2026-12-31T23:59:59.999Z'), new Date('2027-01-01T00:00:00.000Z'))
  for (const at of moments) {
    const zone = middayZone(at)
    if (localHour(at, zone) !== MIDDAY_HOUR) t.fail(`${at.toISOString()} in ${zone}`)
  }
  t.equal(middayZone(new Date('2026-11-27T23:30:00Z')), 'Etc/GMT+12', '23:30 UTC is 11:30 at UTC-12')
  t.equal(middayZone(new Date('2026-11-28T00:00:30Z')), 'Etc/GMT-11', '00:00:30 UTC is 11:00:30 at UTC+11')
  t.equal(middayZone(new Date('2026-11-28T11:59:59Z')), 'Etc/GMT', 'noon UTC: UTC itself')
})

t.test('middayZone: each zone is one TIMEZONE accepts', async (t) => {
  for (let hour = 0; hour < 24; hour++) {
    const zone = middayZone(new Date(Date.UTC(2026, 10, 28, hour)))
    t.equal(parseConfig({ TIMEZONE: zone }, { hostZone: 'UTC' }).timezone, zone, zone)
  }
})

t.test('fakeClockEnv: only the faked clock variables, none on the real clock', async (t) => {
  t.same(
    fakeClockEnv({
      PATH: '/bin',
      LD_PRELOAD: '/lib/libfaketimeMT.so.1',
      FAKETIME: '-1800s',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      TZ: 'UTC',
    }),
    { LD_PRELOAD: '/lib/libfaketimeMT.so.1', FAKETIME: '-1800s', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
  )
  t.same(fakeClockEnv({ PATH: '/bin', FAKETIMEX: 'no' }), {})
  t.type(fakeClockEnv(), 'object', 'reads process.env by default')
})

t.test('withoutFakeClock: libfaketime out of LD_PRELOAD, no FAKETIME*, the rest kept', async (t) => {
  t.same(
    withoutFakeClock({
      PATH: '/bin',
      LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1:/lib/other.so',
      FAKETIME: '+60s',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      HOME: undefined,
    }),
    { PATH: '/bin', LD_PRELOAD: '/lib/other.so' },
  )
  t.same(withoutFakeClock({ LD_PRELOAD: '/x/libfaketime.so.1', TZ: 'UTC' }), { TZ: 'UTC' })
  t.type(withoutFakeClock(), 'object', 'reads process.env by default')
})
