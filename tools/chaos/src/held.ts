import { CALL_KEY } from './pbx.js'

/** How a lead stands: live (Calling and reserved) or not, under which claim token. */
export interface Claim {
  live: boolean
  token: string | null
}

/** The lead ids the call keys name. */
export function leadIdsOf(keys: Iterable<string>): number[] {
  return [...new Set([...keys].map((k) => Number(CALL_KEY.exec(k)?.[1])).filter((id) => id > 0))]
}

/**
 * "A live call's lead is held under its claim": while the PBX carries a call, its lead must be
 * Calling and reserved under the token its key carries. If not, it was released or claimed again
 * under a live call, which is where a customer rung twice at once starts. The leads are read between
 * two looks at the PBX, and only calls live at both are judged, so a call that ended meanwhile is
 * not; a call is failed only when the mismatch lasts `graceMs`, since a dialer hangs up and settles a
 * call in either order.
 */
export class HeldCheck {
  readonly #suspects = new Map<string, number>()
  /** Each call that failed, with how its lead stood. */
  readonly failures = new Map<string, string>()

  constructor(private readonly graceMs = 1000) {}

  judge(
    before: ReadonlySet<string>,
    after: ReadonlySet<string>,
    claims: Map<number, Claim>,
    now = Date.now(),
  ) {
    const seen = new Set<string>()
    for (const key of before) {
      if (!after.has(key)) continue
      const [, id, token] = CALL_KEY.exec(key) ?? []
      const claim = claims.get(Number(id))
      if (claim?.live && claim.token === token) continue
      seen.add(key)
      const since = this.#suspects.get(key) ?? now
      this.#suspects.set(key, since)
      if (now - since >= this.graceMs && !this.failures.has(key))
        this.failures.set(
          key,
          `call ${key} live at the PBX while its lead is ${claim ? `${claim.live ? 'held' : 'not held'} under claim ${claim.token}` : 'gone'}`,
        )
    }
    for (const key of this.#suspects.keys()) if (!seen.has(key)) this.#suspects.delete(key)
  }
}
