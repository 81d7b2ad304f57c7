import { randomBytes } from 'node:crypto'

// A call's key, and the claim token it carries (DECISIONS section 8, fencing). Each claim stores a
// fresh token with the reservation (`claim_token`); the call it places is `hd-<lead id>-<token>`,
// given to Originate as ChannelId, so Asterisk makes it the originated channel's Uniqueid and every
// channel's Linkedid. From a live channel, then, a dialer knows the lead (the prefix) and the claim
// (the whole key): it adopts only a call whose key is its own reservation's, and it releases a
// reservation only when no channel of that lead is up.

/** A new claim token: 8 hex digits. */
export function newClaimToken(): string {
  return randomBytes(4).toString('hex')
}

/** The prefix every call of a lead carries: `hd-<lead id>-`. */
export function callKeyPrefix(leadId: number): string {
  return `hd-${leadId}-`
}

/** The key of the call a claim places. */
export function callKey(leadId: number, token: string): string {
  return `${callKeyPrefix(leadId)}${token}`
}

/** The claim token a call's key carries (`undefined` when the key is not of that shape). */
export function tokenOfKey(key: string): string | undefined {
  return /^hd-\d+-([0-9a-f]+)$/.exec(key)?.[1]
}

/** The lead a call's key names (`undefined` when the key is not of that shape). */
export function leadOfKey(key: string): number | undefined {
  const id = /^hd-(\d+)-[0-9a-f]+$/.exec(key)?.[1]
  return id === undefined ? undefined : Number(id)
}

/** Whether a channel's Linkedid belongs to a call of this lead, whichever claim placed it. */
export function isCallOfLead(linkedid: string | undefined, leadId: number): boolean {
  return linkedid?.startsWith(callKeyPrefix(leadId)) === true
}

/**
 * The claim tokens this process issued whose calls have not finished. A reservation under one of them
 * is this process's own, being dialed or followed: the login's check never takes it for a previous
 * run's, and the expiry sweep never releases it, however old its `reserved_at` (a claim round that
 * began before a pause writes the time it began). The token is issued before the claim is sent, so
 * a claim committed while its answer is still on the way is covered too.
 */
export class IssuedClaims {
  readonly #tokens = new Set<string>()

  /** A new token, held until `drop`. */
  issue(): string {
    const token = newClaimToken()
    this.#tokens.add(token)
    return token
  }

  drop(token: string | null | undefined): void {
    if (token) this.#tokens.delete(token)
  }

  has(token: string | null | undefined): boolean {
    return token !== null && token !== undefined && this.#tokens.has(token)
  }
}
