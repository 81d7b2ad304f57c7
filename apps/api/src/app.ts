import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Redis } from 'ioredis'
import type { ApiContext } from './context.js'
import { installErrorHandling } from './error-handler.js'
import { ApiError } from './errors.js'
import { secretChecker } from './plugins/auth.js'
import { detailedHealthRoutes, publicHealthRoutes } from './routes/health.js'
import { leadWriteRoutes } from './routes/lead-writes.js'
import { pushRoutes } from './routes/push.js'

/** The spec's 1 MB body limit, read as 1 MiB. */
export const BODY_LIMIT = 1024 * 1024
export const RATE_LIMIT = { max: 120, windowMs: 60_000 }

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes proxy-addr's own rule for one (the `i`th
 * address from the socket is trusted while `i < hops`), as Fastify's types have no number form.
 */
function fastifyTrustProxy(
  trust: ApiContext['config']['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return typeof trust === 'boolean' ? trust : [...trust]
}

export interface BuildOptions {
  logger?: FastifyServerOptions['loggerInstance']
  /** Shared rate-limit store for several API instances (REDIS_URL). */
  redis?: Redis
}

/**
 * Builds the API. Check order for a request (DECISIONS section 3): route exists (404, the not-found
 * handler runs outside the authenticated scope) -> secret (onRequest hook of that scope) -> rate
 * limit (a later onRequest hook on the two limited routes) -> body size and JSON (parser) ->
 * schema -> state. Unauthenticated bodies are never read.
 */
export async function buildApp(ctx: ApiContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    return503OnClosing: true,
    requestIdHeader: false,
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // JSON whatever the Content-Type says; Fastify's own parser keeps its prototype-poisoning guard.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))
  installErrorHandling(app)

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Lead intake and callback scheduling', version: ctx.version },
      // Any one of the three headers carries the secret; /healthz and /openapi.json opt out.
      security: [{ bearer: [] }, { apiKey: [] }, { accessKey: [] }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          accessKey: { type: 'apiKey', in: 'header', name: 'X-Access-Key' },
        },
      },
    },
  })

  await app.register(publicHealthRoutes(ctx))
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const authorised = secretChecker(ctx.config.wsSecret ?? '')
  await app.register(async (secured) => {
    secured.addHook('onRequest', async (request) => {
      if (!authorised(request)) throw new ApiError('unauthorized')
    })
    await secured.register(pushRoutes(ctx))
    await secured.register(detailedHealthRoutes(ctx))
    await secured.register(async (limited) => {
      // Registered in this scope with `global`, the limiter's single store serves both routes
      // below: one bucket per client IP shared by the two endpoints.
      await limited.register(rateLimit, {
        global: true,
        max: RATE_LIMIT.max,
        timeWindow: RATE_LIMIT.windowMs,
        ...(options.redis ? { redis: options.redis, nameSpace: 'hold-dialer-rl-' } : {}),
        skipOnError: true,
        errorResponseBuilder: () => new ApiError('rate_limited'),
      })
      await limited.register(leadWriteRoutes(ctx))
    })
  })
  return app
}
