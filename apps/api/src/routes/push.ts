import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AppContext } from '../context.js'
import { ApiError, validationFailed } from '../errors.js'
import { ErrorBody } from '../schemas/common.js'
import { type LeadInput, MAX_BATCH, PinnedLead, PoolLead, PushResponse, pushBody } from '../schemas/lead.js'
import { requireDatabase } from '../services/database-gate.js'
import { checkLeads, leadProblems } from '../services/validate-leads.js'
import { detailsFromSchemaErrors, type SchemaError } from '../validation-details.js'

/**
 * A body the schema refused: its problems plus those the domain checks find on the fields that do
 * have the right type, in one 400 (DECISIONS section 3: every problem, not only the first).
 */
async function rejectWithEveryProblem(
  ctx: AppContext,
  body: unknown,
  errors: readonly SchemaError[],
): Promise<never> {
  // With no Content-Type and no bytes Fastify runs no parser: an empty body is not JSON.
  if (body === undefined) throw new ApiError('invalid_json')
  const schemaProblems = detailsFromSchemaErrors(errors)
  const batched = typeof body === 'object' && body !== null && 'leads' in body
  const items = batched ? (body as { leads: unknown }).leads : [body]
  if (Array.isArray(items)) requireDatabase(ctx)
  const { problems } = Array.isArray(items)
    ? await leadProblems(
        { db: ctx.db.kysely, mode: ctx.config.callbackMode, zone: ctx.config.timezone },
        items.slice(0, MAX_BATCH),
        batched,
        new Set(schemaProblems.map((p) => p.field)),
      )
    : { problems: [] }
  throw validationFailed([...schemaProblems, ...problems])
}

/** POST /api/leads and POST /api/master: one handler, one lead or a batch of 1-500. */
export function pushRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const body = pushBody(ctx.config.callbackMode === 'pinned' ? PinnedLead : PoolLead)
  return async (app) => {
    for (const url of ['/api/leads', '/api/master']) {
      app.post(
        url,
        {
          // Schema errors are handled below, so the domain checks can add theirs to the same answer.
          attachValidation: true,
          schema: {
            summary: 'Upsert one lead or a batch by oli_id',
            body,
            response: {
              201: PushResponse,
              400: ErrorBody,
              401: ErrorBody,
              413: ErrorBody,
              415: ErrorBody,
              500: ErrorBody,
              503: ErrorBody,
            },
          },
        },
        async (request, reply) => {
          if (request.validationError)
            await rejectWithEveryProblem(ctx, request.body, request.validationError.validation)
          const sent = request.body as LeadInput | { leads: LeadInput[] }
          const batched = 'leads' in sent
          const leads = batched ? sent.leads : [sent]
          requireDatabase(ctx)
          const checked = await checkLeads(
            { db: ctx.db.kysely, mode: ctx.config.callbackMode, zone: ctx.config.timezone },
            leads,
            batched,
          )
          const results = await ctx.leads.push(
            {
              hours: ctx.config.hours,
              now: ctx.now(),
              onRetry: ({ reason }) => ctx.metrics.dbRetries.inc({ reason }),
            },
            checked,
          )
          for (const r of results) ctx.metrics.leads.inc({ result: r.status })
          return reply.code(201).send({ ok: true as const, leads: results })
        },
      )
    }
  }
}
