// One identity per phone number: the spellings CRMs and do-not-call lists send, each read to its
// international form, its customer zones, and whether it is one person with the others.
import t from 'tap'
import { customerZoneColumn, customerZones, leadPhone, phoneCountry } from '../src/customer-zone.js'
import {
  dialNumber,
  internationalForm,
  internationalFormOfDigits,
  isPhoneCountry,
  numberPlace,
  UNREADABLE,
  zonesOfCountry,
} from '../src/phone-identity.js'

/** Zones of a country, as a placeless number of it gets them. */
const AU = zonesOfCountry('AU')
const RU = zonesOfCountry('RU')
const BR = zonesOfCountry('BR')
const US = zonesOfCountry('US')

/**
 * [spelling as sent, DEFAULT_COUNTRY (undefined: none), international form, zones, person]. Rows of
 * one person must read alike, from either side of a do-not-call match; rows of two persons never.
 */
const SPELLINGS: [string, string | undefined, string, readonly string[], string][] = [
  // United States: national, with the trunk prefix, +, 011 and 00 from abroad.
  ['+1 (212) 555-0101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['2125550101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['212-555-0101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['(212) 555.0101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['1 212 555 0101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['011 1 212 555 0101', 'US', '+12125550101', ['America/New_York'], 'ny'],
  ['001 212 555 0101', 'GB', '+12125550101', ['America/New_York'], 'ny'],
  ['+12125550101', undefined, '+12125550101', ['America/New_York'], 'ny'],
  ['12125550101', undefined, '+12125550101', ['America/New_York'], 'ny'],
  // Canada, national and with +.
  ['(416) 555-0199', 'CA', '+14165550199', ['America/Toronto'], 'toronto'],
  ['+1 416 555 0199', 'US', '+14165550199', ['America/Toronto'], 'toronto'],
  ['416.555.0199', 'US', '+14165550199', ['America/Toronto'], 'toronto'],
  // Hungary: Budapest with +, 00, 011, and national; and the Texas number its digits also spell.
  ['+36 1 234 5201', 'US', '+3612345201', ['Europe/Budapest'], 'budapest'],
  ['0036 1 234 5201', 'US', '+3612345201', ['Europe/Budapest'], 'budapest'],
  ['011 36 1 234 5201', 'US', '+3612345201', ['Europe/Budapest'], 'budapest'],
  ['06 1 234 5201', 'HU', '+3612345201', ['Europe/Budapest'], 'budapest'],
  ['3612345201', 'US', '+13612345201', ['America/Chicago'], 'texas'],
  ['(361) 234-5201', 'US', '+13612345201', ['America/Chicago'], 'texas'],
  // United Kingdom: London with 00, + and national; Sheffield's 0114 is national, not 011.
  ['0044 20 7946 0303', 'US', '+442079460303', ['Europe/London'], 'london'],
  ['+44 20 7946 0303', 'IN', '+442079460303', ['Europe/London'], 'london'],
  ['020 7946 0303', 'GB', '+442079460303', ['Europe/London'], 'london'],
  ['+44 (0)20 7946 0303', 'US', '+442079460303', ['Europe/London'], 'london'],
  ['(+44) 20 7946 0303', 'US', '+442079460303', ['Europe/London'], 'london'],
  ['tel:+44-20-7946-0303', 'US', '+442079460303', ['Europe/London'], 'london'],
  ['0114 496 0000', 'GB', '+441144960000', ['Europe/London'], 'sheffield'],
  ['011 44 114 496 0000', 'US', '+441144960000', ['Europe/London'], 'sheffield'],
  // Germany: Berlin landline and a mobile (one zone: a mobile of a one-zone country keeps it).
  ['+49 30 123456', 'US', '+4930123456', ['Europe/Berlin'], 'berlin'],
  ['030 123456', 'DE', '+4930123456', ['Europe/Berlin'], 'berlin'],
  ['0049 30 123456', 'FR', '+4930123456', ['Europe/Berlin'], 'berlin'],
  ['+49 151 23456789', undefined, '+4915123456789', ['Europe/Berlin'], 'de-mobile'],
  // France.
  ['+33 6 12 34 56 78', 'US', '+33612345678', ['Europe/Paris'], 'paris-mobile'],
  ['06 12 34 56 78', 'FR', '+33612345678', ['Europe/Paris'], 'paris-mobile'],
  ['0033 1 23 45 67 89', 'DE', '+33123456789', ['Europe/Paris'], 'paris'],
  // India: mobile with +, national with and without the 0 prefix, from abroad; a Mumbai landline.
  ['+91 98765 43210', 'US', '+919876543210', ['Asia/Calcutta'], 'in-mobile'],
  ['98765 43210', 'IN', '+919876543210', ['Asia/Calcutta'], 'in-mobile'],
  ['098765 43210', 'IN', '+919876543210', ['Asia/Calcutta'], 'in-mobile'],
  ['0091 98765 43210', 'GB', '+919876543210', ['Asia/Calcutta'], 'in-mobile'],
  ['022 2345 6789', 'IN', '+912223456789', ['Asia/Calcutta'], 'mumbai'],
  // Australia: a mobile can be anywhere (every zone of the country); landlines keep their city.
  ['+61 412 345 301', 'US', '+61412345301', AU, 'au-mobile'],
  ['0412 345 301', 'AU', '+61412345301', AU, 'au-mobile'],
  ['0011 61 412 345 301', 'AU', '+61412345301', AU, 'au-mobile'],
  ['(08) 9234 5678', 'AU', '+61892345678', ['Australia/Adelaide', 'Australia/Perth'], 'perth'],
  ['+61 2 9234 5678', undefined, '+61292345678', ['Australia/Sydney'], 'sydney'],
  // Russia: a mobile (9xx) anywhere in eleven zones; Moscow's landline; 8 10 is Russia's 00.
  ['+7 916 123-45-67', 'US', '+79161234567', RU, 'ru-mobile'],
  ['8 916 123-45-67', 'RU', '+79161234567', RU, 'ru-mobile'],
  ['+7 495 123-45-67', undefined, '+74951234567', ['Europe/Moscow'], 'moscow'],
  ['8 10 36 1 234 5201', 'RU', '+3612345201', ['Europe/Budapest'], 'budapest'],
  // Brazil: a mobile (every zone), a São Paulo landline.
  ['+55 11 98765-4321', 'US', '+5511987654321', BR, 'br-mobile'],
  ['(11) 98765-4321', 'BR', '+5511987654321', BR, 'br-mobile'],
  ['+55 11 3456-7890', undefined, '+551134567890', ['America/Sao_Paulo'], 'sao-paulo'],
  // Toll-free: reaches whoever holds it, so every zone of the country.
  ['1-800-555-0100', 'US', '+18005550100', US, 'toll-free'],
  ['+1 800 555 0100', undefined, '+18005550100', US, 'toll-free'],
  // Unreadable: too short, too long, or impossible in the country; no form, no zones.
  ['12345', 'US', UNREADABLE, [], 'unreadable'],
  ['123456789012345', 'US', UNREADABLE, [], 'unreadable'],
  ['0000000000', 'US', UNREADABLE, [], 'unreadable'],
  ['+999 123 4567', undefined, UNREADABLE, [], 'unreadable'],
]

t.test('a number read but of no possible length is stored unreadable, on TIMEZONE', async (t) => {
  for (const raw of ['+1 212 555', '+44 20 7946 03031', '+36 1234'])
    t.same(leadPhone(raw, 'US', 'America/Chicago'), { phone_e164: '', customer_tz: 'America/Chicago' }, raw)
})

t.test('a number of possible length in no known range keeps its form, on TIMEZONE', async (t) => {
  // Romania's plan: nine digits, but no range starts with 1.
  t.same(leadPhone('+40 100 000 005', 'US', 'America/Chicago'), {
    phone_e164: '+40100000005',
    customer_tz: 'America/Chicago',
  })
})

t.test(
  'the spelling table: forty-odd spellings of ten countries read to their international form',
  async (t) => {
    t.ok(SPELLINGS.length >= 40, `${SPELLINGS.length} spellings`)
    const countries = new Set(SPELLINGS.map(([, , e164]) => numberPlace(e164)?.country).filter(Boolean))
    t.ok(countries.size >= 10, `${countries.size} countries`)
    for (const [raw, country, e164, zones] of SPELLINGS) {
      const label = `${raw} (${country ?? 'no country'})`
      t.equal(internationalForm(raw, country), e164, `${label}: international form`)
      t.same(customerZones(e164), [...zones].sort(), `${label}: zones`)
      t.same(
        leadPhone(raw, country, 'UTC'),
        { phone_e164: e164, customer_tz: zones.length ? [...zones].sort().join(' ') : 'UTC' },
        `${label}: what a push stores`,
      )
    }
  },
)

t.test(
  'a do-not-call entry matches every spelling of its person, from either side, and no one else',
  async (t) => {
    // A listed spelling and a pushed spelling match when their international forms are equal: the
    // claim compares `hold_dialer_dnc.e164` with the lead's `phone_e164`. The per-number caps compare
    // the same column, so these are also the pairs the caps count as one number.
    const readable = SPELLINGS.filter(([, , e164]) => e164 !== UNREADABLE)
    let same = 0
    let other = 0
    for (const [listed, listedCountry, , , listedPerson] of readable) {
      const entry = internationalForm(listed, listedCountry)
      for (const [pushed, pushedCountry, , , pushedPerson] of readable) {
        const lead = leadPhone(pushed, pushedCountry, 'UTC').phone_e164
        if (listedPerson === pushedPerson) {
          same += 1
          if (entry !== lead) t.fail(`${listed} listed does not match ${pushed} pushed`)
        } else {
          other += 1
          if (entry === lead) t.fail(`${listed} listed matches ${pushed} pushed, another person`)
        }
      }
    }
    t.ok(same > 100, `${same} pairs of one person all match`)
    t.ok(other > 1000, `${other} pairs of two persons never match`)
    t.not(
      internationalForm('+36 1 234 5201', 'US'),
      internationalForm('3612345201', 'US'),
      'Budapest is not Texas',
    )
  },
)

t.test('digits stored without their + are read nationally first, then with their country code', async (t) => {
  t.equal(internationalFormOfDigits('12125550101', 'US'), '+12125550101', 'national, with the trunk prefix')
  t.equal(internationalFormOfDigits('2125550101', 'US'), '+12125550101')
  t.equal(
    internationalFormOfDigits('919876543210', 'US'),
    '+919876543210',
    'not a US number: its country code',
  )
  t.equal(internationalFormOfDigits('442079460303', 'US'), '+442079460303')
  t.equal(
    internationalFormOfDigits('3612345201', 'US'),
    '+13612345201',
    'valid both ways: national (the + is gone)',
  )
  t.equal(
    internationalFormOfDigits('5557000001', 'US'),
    '+15557000001',
    'possible, valid nowhere: the national reading',
  )
  t.equal(internationalFormOfDigits('123456789012345', 'US'), UNREADABLE)
  t.equal(
    internationalFormOfDigits('5557000001', undefined),
    '+5557000001',
    'no country: digits carry their code',
  )
})

t.test('the forms a trunk may need', async (t) => {
  t.equal(dialNumber('e164', '+3612345201', '3612345201'), '+3612345201')
  t.equal(dialNumber('international', '+3612345201', '3612345201'), '3612345201')
  t.equal(dialNumber('national', '+3612345201', '3612345201'), '0612345201')
  t.equal(dialNumber('national', '+12125550101', '2125550101'), '2125550101')
  t.equal(dialNumber('national', '+442079460303', '00442079460303'), '02079460303')
  t.equal(dialNumber('national', '+79161234567', '79161234567'), '89161234567')
  t.equal(dialNumber('digits', '+3612345201', '3612345201'), '3612345201', 'as stored')
  t.equal(dialNumber('digits', UNREADABLE, '12345678901'), '12345678901')
  for (const format of ['e164', 'international', 'national'] as const) {
    t.equal(dialNumber(format, UNREADABLE, '12345678901'), undefined, `${format}: none without a form`)
  }
  t.equal(dialNumber('national', '+999', '999'), undefined, 'a form libphonenumber cannot parse again')
})

t.test('which country national numbers are read in', async (t) => {
  t.equal(phoneCountry('HU', 'America/Chicago'), 'HU', 'DEFAULT_COUNTRY first')
  t.equal(phoneCountry(undefined, 'America/Chicago'), 'US', "else TIMEZONE's country")
  t.equal(phoneCountry(undefined, 'UTC'), undefined, 'a zone of no country: none')
  t.equal(
    internationalForm('12125550101', 'ZZ'),
    '+12125550101',
    'a country libphonenumber does not know: digits with their code',
  )
  t.ok(isPhoneCountry('HU'))
  t.notOk(isPhoneCountry('ZZ'))
})

t.test('how a number is placed', async (t) => {
  t.match(numberPlace('+61412345301'), { digits: '61412345301', country: 'AU' })
  t.equal(numberPlace('+61412345301')?.placeless(), true, 'an Australian mobile names no place')
  t.equal(numberPlace('+61292345678')?.placeless(), false, 'a Sydney landline does')
  t.equal(numberPlace('+12125550101')?.placeless(), false, 'a US number keeps its area code')
  t.equal(numberPlace(UNREADABLE), undefined)
  t.equal(numberPlace('+15557000001'), undefined, 'possible but not valid: no place')
  t.notOk(
    zonesOfCountry('AU').includes('Asia/Tokyo'),
    'a zone shared with another country counts for its first',
  )
  t.same(zonesOfCountry('XX'), [], 'an unknown country has none')
  t.equal(customerZoneColumn(UNREADABLE, 'Europe/Paris'), 'Europe/Paris', 'no zones: TIMEZONE')
  // A placeless number of a one-zone country keeps the prefix map's zone (a Hungarian mobile).
  t.same(customerZones('+36201234567'), ['Europe/Budapest'])
})
