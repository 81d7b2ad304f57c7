import { type Static, Type } from '@sinclair/typebox'

/** `oli_id` / `oliId`: 1-100 characters. */
export const OliId = Type.String({ minLength: 1, maxLength: 100 })

/** A callback time as sent: the format is checked by `parseCallbackTime`, not by a pattern. */
export const CallbackTimeInput = Type.String({ maxLength: 64 })

export const FieldProblem = Type.Object({ field: Type.String(), message: Type.String() })

export const ErrorBody = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.String(),
    details: Type.Optional(Type.Array(FieldProblem)),
    request_id: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody' },
)
export type ErrorBodyType = Static<typeof ErrorBody>

/** The local `YYYY-MM-DD HH:MM:SS` form ticket and callback responses use. */
export const LocalDateTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' })
