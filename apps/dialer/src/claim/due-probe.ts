/**
 * Remembers, for a while, that a claim found no callback or retry due (claim-mysql.ts's probe,
 * claim-sqlite.ts's parts), so that the claims right after it look only for Pending leads. On MySQL
 * the probe is one statement of the claim's four; with 30 claimers and nothing due, MariaDB spent 17%
 * less CPU per claim without it and claimed 8-29% more per second (four pairs of 5-second runs,
 * docs/benchmarks.md).
 *
 * What it costs: a callback or retry that comes due, or is pushed due, while the memo holds is
 * claimed up to `ttlMs` after it would have been, and a Pending lead may be claimed in that time
 * ahead of it (DECISIONS section 7's order, read up to `ttlMs` late). The memo is per claim shape
 * (`claimShape`: its pin and what changes the statements' text). This dialer's restores, and its
 * settles when a retry can come due within `ttlMs`, clear it at once (dialer.ts).
 *
 * An entry holds while both clocks say less than `ttlMs` has passed: the dialer's own clock (the
 * claim's `now`, which decides what is due) and a monotonic one (a lead can be pushed already due
 * at any moment, whatever the dialer's clock reads). With the dialer's clock stopped or set back,
 * as tests and a wall clock stepped by NTP can do, the monotonic one still ends the entry.
 */
export class DueProbeMemo {
  readonly #nothingDueAt = new Map<string, { at: number; elapsedAt: number }>()

  constructor(
    readonly ttlMs: number,
    /** Milliseconds from any fixed origin, never going back; `performance.now` unless a test passes its own. */
    readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** Whether a probe of this shape found nothing due less than `ttlMs` before `now`, on both clocks. */
  fresh(key: string, now: Date): boolean {
    const entry = this.#nothingDueAt.get(key)
    if (entry === undefined) return false
    const since = now.getTime() - entry.at
    return since >= 0 && since < this.ttlMs && this.elapsed() - entry.elapsedAt < this.ttlMs
  }

  /** A probe of this shape found nothing due at `now`. */
  nothingDue(key: string, now: Date): void {
    if (this.ttlMs <= 0) return
    // Shapes are a few per pinned agent; the bound only keeps a changing shape from growing it.
    if (this.#nothingDueAt.size >= 10_000) this.#nothingDueAt.clear()
    this.#nothingDueAt.set(key, { at: now.getTime(), elapsedAt: this.elapsed() })
  }

  /** Something may have come due: the next claim of every shape probes again. */
  forget(): void {
    this.#nothingDueAt.clear()
  }
}
