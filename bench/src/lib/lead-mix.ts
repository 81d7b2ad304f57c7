/** A lead as the push API takes it (pool mode). */
export interface LeadBody {
  oli_id: string
  phone_number: string
  client_name: string
  form_type: string
  priority_id: number
}

export type PushStatus = 'inserted' | 'updated' | 'skipped_in_flight'

export interface MixedBatch {
  leads: LeadBody[]
  /** How many of each status a correct answer reports. */
  expected: Record<PushStatus, number>
}

/** Existing, not live leads a push overwrites (`U000000`..). */
export const UPDATE_POOL = 20_000
/** Leads live in a call (Calling + isReserved=1) that a push must skip (`L000000`..). */
export const LIVE_POOL = 5_000

/** The mix: half new oli_ids, 40% updates of existing rows, 10% rows live in a call. */
export const MIX = { fresh: 0.5, update: 0.4, live: 0.1 } as const

const pad = (n: number) => String(n).padStart(6, '0')
export const updateOli = (i: number) => `U${pad(i)}`
export const liveOli = (i: number) => `L${pad(i)}`

/** Phone numbers are unique per lead, so pbx-sim's calls per number show a lead dialed twice. */
export function leadBody(oliId: string, phoneDigits: string): LeadBody {
  return {
    oli_id: oliId,
    phone_number: `+${phoneDigits}`,
    client_name: `Client ${oliId}`,
    form_type: 'hold',
    priority_id: 1,
  }
}

export const updateLead = (i: number) => leadBody(updateOli(i), `2${String(i).padStart(10, '0')}`)
export const liveLead = (i: number) => leadBody(liveOli(i), `3${String(i).padStart(10, '0')}`)

/** Distinct random integers in [0, range). */
function pickDistinct(count: number, range: number): number[] {
  const chosen = new Set<number>()
  while (chosen.size < count) chosen.add(Math.floor(Math.random() * range))
  return [...chosen]
}

function shuffle<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[list[i], list[j]] = [list[j]!, list[i]!]
  }
  return list
}

/**
 * Varied bodies for one run. New `oli_id`s carry the run's prefix, so every run (API or ceiling, any
 * round) inserts leads no earlier run wrote, while updates and live rows come from the shared pools.
 */
export class LeadMix {
  #next = 0
  constructor(
    readonly prefix: string,
    /** First digit(s) of new leads' phone numbers: different per run keeps numbers unique. */
    readonly phonePrefix: string,
  ) {}

  fresh(): LeadBody {
    const n = this.#next++
    return leadBody(`${this.prefix}${n}`, `${this.phonePrefix}${String(n).padStart(8, '0')}`)
  }

  /** Newly pushed `oli_id`s so far (for the lost-lead check). */
  get freshCount(): number {
    return this.#next
  }

  batch(size: number): MixedBatch {
    const live = Math.round(size * MIX.live)
    const updates = Math.round(size * MIX.update)
    const fresh = size - live - updates
    const leads = [
      ...Array.from({ length: fresh }, () => this.fresh()),
      ...pickDistinct(updates, UPDATE_POOL).map(updateLead),
      ...pickDistinct(live, LIVE_POOL).map(liveLead),
    ]
    return {
      leads: shuffle(leads),
      expected: { inserted: fresh, updated: updates, skipped_in_flight: live },
    }
  }

  single(): { lead: LeadBody; expected: PushStatus } {
    const r = Math.random()
    if (r < MIX.fresh) return { lead: this.fresh(), expected: 'inserted' }
    if (r < MIX.fresh + MIX.update) {
      return { lead: updateLead(Math.floor(Math.random() * UPDATE_POOL)), expected: 'updated' }
    }
    return { lead: liveLead(Math.floor(Math.random() * LIVE_POOL)), expected: 'skipped_in_flight' }
  }
}
