import { type Static, Type } from '@sinclair/typebox'
import { CallbackTimeInput, LocalDateTime, OliId } from './common.js'

export const TicketBody = Type.Object(
  {
    oliId: OliId,
    /** `Close` or `Callback Schedule`, matched ignoring case and white space; not stored. */
    status: Type.String({ maxLength: 64 }),
    /** Required for Callback Schedule; ignored on Close. */
    scheduledAt: Type.Optional(Type.Union([CallbackTimeInput, Type.Null()])),
  },
  { additionalProperties: false },
)
export type TicketBodyType = Static<typeof TicketBody>

export const CallbackRequestBody = Type.Object(
  {
    oliId: OliId,
    scheduledAt: Type.Optional(CallbackTimeInput),
    /** Alias of `scheduledAt`; sending both is a 400. */
    ScheduledAt: Type.Optional(CallbackTimeInput),
  },
  { additionalProperties: false },
)
export type CallbackRequestBodyType = Static<typeof CallbackRequestBody>

export const DisposedResponse = Type.Object({
  ok: Type.Literal(true),
  lead: Type.Object({ oli_id: Type.String(), dial_status: Type.Literal('Disposed') }),
})

export const CallbackResponse = Type.Object({
  ok: Type.Literal(true),
  lead: Type.Object({
    oli_id: Type.String(),
    dial_status: Type.Literal('Callback'),
    callback_scheduled_at: LocalDateTime,
  }),
})

export const TicketResponse = Type.Union([DisposedResponse, CallbackResponse])
