import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiContext } from '../context.js'
import { ErrorBody } from '../schemas/common.js'
import { type LeadInput, PinnedLead, PoolLead, PushResponse, pushBody } from '../schemas/lead.js'
import { pushLeads } from '../services/push-leads.js'
import { checkLeads } from '../services/validate-leads.js'

/** POST /api/leads and POST /api/master: one handler, one lead or a batch of 1-500. */
export function pushRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  const body = pushBody(ctx.config.callbackMode === 'pinned' ? PinnedLead : PoolLead)
  return async (app) => {
    for (const url of ['/api/leads', '/api/master']) {
      app.post(
        url,
        {
          schema: {
            summary: 'Upsert one lead or a batch by oli_id',
            body,
            response: { 201: PushResponse, 400: ErrorBody, 401: ErrorBody, 413: ErrorBody, 500: ErrorBody },
          },
        },
        async (request, reply) => {
          const sent = request.body as LeadInput | { leads: LeadInput[] }
          const batched = 'leads' in sent
          const leads = batched ? sent.leads : [sent]
          const checked = await checkLeads(
            { db: ctx.db.db, mode: ctx.config.callbackMode, zone: ctx.config.timezone },
            leads,
            batched,
          )
          const results = await pushLeads(
            {
              db: ctx.db.db,
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
