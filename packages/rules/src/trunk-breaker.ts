// The trunk breaker's state machine (issue 27): pure, the clock passed in. The dialer
// (apps/dialer/src/calls/trunk-breaker.ts) tells it what each call's customer leg did and asks it
// how many calls it may place.

/** What one call says about the trunk. */
export type LegVerdict =
  /** The customer's channel was created (whatever happened next: busy, no answer, answered). */
  | 'created'
  /** The customer's channel could not be created (trunk down: no channel, CHANUNAVAIL). */
  | 'not-created'
  /** The call says nothing of the trunk (the desk did not answer, the originate timed out). */
  | 'neutral'

export interface TrunkBreakerSettings {
  /** Legs not created in a row that open the breaker; 0: never opens. */
  failures: number
  /** While open, one call is tried this long after the last try ended (or after opening). */
  probeMs: number
}

export type TrunkBreakerState =
  | { kind: 'closed'; failures: number }
  | {
      kind: 'open'
      /** When it opened (ms since the epoch). */
      since: number
      /** Legs not created in a row, the ones that opened it included. */
      failures: number
      /** When the next try may be placed. */
      nextProbeAt: number
      /** The call being tried now, by its key, if one is. */
      probe: string | null
    }

/** What a verdict changed: the caller logs `opened` and `closed` once each. */
export type BreakerChange = 'opened' | 'closed' | null

/**
 * Counts customer legs that could not be created, across calls and leads. `failures` of them in a
 * row open it: no call is placed but one try every `probeMs`; a try (or any call still under way)
 * whose customer channel is created closes it. A try that fails sets the next one `probeMs` later;
 * a try that says nothing of the trunk lets the next one go at once.
 */
export class TrunkBreaker {
  #state: TrunkBreakerState = { kind: 'closed', failures: 0 }

  constructor(private readonly settings: TrunkBreakerSettings) {}

  get state(): Readonly<TrunkBreakerState> {
    return this.#state
  }

  get open(): boolean {
    return this.#state.kind === 'open'
  }

  /**
   * How many calls may be placed now: unlimited while closed; while open, 1 when a try is due and
   * none is under way, else 0.
   */
  permits(now: number): number {
    const s = this.#state
    if (s.kind === 'closed') return Number.POSITIVE_INFINITY
    return s.probe === null && now >= s.nextProbeAt ? 1 : 0
  }

  /**
   * A call was placed (`key` names it): while open and a try is due, it is the try. (A call placed
   * by a round that began before the breaker opened is not one.)
   */
  placed(key: string, now: number): void {
    const s = this.#state
    if (s.kind === 'open' && s.probe === null && now >= s.nextProbeAt) s.probe = key
  }

  /** A call ended; `key` is the one given to `placed`. */
  record(key: string, verdict: LegVerdict, now: number): BreakerChange {
    const s = this.#state
    if (s.kind === 'closed') {
      if (verdict === 'created') s.failures = 0
      if (verdict !== 'not-created' || this.settings.failures === 0) return null
      s.failures += 1
      if (s.failures < this.settings.failures) return null
      this.#state = {
        kind: 'open',
        since: now,
        failures: s.failures,
        nextProbeAt: now + this.settings.probeMs,
        probe: null,
      }
      return 'opened'
    }
    if (verdict === 'created') {
      this.#state = { kind: 'closed', failures: 0 }
      return 'closed'
    }
    const isProbe = s.probe === key
    if (verdict === 'not-created') {
      s.failures += 1
      // A call placed before the breaker opened says no more than the ones that opened it.
      if (isProbe) s.nextProbeAt = now + this.settings.probeMs
    }
    if (isProbe) s.probe = null
    return null
  }
}
