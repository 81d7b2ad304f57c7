import type { Database } from '@hold-dialer/db'
import { fromDbTime, toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'

/** Attempts allowed per key in one window. */
export interface Limit {
  max: number
  windowMs: number
}

export interface SignInLimits {
  /** Every attempt for one extension, right or wrong. */
  agent: Limit
  /** Failed attempts from one client address, whichever the extension. */
  address: Limit
}

/**
 * Per agent, 5 attempts a minute: a person who mistypes gets a few tries; someone guessing one agent's
 * 4-digit PIN needs 10,000 / 5 minutes (about 33 hours) on average. Per client address, 10 failures a
 * minute across agents (the console's 10 a minute): only failures count, so a centre whose agents all
 * reach the dialer from one address (a NAT, a proxy) can sign a whole shift in at once.
 */
export const SIGN_IN_LIMITS: SignInLimits = {
  agent: { max: 5, windowMs: 60_000 },
  address: { max: 10, windowMs: 60_000 },
}

/**
 * Counts sign-in attempts in the database (`hold_dialer_agent_sign_in`), so the limits hold whichever
 * dialer an attempt reaches. Two attempts at the same moment on two dialers may both pass the last
 * free place: the limit is a rate, not a lock.
 */
export class SignInLimiter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly limits: SignInLimits,
    private readonly now: () => Date,
  ) {}

  /** Seconds until an attempt for `extension` from `address` is allowed (0: now). */
  async wait(extension: string, address: string): Promise<number> {
    const now = this.now()
    const longest = Math.max(this.limits.agent.windowMs, this.limits.address.windowMs)
    await this.db
      .deleteFrom('hold_dialer_agent_sign_in')
      .where('attempted_at', '<=', toDbTime(new Date(now.getTime() - longest)))
      .execute()
    const waits = await Promise.all([
      this.#wait(`agent:${extension}`, this.limits.agent, now),
      this.#wait(`addr:${address}`, this.limits.address, now),
    ])
    const ms = Math.max(...waits)
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0
  }

  /** Counts an attempt for the extension (every one) and, when it failed, for the address. */
  async record(extension: string, address: string, failed: boolean): Promise<void> {
    const at = toDbTime(this.now())
    const keys = failed ? [`agent:${extension}`, `addr:${address}`] : [`agent:${extension}`]
    await this.db
      .insertInto('hold_dialer_agent_sign_in')
      .values(keys.map((limit_key) => ({ limit_key, attempted_at: at })))
      .execute()
  }

  async #wait(key: string, limit: Limit, now: Date): Promise<number> {
    const rows = await this.db
      .selectFrom('hold_dialer_agent_sign_in')
      .select('attempted_at')
      .where('limit_key', '=', key)
      .where('attempted_at', '>', toDbTime(new Date(now.getTime() - limit.windowMs)))
      .orderBy('attempted_at', 'desc')
      .limit(limit.max)
      .execute()
    if (rows.length < limit.max) return 0
    const oldest = fromDbTime(rows[rows.length - 1]!.attempted_at).getTime()
    return oldest + limit.windowMs - now.getTime()
  }
}
