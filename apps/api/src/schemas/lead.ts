import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { CallbackTimeInput, OliId } from './common.js'

export const MAX_BATCH = 500

const leadFields = {
  oli_id: OliId,
  /** Any formatting; 10-15 digits once non-digits are stripped (checked after the schema). */
  phone_number: Type.String({ maxLength: 64 }),
  client_name: Type.String({ minLength: 1, maxLength: 150 }),
  form_type: Type.String({ maxLength: 255 }),
  priority_id: Type.Integer(),
  callback_scheduled_at: Type.Optional(Type.Union([CallbackTimeInput, Type.Null()])),
}

/** Pool mode (the spec's Mode A): `agent_id` is an unknown key, rejected like any other. */
export const PoolLead = Type.Object(leadFields, { additionalProperties: false })
/** Pinned mode (Mode B): `agent_id` is the `dialer_employee.id` the lead is pinned to. */
export const PinnedLead = Type.Object(
  { ...leadFields, agent_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])) },
  { additionalProperties: false },
)

export type LeadInput = Static<typeof PinnedLead>

/**
 * One lead, or `{ leads: [...] }`. `if/then/else` rather than `anyOf`, so a bad batch reports only
 * the batch's problems instead of also every way it fails to be a single lead.
 */
export function pushBody(lead: typeof PoolLead | typeof PinnedLead): TSchema {
  const batch = Type.Object(
    { leads: Type.Array(lead, { minItems: 1, maxItems: MAX_BATCH }) },
    { additionalProperties: false },
  )
  return Type.Unsafe<LeadInput | { leads: LeadInput[] }>({
    if: { type: 'object', required: ['leads'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: batch,
    else: lead,
  })
}

export const PushResult = Type.Object({
  oli_id: Type.String(),
  status: Type.Union([Type.Literal('inserted'), Type.Literal('updated'), Type.Literal('skipped_in_flight')]),
  callback_scheduled_at: Type.Union([Type.String(), Type.Null()]),
})
export type PushResultType = Static<typeof PushResult>

export const PushResponse = Type.Object({ ok: Type.Literal(true), leads: Type.Array(PushResult) })
