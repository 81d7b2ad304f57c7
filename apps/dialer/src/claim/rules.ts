import { type Config, inZone, localDateOf, workStartOfDay } from '@hold-dialer/rules'
import type { ClaimRequest } from './request.js'

/** The calling rules' part of a claim request, from the configuration, at `now`. */
export type ClaimRules = Pick<ClaimRequest, 'numberCaps' | 'pinnedFallback'>

/**
 * What the calling rules allow at `now`, computed once per claim round (not per lead: the claim's
 * queries then compare stored values with these constants, through indexes).
 */
export function claimRules(config: Config, now: Date): ClaimRules {
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
  return rules
}
