import {
  type Config,
  inZone,
  isCallable,
  localDateOf,
  workStartOfDay,
  zonesOfColumn,
} from '@hold-dialer/rules'
import type { ClaimRequest } from './request.js'

/** The calling rules' part of a claim request, from the configuration, at `now`. */
export type ClaimRules = Pick<ClaimRequest, 'numberCaps' | 'pinnedFallback' | 'customerZones'>

/** The distinct `customer_tz` values on master (the dialer reads them every few seconds). */
export interface StoredZones {
  values: readonly string[]
  /** Whether some leads have none (pushed before the column existed). */
  hasUnzoned: boolean
}

/**
 * What the calling rules allow at `now`, computed once per claim round (not per lead: the claim's
 * queries then compare stored values with these constants, through indexes).
 */
export function claimRules(config: Config, now: Date, stored?: StoredZones): ClaimRules {
  const rules: ClaimRules = {}
  const gap = config.minSecondsBetweenCallsToNumber
  const perDay = config.maxCallsPerNumberPerDay
  if (gap > 0 || perDay > 0) {
    rules.numberCaps = {
      ...(gap > 0 ? { lastEndedBefore: new Date(now.getTime() - gap * 1000) } : {}),
      // The day is the centre's calendar day in TIMEZONE, as the retry pattern's days are.
      ...(perDay > 0
        ? { perDay: { since: inZone(now, config.timezone).startOf('day').toJSDate(), max: perDay } }
        : {}),
    }
  }
  const fallback = config.pinnedFallbackMinutes
  if (fallback > 0 && config.callbackMode === 'pinned') {
    const dueBefore = new Date(now.getTime() - fallback * 60_000)
    // Only working time counts for Pending and retries: a lead left overnight is not overdue at
    // WORK_START; its agent has the first PINNED_FALLBACK_MINUTES of the day to take it.
    const today = localDateOf(now, config.timezone)
    rules.pinnedFallback = { dueBefore, workingTimeToo: workStartOfDay(today, config.hours) <= dueBefore }
  }
  const window = config.customerHours
  if (window) {
    // A value not read yet (a lead of a new zone pushed since the last read) is in neither list, so
    // its lead waits for the next read rather than being dialed unchecked.
    rules.customerZones = {
      callable: (stored?.values ?? []).filter((value) => isCallable(now, zonesOfColumn(value), window)),
      // Leads pushed before zones were stored: TIMEZONE's clock, as for a number that maps to none.
      unzonedCallable: isCallable(now, [config.timezone], window),
    }
  }
  return rules
}
