import { type Config, inZone, isCallable, workingTimeBack, zonesOfColumn } from '@hold-dialer/rules'
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
    // Callbacks count wall-clock time from their time (they are dialed out of hours too). Pending
    // leads and retries count working time only: a lead left overnight is not overdue at WORK_START,
    // and a limit longer than a working day runs on through the next days' windows.
    rules.pinnedFallback = {
      dueBefore: new Date(now.getTime() - fallback * 60_000),
      workingDueBefore: workingTimeBack(now, fallback, config.hours),
      pbx: config.pbxName,
    }
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
