/** A seeded pseudo-random source (mulberry32): the same seed gives the same run. */
export class Rng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** Exponentially distributed with the given mean (memoryless waits: ringing, talking, patience). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next())
  }

  hex(length: number): string {
    let out = ''
    while (out.length < length) out += Math.floor(this.next() * 16).toString(16)
    return out
  }

  /** A UUID-shaped identifier, as Asterisk uses for BridgeUniqueid, derived from the seed. */
  uuid(): string {
    const h = this.hex(32)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
  }
}
