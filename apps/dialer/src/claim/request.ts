/** What a claim asks for: who claims, when, and which leads it may take. */
export interface ClaimRequest {
  dialerId: string
  now: Date
  /** Working hours gate for Pending and retries; due callbacks ignore it. */
  inHours: boolean
  /** Priorities that may be dialed (`is_dialable`); priority 3 is not among them. */
  dialablePriorities: readonly number[]
  /**
   * Pinned mode: the agent claiming. Leads pinned to this agent come first; leads pinned to anyone
   * else are never taken. Pool mode: null, and the pin column is ignored.
   */
  pinnedAgentId: number | null
  /**
   * Pinned mode's predictive overdial pool: with no claiming agent, leave every pinned lead alone
   * (they are dialed only when their own agent is free).
   */
  unpinnedOnly?: boolean
  /** Predictive mode's pinned claim: only leads pinned to `pinnedAgentId`, never the shared pool. */
  onlyMine?: boolean
  /** CALLBACK_MODE: how a lead on the do-not-call list is ended (default: pinned when a pin is given). */
  callbackMode?: 'pool' | 'pinned'
  /** Leads this dialer will not retry yet (a failed originate's cool-down). */
  excludeIds?: readonly number[]
  /**
   * PINNED_FALLBACK_MINUTES: leads pinned to another agent are claimable too, as if unpinned (the pin
   * is kept): callbacks due since `dueBefore` (wall clock), Pending leads and retries due since
   * `workingDueBefore` (that much working time ago; null: the windows kept lately hold less).
   * With `pbx` (PBX_NAME), only leads pinned to agents of that PBX: a pinned lead is dialed only by
   * its agent's PBX, even overdue.
   */
  pinnedFallback?: { dueBefore: Date; workingDueBefore: Date | null; pbx?: string }
  /**
   * CALLING_HOURS: only leads whose stored `customer_tz` is one of `callable` (values the dialer found
   * inside the calling window right now), and leads with none when `unzonedCallable`. Absent: no limit.
   */
  customerZones?: { callable: readonly string[]; unzonedCallable: boolean }
  /** The per-number caps (MAX_CALLS_PER_NUMBER_PER_DAY, MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER); absent: none. */
  numberCaps?: NumberCaps
}

/**
 * Limits on calls to one phone number across every lead that carries it. With either set, a number
 * being dialed right now (a reserved lead with the same number) is not dialed again either.
 */
export interface NumberCaps {
  /** No call to the number may have ended after this (now - MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER). */
  lastEndedBefore?: Date
  /** Fewer than `max` calls to the number started at or after `since` (today's start in TIMEZONE). */
  perDay?: { since: Date; max: number }
}

export interface LeadClaim extends ClaimRequest {
  /** The claim's token (calls/call-key.ts); default a new one. */
  token?: string
  /** Written on the call's attempt row, which the claim opens (default progressive). */
  dialMode?: 'progressive' | 'predictive'
  /** The desk the call is for, on its attempt row (progressive; pinned predictive). */
  agentExtension?: string | null
  /**
   * The agent the call is for, taken in the same transaction (`dialer_employee.on_call_by`): no lead
   * is claimed when another dialer has them, and the agent is left free when no lead is due. Null for
   * predictive mode's overdial pool, whose calls are bridged to whoever is free on answer.
   */
  agentId: number | null
}
