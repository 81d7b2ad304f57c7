import type { PlannedRequest } from '../lib/http-load.js'
import type { LeadBody, LeadMix, PushStatus } from '../lib/lead-mix.js'

/** What a correct push answers for a lead of each pool: the pool is the `oli_id`'s first letter. */
export function expectedStatus(oliId: string): PushStatus {
  if (oliId.startsWith('U')) return 'updated'
  if (oliId.startsWith('L')) return 'skipped_in_flight'
  return 'inserted'
}

interface PushAnswer {
  ok?: boolean
  leads?: { oli_id?: string; status?: string }[]
}

/** Checks a push answer lead by lead: same order, same `oli_id`, the status its pool implies. */
export function checkPushAnswer(sent: readonly LeadBody[], status: number, body: string): string | undefined {
  if (status !== 201) return `HTTP ${status}: ${body.slice(0, 200)}`
  let answer: PushAnswer
  try {
    answer = JSON.parse(body) as PushAnswer
  } catch {
    return `unparseable answer: ${body.slice(0, 200)}`
  }
  if (answer.ok !== true || answer.leads?.length !== sent.length) return `wrong answer: ${body.slice(0, 200)}`
  for (let i = 0; i < sent.length; i++) {
    const want = sent[i]!
    const got = answer.leads[i]!
    if (got.oli_id !== want.oli_id || got.status !== expectedStatus(want.oli_id)) {
      return `lead ${want.oli_id}: expected ${expectedStatus(want.oli_id)}, got ${got.oli_id} ${got.status}`
    }
  }
  return undefined
}

/** A batch push of `size` leads in the mix. */
export function batchPlan(mix: LeadMix, size: number): () => PlannedRequest {
  return () => {
    const { leads } = mix.batch(size)
    return {
      body: JSON.stringify({ leads }),
      rows: leads.length,
      check: (status, body) => checkPushAnswer(leads, status, body),
    }
  }
}

/** A single-lead push, drawn from the same mix. */
export function singlePlan(mix: LeadMix): () => PlannedRequest {
  return () => {
    const { lead } = mix.single()
    return {
      body: JSON.stringify(lead),
      rows: 1,
      check: (status, body) => checkPushAnswer([lead], status, body),
    }
  }
}
