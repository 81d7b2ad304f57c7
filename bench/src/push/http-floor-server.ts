import Fastify from 'fastify'

/**
 * The HTTP floor of a single-lead push: a bare Fastify app whose one route reads the JSON body and
 * answers 201 with the product's answer for that lead, and does nothing else (no secret, no schema,
 * no checks, no database, no log). Run as its own process with the product's Node flags, driven by
 * the same load as the product: what it costs per request is what any Fastify API pays before its
 * own work.
 */
const app = Fastify({ logger: false })
app.post('/api/leads', async (request, reply) => {
  const oliId = String((request.body as { oli_id?: unknown }).oli_id)
  const status = oliId.startsWith('U') ? 'updated' : oliId.startsWith('L') ? 'skipped_in_flight' : 'inserted'
  return reply.code(201).send({ ok: true, leads: [{ oli_id: oliId, status, callback_scheduled_at: null }] })
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
