import type { DialerState } from './dialers.js'

/**
 * Evidence that a dialer hit by a fault works again: an Originate of its own at the PBX, or an
 * attempt row it wrote, after the fault ended. Settles of calls placed before a fault could land in
 * the first moments after it, so evidence counts from `MARGIN_MS` after the fault's end.
 */
export const MARGIN_MS = 500

export interface Recovery {
  fault: number
  dialerId: string
  /**
   * When the dialer could work again, real ms: the fault's end (the restart, the SIGCONT, the KILL,
   * the PBX back), or later if another fault kept it stopped or dead meanwhile.
   */
  from: number
  deadline: number
  status: 'pending' | 'recovered' | 'failed' | 'no leads left'
  /** Seconds from the fault's end to the first sign of work. */
  seconds?: number
}

/** The last sign of work of each dialer (real ms), fed by the PBX's Originates and the attempt rows. */
export class Activity {
  readonly #last = new Map<string, number>()

  saw(dialerId: string, at = Date.now()): void {
    this.#last.set(dialerId, Math.max(at, this.#last.get(dialerId) ?? 0))
  }

  last(dialerId: string): number {
    return this.#last.get(dialerId) ?? 0
  }
}

export class Recoveries {
  readonly all: Recovery[] = []

  constructor(
    private readonly activity: Activity,
    private readonly withinMs: number,
  ) {}

  expect(fault: number, dialerIds: readonly string[], from = Date.now()): void {
    for (const dialerId of dialerIds) {
      this.all.push({ fault, dialerId, from, deadline: from + this.withinMs, status: 'pending' })
    }
  }

  /**
   * Marks the recovered and the late. A dialer that is stopped or dead meanwhile (another fault)
   * cannot work: its time counts from when it runs again. `leadsLeft` is asked only for a late one:
   * with nothing left to dial, no call is owed.
   */
  async update(state: (dialerId: string) => DialerState, leadsLeft: () => Promise<boolean>): Promise<void> {
    const now = Date.now()
    for (const r of this.all) {
      if (r.status !== 'pending') continue
      const last = this.activity.last(r.dialerId)
      if (last >= r.from + MARGIN_MS) {
        r.status = 'recovered'
        r.seconds = Math.round((last - r.from) / 100) / 10
      } else if (state(r.dialerId) !== 'running') {
        r.from = now
        r.deadline = now + this.withinMs
      } else if (now > r.deadline) {
        r.status = (await leadsLeft()) ? 'failed' : 'no leads left'
      }
    }
  }

  pending(fault?: number): boolean {
    return this.all.some((r) => r.status === 'pending' && (fault === undefined || r.fault === fault))
  }
}
