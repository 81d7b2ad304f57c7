import { randomBytes } from 'node:crypto'

/**
 * The console's browser sessions: a random token per login, held in memory only (a restart logs every
 * supervisor out, which is fine for a wallboard), so the cookie never carries the secret itself.
 * Written by hand because it is a Map with an expiry: a session library would add a store, signing and
 * options this does not need.
 */
export class ConsoleSessions {
  readonly #tokens = new Map<string, number>()

  constructor(
    private readonly ttlMs: number,
    private readonly max = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session's token. The oldest sessions are dropped past `max`, so logins cannot fill memory. */
  open(): string {
    this.#sweep()
    while (this.#tokens.size >= this.max) {
      const oldest = this.#tokens.keys().next().value
      if (oldest === undefined) break
      this.#tokens.delete(oldest)
    }
    const token = randomBytes(32).toString('base64url')
    this.#tokens.set(token, this.now() + this.ttlMs)
    return token
  }

  valid(token: string | undefined): boolean {
    if (!token) return false
    const expires = this.#tokens.get(token)
    if (expires === undefined) return false
    if (expires <= this.now()) {
      this.#tokens.delete(token)
      return false
    }
    return true
  }

  close(token: string | undefined): void {
    if (token) this.#tokens.delete(token)
  }

  get size(): number {
    return this.#tokens.size
  }

  #sweep(): void {
    const now = this.now()
    for (const [token, expires] of this.#tokens) if (expires <= now) this.#tokens.delete(token)
  }
}
