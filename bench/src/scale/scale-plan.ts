import type { PlannedRequest } from '../lib/http-load.js'
import { type LeadBody, leadBody } from '../lib/lead-mix.js'

interface PushAnswer {
  ok?: boolean
  leads?: { oli_id?: string; status?: string }[]
}

/**
 * Push load for the scale-out run, shared by every API instance: each request carries `size` leads,
 * half never pushed before and half pushed earlier (through either instance). A new lead must come
 * back `inserted`; an earlier one may be `updated`, `skipped_in_flight` (a dialer has it on a call)
 * or `inserted` again (it was archived after its last try). Every `oli_id` answered with 201 is kept
 * for the lost-lead check.
 */
export class ScalePushes {
  readonly pushed: string[] = []
  readonly #phones = new Map<string, string>()
  #next = 0

  #fresh(): LeadBody {
    const n = this.#next++
    const oli = `S${String(n).padStart(8, '0')}`
    const phone = `6${String(n).padStart(10, '0')}`
    this.#phones.set(oli, phone)
    return leadBody(oli, phone)
  }

  #again(): LeadBody | undefined {
    if (this.pushed.length === 0) return undefined
    const oli = this.pushed[Math.floor(Math.random() * this.pushed.length)]!
    return leadBody(oli, this.#phones.get(oli)!)
  }

  plan(size: number): () => PlannedRequest {
    return () => {
      const fresh = Array.from({ length: Math.ceil(size / 2) }, () => this.#fresh())
      const again = new Map<string, LeadBody>()
      for (let i = 0; i < size - fresh.length; i++) {
        const lead = this.#again()
        if (lead) again.set(lead.oli_id, lead)
      }
      const leads = [...fresh, ...again.values()]
      const isNew = new Set(fresh.map((l) => l.oli_id))
      return {
        body: JSON.stringify(leads.length === 1 ? leads[0] : { leads }),
        rows: leads.length,
        check: (status, body) => {
          if (status !== 201) return `HTTP ${status}: ${body.slice(0, 200)}`
          const answer = JSON.parse(body) as PushAnswer
          if (answer.leads?.length !== leads.length) return `wrong answer: ${body.slice(0, 200)}`
          for (let i = 0; i < leads.length; i++) {
            const got = answer.leads[i]!
            const oli = leads[i]!.oli_id
            if (got.oli_id !== oli) return `answer out of order at ${i}: ${got.oli_id} for ${oli}`
            if (isNew.has(oli) && got.status !== 'inserted') return `new lead ${oli} answered ${got.status}`
          }
          for (const l of fresh) this.pushed.push(l.oli_id)
          return undefined
        },
      }
    }
  }
}
