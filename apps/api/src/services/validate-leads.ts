import type { Database } from '@hold-dialer/db'
import { normalisePhone, parseCallbackTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import { type FieldProblem, validationFailed } from '../errors.js'
import type { LeadInput } from '../schemas/lead.js'
import { findEmployeesWithExtension } from '../sql/find-dialable-employees.js'
import { loadActivePriorities } from '../sql/load-priorities.js'
import { isWellFormedText } from './text-checks.js'

/** Pinned mode (Mode B): a callback time is accepted only on these priorities (the spec's push rules). */
export const PINNED_CALLBACK_PRIORITIES: ReadonlySet<number> = new Set([1, 2, 3])

export interface CheckedLead {
  input: LeadInput
  phoneDigits: string
  callbackAt: Date | null
  agentId: number | null
}

export interface LeadCheckContext {
  db: Kysely<Database>
  mode: 'pool' | 'pinned'
  zone: string
}

/**
 * The checks the schema cannot make: phone digits, callback time format and calendar validity,
 * priority existence, callback-on-priority rules of both modes, pinned agents on the roster,
 * duplicate `oli_id`s in one batch. Collects every problem of every lead, then throws once.
 */
export async function checkLeads(
  ctx: LeadCheckContext,
  leads: LeadInput[],
  batched: boolean,
): Promise<CheckedLead[]> {
  const priorities = await loadActivePriorities(ctx.db)
  const agentIds =
    ctx.mode === 'pinned' ? [...new Set(leads.flatMap((l) => (l.agent_id == null ? [] : [l.agent_id])))] : []
  const knownAgents = await findEmployeesWithExtension(ctx.db, agentIds)
  const problems: FieldProblem[] = []
  const seen = new Map<string, number>()
  const checked = leads.map((lead, i) => {
    const at = (field: string) => (batched ? `leads[${i}].${field}` : field)
    const problem = (field: string, message: string) => problems.push({ field: at(field), message })

    for (const field of [
      'oli_id',
      'client_name',
      'form_type',
      'phone_number',
      'callback_scheduled_at',
    ] as const) {
      const v = lead[field]
      if (typeof v === 'string' && !isWellFormedText(v)) problem(field, 'must be valid Unicode text')
    }
    if (seen.has(lead.oli_id))
      problem('oli_id', `duplicate oli_id in batch (also leads[${seen.get(lead.oli_id)}])`)
    else seen.set(lead.oli_id, i)

    const phone = normalisePhone(lead.phone_number)
    if (!phone.ok) problem('phone_number', phone.message)

    const priority = priorities.get(lead.priority_id)
    if (!priority) problem('priority_id', 'unknown priority_id')

    const agentId = ctx.mode === 'pinned' ? (lead.agent_id ?? null) : null
    if (agentId !== null && !knownAgents.has(agentId)) {
      problem('agent_id', 'unknown agent_id or the employee has no extension')
    }

    let callbackAt: Date | null = null
    const rawTime = lead.callback_scheduled_at
    if (rawTime != null) {
      const parsed = parseCallbackTime(rawTime, ctx.zone)
      if (!parsed.ok) problem('callback_scheduled_at', parsed.message)
      else callbackAt = parsed.at
      const allowed =
        ctx.mode === 'pool' ? priority?.isCallback === true : PINNED_CALLBACK_PRIORITIES.has(lead.priority_id)
      if (priority && !allowed)
        problem('callback_scheduled_at', 'callback_scheduled_at only allowed for callback priorities')
      if (ctx.mode === 'pinned' && agentId === null)
        problem('agent_id', 'agent_id is required with callback_scheduled_at')
    }
    return { input: lead, phoneDigits: phone.ok ? phone.digits : '', callbackAt, agentId }
  })
  if (problems.length > 0) throw validationFailed(problems)
  return checked
}
