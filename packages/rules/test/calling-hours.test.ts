import t from 'tap'
import { isCallable, nextCallableMoment, zonesOfColumn } from '../src/calling-hours.js'
import {
  countryOfZone,
  customerZoneColumn,
  customerZones,
  leadPhone,
  phoneCountry,
} from '../src/customer-zone.js'

const WINDOW = { start: '08:00', end: '21:00' }
const at = (iso: string) => new Date(iso)

t.test('zones from the international form: area codes, country codes, placeless numbers', async (t) => {
  t.same(customerZones('+12125550100'), ['America/New_York'], 'New York area code')
  t.same(customerZones('+13105550100'), ['America/Los_Angeles'], 'Los Angeles area code')
  t.same(customerZones('+442071234567'), ['Europe/London'])
  t.same(customerZones('+551134567890'), ['America/Sao_Paulo'], 'a São Paulo landline')
  t.ok(customerZones('+5511987654321').length > 10, 'a Brazilian mobile: every zone of Brazil')
  t.same(customerZones('+61212345678'), ['Australia/Sydney'])
  t.ok(customerZones('+18005550100').length > 10, 'a toll-free number maps to every US zone')
  t.same(customerZones('+5550000001'), [], 'not a valid number anywhere: none')
  t.same(customerZones(''), [], 'unreadable: none')
  t.equal(customerZoneColumn('+5550000001', 'UTC'), 'UTC', 'none: TIMEZONE')
  t.equal(customerZoneColumn('+12125550100', 'UTC'), 'America/New_York')
  t.equal(customerZoneColumn('+919876543210', 'Asia/Kolkata'), 'Asia/Calcutta', 'own country, with its code')
  // Without DEFAULT_COUNTRY the centre's own country (TIMEZONE's) reads national numbers; a centre
  // of no country (UTC) reads digits as starting with their country code.
  t.equal(
    leadPhone('4930123456', undefined, 'UTC').customer_tz,
    'Europe/Berlin',
    'no country: digits with their code',
  )
  t.equal(
    leadPhone('4694521234', phoneCountry(undefined, 'America/New_York'), 'America/New_York').customer_tz,
    'America/Chicago',
  )
  t.equal(
    leadPhone('5164521234', phoneCountry(undefined, 'America/Chicago'), 'America/Chicago').customer_tz,
    'America/New_York',
  )
  t.equal(countryOfZone('America/Chicago'), 'US')
  t.equal(countryOfZone('UTC'), undefined, 'a zone of no country: international reading only')
  t.same(zonesOfColumn('America/Los_Angeles America/New_York'), ['America/Los_Angeles', 'America/New_York'])
  t.same(zonesOfColumn(null), [])
})

t.test('zones worked out once per prefix read the same for every number under it', async (t) => {
  // 1212555 and 1212556 share the prefix the map knows (1212): the second is served from the memo.
  t.same(customerZones('+12125550100'), ['America/New_York'])
  t.same(customerZones('+12125560199'), ['America/New_York'], 'another number under the same prefix')
  const tollFree = customerZones('+18005550100')
  tollFree.length = 0
  t.ok(customerZones('+18005550101').length > 10, "a caller's change to its array does not reach the memo")
  const mobile = customerZones('+61412345301')
  mobile.length = 0
  t.ok(customerZones('+61412345302').length > 5, 'nor the memo of a country')
  t.equal(
    customerZoneColumn('+18005550102', 'UTC'),
    customerZones('+18005550103').join(' '),
    'the column is the zones joined',
  )
  t.equal(customerZoneColumn('+12125550100', 'UTC'), 'America/New_York')
  t.equal(customerZoneColumn('+5550000001', 'UTC'), 'UTC', 'none, after the memo has entries')
})

t.test('callable: the window on the customer clock, intersected over zones, across DST', async (t) => {
  // New York springs forward on 2026-03-08: 08:00 EDT is 12:00 UTC; the day before, 13:00 UTC.
  t.notOk(isCallable(at('2026-03-07T12:59:59.999Z'), ['America/New_York'], WINDOW))
  t.ok(isCallable(at('2026-03-07T13:00:00Z'), ['America/New_York'], WINDOW))
  t.notOk(isCallable(at('2026-03-08T11:59:59.999Z'), ['America/New_York'], WINDOW))
  t.ok(isCallable(at('2026-03-08T12:00:00Z'), ['America/New_York'], WINDOW))
  const both = ['America/Los_Angeles', 'America/New_York']
  t.notOk(isCallable(at('2026-03-09T14:59:59Z'), both, WINDOW), '07:59 in Los Angeles')
  t.ok(isCallable(at('2026-03-09T15:00:00Z'), both, WINDOW))
  t.notOk(isCallable(at('2026-03-10T01:00:00Z'), both, WINDOW), '21:00 in New York')
})

t.test('the next callable moment: the customer window, then the centre hours, across DST', async (t) => {
  const ny = ['America/New_York']
  // 21:30 EDT on 2026-10-31; the clocks go back that night, so 08:00 EST is 13:00 UTC.
  t.same(nextCallableMoment(at('2026-11-01T01:30:00Z'), ny, WINDOW, null), at('2026-11-01T13:00:00Z'))
  t.same(
    nextCallableMoment(at('2026-11-01T14:00:00Z'), ny, WINDOW, null),
    at('2026-11-01T14:00:00Z'),
    'inside',
  )
  // A centre in London open 09:00-18:00 GMT: New York's 08:00 EST is 13:00 London, inside.
  const london = { zone: 'Europe/London', start: '09:00', end: '18:00' }
  t.same(nextCallableMoment(at('2026-11-01T01:30:00Z'), ny, WINDOW, london), at('2026-11-01T13:00:00Z'))
  // A centre in Kolkata open 09:00-18:00 IST (03:30-12:30 UTC) never overlaps New York's 08:00-21:00
  // EST (13:00-02:00 UTC).
  const kolkata = { zone: 'Asia/Kolkata', start: '09:00', end: '18:00' }
  t.equal(nextCallableMoment(at('2026-11-01T01:30:00Z'), ny, WINDOW, kolkata), null)
  // But Kolkata open until 23:59 IST (18:29 UTC) does: 13:00 UTC.
  const late = { zone: 'Asia/Kolkata', start: '09:00', end: '23:59' }
  t.same(nextCallableMoment(at('2026-11-01T01:30:00Z'), ny, WINDOW, late), at('2026-11-01T13:00:00Z'))
  t.same(
    nextCallableMoment(at('2026-11-01T01:30:00Z'), ['America/Los_Angeles', 'America/New_York'], WINDOW, null),
    at('2026-11-01T16:00:00Z'),
    'both coasts: 08:00 PST',
  )
})

t.test('CALLING_HOURS in the configuration: a window, off, or refused', async (t) => {
  const { ConfigError, parseConfig } = await import('../src/config.js')
  const host = { hostZone: 'UTC' }
  t.same(parseConfig({}, host).customerHours, { start: '08:00', end: '21:00' }, 'the TCPA window by default')
  t.equal(parseConfig({ CALLING_HOURS: 'off' }, host).customerHours, null)
  t.same(parseConfig({ CALLING_HOURS: '09:00-20:00' }, host).customerHours, { start: '09:00', end: '20:00' })
  t.throws(() => parseConfig({ CALLING_HOURS: '21:00-08:00' }, host), ConfigError)
  try {
    parseConfig({ CALLING_HOURS: '21:00-08:00' }, host)
  } catch (error) {
    t.same((error as InstanceType<typeof ConfigError>).problems, [
      'CALLING_HOURS must have its start before its end, got "21:00-08:00"',
    ])
  }
})
