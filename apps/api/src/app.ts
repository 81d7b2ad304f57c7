import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { DatabaseAvailability } from '@hold-dialer/db'
import { fastifyTrustProxy, leadPhone, phoneCountry } from '@hold-dialer/rules'
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import type { Redis } from 'ioredis'
import type { ApiContext, AppContext } from './context.js'
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './error-handler.js'
import { ApiError } from './errors.js'
import { secretChecker } from './plugins/auth.js'
import { installBodyHandling } from './plugins/request-body.js'
import { detailedHealthRoutes, publicHealthRoutes } from './routes/health.js'
import { leadWriteRoutes } from './routes/lead-writes.js'
import { pushRoutes } from './routes/push.js'
import { LeadWriter } from './services/lead-writer.js'

/** The spec's 1 MB body limit, read as 1 MiB. */
export const BODY_LIMIT = 1024 * 1024
export const RATE_LIMIT = { max: 120, windowMs: 60_000 }
/**
 * A client has this long to send its whole request (headers and body) before a 408. Fastify leaves
 * Node's request timeout off; a body of at most 1 MB needs far less than this on any live link.
 */
export const REQUEST_TIMEOUT_MS = 30_000

export interface BuildOptions {
  logger?: FastifyServerOptions['loggerInstance']
  /** Shared rate-limit store for several API instances (REDIS_URL). */
  redis?: Redis
  /** Overrides REQUEST_TIMEOUT_MS (tests). */
  requestTimeoutMs?: number
}

/** An incoming `X-Request-Id` kept as the request's id when it is this (DECISIONS section 3). */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
}

/**
 * Builds the API. Check order for a request (DECISIONS section 3): route exists (404, the not-found
 * handler runs outside the authenticated scope) -> secret (onRequest hook of that scope) -> rate
 * limit (a later onRequest hook on the two limited routes) -> body encoding, size and JSON
 * (preParsing hook and parser) -> schema -> state. Unauthenticated bodies are never read.
 */
/**
 * The lead writer, with how a pushed number is read bound in: national numbers in DEFAULT_COUNTRY
 * (else TIMEZONE's country), and TIMEZONE as the clock of a number that maps to no zone.
 */
function newLeadWriter(given: ApiContext): LeadWriter {
  const country = phoneCountry(given.config.defaultCountry, given.config.timezone)
  return new LeadWriter(given.db, (text) => leadPhone(text, country, given.config.timezone))
}

export async function buildApp(given: ApiContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const ctx: AppContext = {
    ...given,
    availability:
      given.availability ??
      DatabaseAvailability.alreadyReady({ db: given.db, log: options.logger ?? { info() {}, warn() {} } }),
    leads: newLeadWriter(given),
  }
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    // Fastify's own 503 while closing has its own body shape; the hook below answers in ours.
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Fastify's own two lines per request (received, completed, with every header) are replaced by
    // one line at REQUEST_LOG_LEVEL in the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout,
    http: {
      // Node looks for timed-out requests this often (its default, 30 s, would double the timeout).
      connectionsCheckingInterval: Math.min(1000, requestTimeout),
      // Node enforces the request timeout on a request whose body is still coming only when the
      // headers' timeout is no longer (measured on Node 20: with its 60 s default, a client that
      // sent headers and half a body was never timed out).
      headersTimeout: requestTimeout,
    },
    clientErrorHandler(err, socket) {
      // Fastify types the error's rawPacket as JSON; Node hands over the Buffer that overflowed.
      clientErrorHandler.call(this as unknown as FastifyInstance, ctx, err as NodeJS.ErrnoException, socket)
    },
    frameworkErrors: frameworkErrorHandler,
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    if (closing) {
      // A request that came on a kept-alive connection after shutdown began: the client should
      // reconnect, to this process's successor.
      reply.header('connection', 'close')
      throw new ApiError('shutting_down')
    }
  })
  app.addHook('onResponse', async (request, reply) => {
    // Route patterns only (a fixed set), never the raw URL, so unknown paths cannot grow the series.
    const route = request.is404 ? 'not_found' : (request.routeOptions.url ?? 'not_found')
    const labels = { route, status: String(reply.statusCode) }
    ctx.metrics.responses.inc(labels)
    ctx.metrics.requestSeconds.observe(labels, reply.elapsedTime / 1000)
    const level = ctx.config.requestLogLevel
    if (level !== 'silent') {
      request.log[level](
        {
          method: request.method,
          route,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      )
    }
  })
  installBodyHandling(app)
  installErrorHandling(app, ctx)

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
      // below: one bucket per client IP shared by the two endpoints. The key is `request.ip`: with
      // TRUST_PROXY, the nearest X-Forwarded-For address that is not a trusted proxy.
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
