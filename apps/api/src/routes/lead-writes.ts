import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { formatLocal, parseCallbackTime } from '@hold-dialer/rules'
import type { AppContext } from '../context.js'
import { type FieldProblem, validationFailed } from '../errors.js'
import { ErrorBody } from '../schemas/common.js'
import { CallbackRequestBody, CallbackResponse, TicketBody, TicketResponse } from '../schemas/ticket.js'
import { requireDatabase } from '../services/database-gate.js'
import { closeTicket, scheduleCallback } from '../services/lead-writes.js'
import { BLANK_MESSAGE, isBlank, isWellFormedText } from '../services/text-checks.js'

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
}

/** `Close` / `Callback Schedule`, ignoring case and all white space (DECISIONS section 3). */
function ticketAction(status: string): 'close' | 'callback' | undefined {
  const key = status.toLowerCase().replace(/\s+/g, '')
  return key === 'close' ? 'close' : key === 'callbackschedule' ? 'callback' : undefined
}

function parseTime(
  raw: string | null | undefined,
  field: string,
  zone: string,
  problems: FieldProblem[],
): Date | undefined {
  if (raw == null) {
    problems.push({ field, message: 'is required' })
    return undefined
  }
  const parsed = parseCallbackTime(raw, zone)
  if (!parsed.ok) problems.push({ field, message: parsed.message })
  return parsed.ok ? parsed.at : undefined
}

function oliIdProblems(oliId: string): FieldProblem[] {
  if (!isWellFormedText(oliId)) return [{ field: 'oliId', message: 'must be valid Unicode text' }]
  return isBlank(oliId) ? [{ field: 'oliId', message: BLANK_MESSAGE }] : []
}

/** PUT /api/escalated-tickets and POST /api/send-callback-request (rate limited by the caller's scope). */
export function leadWriteRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const zone = ctx.config.timezone
  return async (app) => {
    app.put(
      '/api/escalated-tickets',
      {
        schema: {
          summary: 'Close or Callback Schedule an escalated ticket (priority_id 8)',
          body: TicketBody,
          response: { 200: TicketResponse, ...errors },
        },
      },
      async (request) => {
        const { oliId, status, scheduledAt } = request.body
        const problems = oliIdProblems(oliId)
        const action = ticketAction(status)
        if (!action) problems.push({ field: 'status', message: 'must be Close or Callback Schedule' })
        const at = action === 'callback' ? parseTime(scheduledAt, 'scheduledAt', zone, problems) : undefined
        if (problems.length > 0) throw validationFailed(problems)
        requireDatabase(ctx)
        const now = ctx.now()
        if (action === 'close') {
          await closeTicket({ db: ctx.db.kysely, now }, oliId)
          ctx.metrics.ticketWrites.inc({ action: 'ticket_close' })
          return { ok: true as const, lead: { oli_id: oliId, dial_status: 'Disposed' as const } }
        }
        await scheduleCallback({ db: ctx.db.kysely, now }, oliId, at!, { escalatedOnly: true })
        ctx.metrics.ticketWrites.inc({ action: 'ticket_callback' })
        return {
          ok: true as const,
          lead: {
            oli_id: oliId,
            dial_status: 'Callback' as const,
            callback_scheduled_at: formatLocal(at!, zone),
          },
        }
      },
    )

    app.post(
      '/api/send-callback-request',
      {
        schema: {
          summary: 'Set a callback time on an existing lead',
          body: CallbackRequestBody,
          response: { 200: CallbackResponse, ...errors },
        },
      },
      async (request) => {
        const { oliId, scheduledAt, ScheduledAt } = request.body
        const problems = oliIdProblems(oliId)
        let at: Date | undefined
        if (scheduledAt !== undefined && ScheduledAt !== undefined) {
          problems.push({ field: 'scheduledAt', message: 'send scheduledAt or ScheduledAt, not both' })
        } else {
          at = parseTime(scheduledAt ?? ScheduledAt, 'scheduledAt', zone, problems)
        }
        if (problems.length > 0) throw validationFailed(problems)
        requireDatabase(ctx)
        await scheduleCallback({ db: ctx.db.kysely, now: ctx.now() }, oliId, at!, { escalatedOnly: false })
        ctx.metrics.ticketWrites.inc({ action: 'callback_request' })
        return {
          ok: true as const,
          lead: {
            oli_id: oliId,
            dial_status: 'Callback' as const,
            callback_scheduled_at: formatLocal(at!, zone),
          },
        }
      },
    )
  }
}
