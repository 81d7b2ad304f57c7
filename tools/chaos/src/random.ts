/**
 * A seeded pseudo-random source (splitmix32): the same seed draws the same customers and the same
 * fault schedule. Each use gets its own stream (`Seeded.of(seed, 'faults')`), so that drawing more of
 * one (a longer run, one more fault) does not shift the others.
 */
export class Seeded {
  #state: number

  constructor(seed: number) {
    this.#state = seed >>> 0
  }

  /** A stream of its own for `purpose`, derived from the run's seed. */
  static of(seed: number, purpose: string): Seeded {
    let h = seed >>> 0
    for (const c of purpose) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0
    return new Seeded(h)
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x9e3779b9) >>> 0
    let z = this.#state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296
  }

  /** Uniform in [low, high). */
  between(low: number, high: number): number {
    return low + (high - low) * this.next()
  }

  /** The items in a random order. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      ;[out[i], out[j]] = [out[j]!, out[i]!]
    }
    return out
  }
}
