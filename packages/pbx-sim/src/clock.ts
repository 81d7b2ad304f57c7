import { performance } from 'node:perf_hooks'

export interface SimTimer {
  cancel(): void
}

/**
 * Simulated time. `timeScale` 60 means one simulated second passes in 1/60 real second. Every
 * scripted duration is in simulated seconds; real timers are scheduled for the scaled delay.
 */
export class SimClock {
  private readonly realStart = performance.now()
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(
    readonly timeScale: number,
    private readonly simStart: number,
  ) {
    if (!(timeScale > 0)) throw new RangeError(`timeScale must be > 0, got ${timeScale}`)
  }

  /** Simulated epoch milliseconds. */
  now(): number {
    return Math.floor(this.simStart + (performance.now() - this.realStart) * this.timeScale)
  }

  realMs(simSeconds: number): number {
    return Math.max(0, (simSeconds * 1000) / this.timeScale)
  }

  after(simSeconds: number, fn: () => void): SimTimer {
    const handle = setTimeout(() => {
      this.timers.delete(handle)
      fn()
    }, this.realMs(simSeconds))
    this.timers.add(handle)
    return {
      cancel: () => {
        clearTimeout(handle)
        this.timers.delete(handle)
      },
    }
  }

  pending(): number {
    return this.timers.size
  }

  cancelAll(): void {
    for (const handle of this.timers) clearTimeout(handle)
    this.timers.clear()
  }
}
