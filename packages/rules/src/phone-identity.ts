// One identity per phone number: its international form (E.164, `+3612345201`), worked out from the
// text a CRM sent before the specification's digits-only rule drops the `+`. That form is what the
// dialer dials (in the format the trunk needs), what the do-not-call list and the per-number caps
// compare, and what the customer's clock is found from. libphonenumber-js reads the number; its
// `max` metadata is used because only it knows each range's type (mobile, toll-free, fixed line),
// which the customer's clock needs, and it reads a number as fast as the `min` one (measured: 2.9
// against 3.1 µs per parse, validation and type).

import { getCountry, getTimezone } from 'countries-and-timezones'
import {
  type CountryCode,
  isSupportedCountry,
  type PhoneNumber,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max'

/** `phone_e164` of a number that cannot be read: the international form is empty. */
export const UNREADABLE = ''

/** The forms a trunk may need a number in (DIAL_NUMBER_FORMAT, and the channel template's placeholders). */
export const DIAL_FORMATS = ['e164', 'international', 'national', 'digits'] as const
export type DialFormat = (typeof DIAL_FORMATS)[number]

/**
 * Prefixes that mean "what follows starts with a country code" wherever the centre is: `00` (the
 * ITU's recommended prefix, most of the world) and `011` (the North American one). `011` is also
 * the start of British area codes (0113 Leeds, 0114 Sheffield), so there a valid national reading
 * wins (see `internationalForm`).
 */
const INTERNATIONAL_PREFIXES = ['00', '011'] as const

/**
 * The international form of a number as a CRM sent it (`+1 (212) 555-0101`, `0044 20 7946 0303`,
 * `212-555-0101`), or `UNREADABLE` (`''`) when libphonenumber cannot read it as a possible number.
 *
 * A leading `+` (after any punctuation: `(+44)`, `tel:+44`) means international. So does a leading `00` or `011` once the punctuation is gone,
 * or the international call prefix of `country` (libphonenumber's metadata: `810` in Russia,
 * `010` in Japan), unless the whole number is also a valid national number of `country` (British
 * `0114` area codes). Anything else is a national number of `country`. Without a country (a centre
 * in `UTC` with no DEFAULT_COUNTRY) digits are read as starting with their country code, which is
 * how the trunk was handed them before the international form existed.
 *
 * "Possible" (the length fits the country's numbering plan) rather than "valid" (a range in the
 * metadata) decides: numbering plans gain ranges before the metadata does, and a number refused here
 * is never dialed.
 */
export function internationalForm(raw: string, country: string | undefined): string {
  return readNumber(raw, country)?.number ?? UNREADABLE
}

/** The number `internationalForm` reads, parsed, when its length is possible; else undefined. */
export function readNumber(raw: string, country: string | undefined): PhoneNumber | undefined {
  return possible(parseNumber(raw, country))
}

/** The reading of `readNumber`, before the check that its length is possible. */
function parseNumber(raw: string, country: string | undefined): PhoneNumber | undefined {
  // What comes before the first digit or `+` is punctuation or a scheme: `(+44) 20...`, `tel:+1...`.
  const text = raw.replace(/^[^\d+]+/, '')
  const code = knownCountry(country)
  if (text.startsWith('+')) return parsePhoneNumberFromString(text)
  const digits = text.replace(/\D/g, '')
  if (code === undefined) return parsePhoneNumberFromString(`+${digits}`)
  // libphonenumber itself strips `code`'s own international prefix when it reads a national number.
  const national = parsePhoneNumberFromString(digits, code)
  const prefix = INTERNATIONAL_PREFIXES.find((p) => digits.startsWith(p))
  if (prefix !== undefined && !(national?.isValid() && national.country === code)) {
    return parsePhoneNumberFromString(`+${digits.slice(prefix.length)}`)
  }
  return national
}

/**
 * What a push needs of a number as sent: its international form (empty when its length is not
 * possible) and, for a valid number, how it is placed. A valid number is checked once: its length is
 * then possible (libphonenumber's types all lie within the plan's possible lengths).
 */
export function readPushedNumber(
  raw: string,
  country: string | undefined,
): { number: string; place: NumberPlace | undefined } {
  const parsed = parseNumber(raw, country)
  if (parsed === undefined) return { number: UNREADABLE, place: undefined }
  const place = placeOf(parsed)
  if (place !== undefined) return { number: parsed.number, place }
  return { number: isPossibleLength(parsed) ? parsed.number : UNREADABLE, place: undefined }
}

/**
 * The international form of digits already stored without their `+` (leads and do-not-call entries
 * written before the international form existed): read as `internationalForm` reads them, and when
 * that reading is not a valid number but the digits with a `+` are (`919876543210` in a US centre: a
 * CRM's `+91 98765 43210`), that one. Digits that are valid both ways (`3612345201`: Texas, or
 * Budapest with its code) keep the national reading; the `+` that told them apart is gone.
 */
export function internationalFormOfDigits(digits: string, country: string | undefined): string {
  const read = readNumber(digits, country)
  if (read?.isValid()) return read.number
  const withCode = parsePhoneNumberFromString(`+${digits}`)
  return withCode?.isValid() ? withCode.number : (read?.number ?? UNREADABLE)
}

/** Whether libphonenumber knows the country (DEFAULT_COUNTRY's check). */
export function isPhoneCountry(code: string): boolean {
  return isSupportedCountry(code)
}

/** `country` when libphonenumber knows it, else undefined. */
function knownCountry(country: string | undefined): CountryCode | undefined {
  return country !== undefined && isSupportedCountry(country) ? country : undefined
}

/** A parsed number when its length is possible. */
function possible(parsed: PhoneNumber | undefined): PhoneNumber | undefined {
  return parsed !== undefined && isPossibleLength(parsed) ? parsed : undefined
}

/**
 * Whether a parsed number's length is possible in its numbering plan, worked out once per plan and
 * length. libphonenumber's `isPossible()` depends on nothing else (the plan's possible lengths of
 * any type), but builds its metadata view afresh on each call; a push reads every lead's number, and
 * that was a sixth of a number's reading in a profile. The plans are finite (about 250, with at most
 * 17 national lengths each), so this holds a few thousand entries at most.
 */
const possibleByPlanAndLength = new Map<string, boolean>()
function isPossibleLength(parsed: PhoneNumber): boolean {
  const key = `${parsed.countryCallingCode} ${parsed.country ?? ''} ${parsed.nationalNumber.length}`
  let known = possibleByPlanAndLength.get(key)
  if (known === undefined) {
    known = parsed.isPossible()
    possibleByPlanAndLength.set(key, known)
  }
  return known
}

/**
 * The number in one of the forms a trunk may need, from its international form and stored digits:
 * `e164` `+3612345201`; `international` `3612345201` (country code, no `+`, for a dial plan that adds
 * its own `00` or `011`); `national` `0612345201` (the number's own country's national dialling
 * form, for a trunk that reaches only that country); `digits` as stored (the specification's
 * column). Undefined when the form needs an international form the number does not have.
 */
export function dialNumber(format: DialFormat, e164: string, digits: string): string | undefined {
  if (format === 'digits') return digits
  if (e164 === UNREADABLE) return undefined
  if (format === 'e164') return e164
  if (format === 'international') return e164.slice(1)
  return nationalDigits(e164)
}

/** The national dialling form of an E.164 number, digits only (`+442079460303` -> `02079460303`). */
function nationalDigits(e164: string): string | undefined {
  const parsed = parsePhoneNumberFromString(e164)
  return parsed ? parsed.format('NATIONAL').replace(/\D/g, '') : undefined
}

/**
 * Number types that name no place: a mobile can be anywhere in its country, a toll-free or personal
 * number reaches whoever holds it. In a country of several zones such a number gets all of them.
 */
const PLACELESS_TYPES: ReadonlySet<string> = new Set([
  'MOBILE',
  'TOLL_FREE',
  'PREMIUM_RATE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
])

/** What the customer's clock is found from: the number's country, and whether it names a place. */
export interface NumberPlace {
  /** The E.164 digits (no `+`) to look up in the prefix map. */
  digits: string
  /** ISO country of a valid number (libphonenumber names one for every valid number). */
  country: string | undefined
  /**
   * Whether it is a mobile or other non-geographic number (`PLACELESS_TYPES`). A function: the type
   * check is a few more pattern matches, needed only in a country of several zones.
   */
  placeless(): boolean
}

/** How an international form is placed; undefined when it is not a valid number. */
export function numberPlace(e164: string): NumberPlace | undefined {
  return e164 === UNREADABLE ? undefined : placeOf(parsePhoneNumberFromString(e164))
}

/** How a parsed number is placed; undefined when it is not a valid number. */
export function placeOf(parsed: PhoneNumber | undefined): NumberPlace | undefined {
  if (!parsed?.isValid()) return undefined
  return {
    digits: parsed.number.slice(1),
    country: parsed.country,
    placeless: () => {
      const type = parsed.getType()
      return type !== undefined && PLACELESS_TYPES.has(type)
    },
  }
}

/**
 * The IANA zones of a country (the tz database's zone-to-country table, zone1970.tab), sorted. A
 * zone that table shares between countries counts only for its first: zone1970.tab lists
 * `Asia/Tokyo` under Australia too (a clock some Australian territory kept), which would cut an
 * Australian mobile's window by Darwin's half hour.
 */
export function zonesOfCountry(country: string): string[] {
  return (getCountry(country)?.timezones ?? [])
    .filter((zone) => getTimezone(zone)?.countries[0] === country)
    .sort()
}
