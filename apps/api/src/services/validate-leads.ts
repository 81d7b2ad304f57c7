import type { Database } from '@hold-dialer/db'
import { normalisePhone, parseCallbackTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import { type FieldProblem, validationFailed } from '../errors.js'
import type { LeadInput } from '../schemas/lead.js'
import { findEmployeesWithExtension } from '../sql/find-dialable-employees.js'
import { loadActivePriorities } from '../sql/load-priorities.js'
import { BLANK_MESSAGE, isBlank, isWellFormedText } from './text-checks.js'

/** Pinned mode (Mode B): a callback time is accepted only on these priorities (the spec's push rules). */
export const PINNED_CALLBACK_PRIORITIES: ReadonlySet<number> = new Set([1, 2, 3])

/** Fields that may not be only white space (the empty string is the schema's length error). */
const BLANK_FIELDS: ReadonlySet<string> = new Set(['oli_id', 'client_name'])

export interface CheckedLead {
  input: LeadInput
  phoneDigits: string
  /** `phone_number` as sent, for its international form (the digits have lost its `+`). */
  phoneText: string
  callbackAt: Date | null
  agentId: number | null
}

export interface LeadCheckContext {
  db: Kysely<Database>
  mode: 'pool' | 'pinned'
  zone: string
}

const isString = (v: unknown): v is string => typeof v === 'string'
const isInteger = (v: unknown): v is number => Number.isInteger(v)

/**
 * The checks the schema cannot make: phone digits, callback time format and calendar validity,
 * priority existence, callback-on-priority rules of both modes, pinned agents on the roster,
 * duplicate `oli_id`s in one batch. Runs on every lead even when the schema has already failed (on the
 * fields that have the right type and were not reported), so one answer lists every problem.
 */
export async function leadProblems(
  ctx: LeadCheckContext,
  items: readonly unknown[],
  batched: boolean,
  reported: ReadonlySet<string> = new Set(),
): Promise<{ problems: FieldProblem[]; checked: CheckedLead[] }> {
  const leads = items.map((x) =>
    typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined,
  )
  const priorities = await loadActivePriorities(ctx.db)
  const agentIds =
    ctx.mode === 'pinned'
      ? [...new Set(leads.flatMap((l) => (l && isInteger(l.agent_id) ? [l.agent_id] : [])))]
      : []
  const knownAgents = await findEmployeesWithExtension(ctx.db, agentIds)
  const problems: FieldProblem[] = []
  const checked: CheckedLead[] = []
  const seen = new Map<string, number>()
  leads.forEach((lead, i) => {
    if (!lead) return
    const at = (field: string) => (batched ? `leads[${i}].${field}` : field)
    const problem = (field: string, message: string) => problems.push({ field: at(field), message })
    // A field's value when it has the expected type and the schema did not already report it. The
    // path is built only when the schema reported something: a field path per field per lead was a
    // tenth of the bytes the API allocated under batch pushes.
    const unreported = (field: string) => reported.size === 0 || !reported.has(at(field))
    const str = (field: string) => {
      const v = lead[field]
      return isString(v) && unreported(field) ? v : undefined
    }
    const int = (field: string) => {
      const v = lead[field]
      return isInteger(v) && unreported(field) ? v : undefined
    }

    for (const field of ['oli_id', 'client_name', 'form_type', 'phone_number', 'callback_scheduled_at']) {
      const v = str(field)
      if (v !== undefined && !isWellFormedText(v)) problem(field, 'must be valid Unicode text')
      else if (v !== undefined && v !== '' && BLANK_FIELDS.has(field) && isBlank(v))
        problem(field, BLANK_MESSAGE)
    }
    const oliId = str('oli_id')
    if (oliId !== undefined) {
      if (seen.has(oliId)) problem('oli_id', `duplicate oli_id in batch (also leads[${seen.get(oliId)}])`)
      else seen.set(oliId, i)
    }

    const rawPhone = str('phone_number')
    const phone = rawPhone === undefined ? undefined : normalisePhone(rawPhone)
    if (phone && !phone.ok) problem('phone_number', phone.message)

    const priorityId = int('priority_id')
    const priority = priorityId === undefined ? undefined : priorities.get(priorityId)
    if (priorityId !== undefined && !priority) problem('priority_id', 'unknown priority_id')

    const agentId = ctx.mode === 'pinned' ? (int('agent_id') ?? null) : null
    if (agentId !== null && !knownAgents.has(agentId)) {
      problem('agent_id', 'unknown agent_id, or the employee is inactive or has no extension')
    }

    let callbackAt: Date | null = null
    const rawTime = str('callback_scheduled_at')
    if (rawTime !== undefined) {
      const parsed = parseCallbackTime(rawTime, ctx.zone)
      if (!parsed.ok) problem('callback_scheduled_at', parsed.message)
      else callbackAt = parsed.at
      const allowed =
        ctx.mode === 'pool' ? priority?.isCallback === true : PINNED_CALLBACK_PRIORITIES.has(priorityId ?? -1)
      if (priority && !allowed)
        problem('callback_scheduled_at', 'callback_scheduled_at only allowed for callback priorities')
      if (ctx.mode === 'pinned' && lead.agent_id == null && unreported('agent_id'))
        problem('agent_id', 'agent_id is required with callback_scheduled_at')
    }
    checked.push({
      input: lead as unknown as LeadInput,
      phoneDigits: phone?.ok ? phone.digits : '',
      phoneText: rawPhone ?? '',
      callbackAt,
      agentId,
    })
  })
  return { problems, checked }
}

/** `leadProblems` for a body the schema accepted: the checked leads, or a 400 listing every problem. */
export async function checkLeads(
  ctx: LeadCheckContext,
  leads: LeadInput[],
  batched: boolean,
): Promise<CheckedLead[]> {
  const { problems, checked } = await leadProblems(ctx, leads, batched)
  if (problems.length > 0) throw validationFailed(problems)
  return checked
}
