import { fastifyTrustProxy, headerCopiesOf, secretCheck, type TrustProxy } from '@hold-dialer/rules'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { TrunkState } from '../calls/trunk-breaker.js'
import type { IdleSnapshot } from '../idle/idle-report.js'

/** What /healthz says: the AMI connection's and the database's state, no secrets. */
export interface DialerHealth {
  dialer: string
  ami: string
  database: 'available' | 'unavailable'
  /** The trunk breaker: `open` while customer calls cannot be placed. */
  trunk: TrunkState
  /** While no call is placed nor in progress: since when, and why (idle/idle-report.ts); else null. */
  idle: IdleSnapshot | null
}

export interface DialerHttpOptions {
  host: string
  port: number
  /** DIALER_HTTP_SECRET. Without it only /healthz is served. */
  secret: string | undefined
  /**
   * TRUST_PROXY (default none): behind a reverse proxy, the client's address (the console's sign-in
   * limit is per address) and scheme (the session cookie is Secure over HTTPS) come from its
   * X-Forwarded-For and X-Forwarded-Proto.
   */
  trustProxy?: TrustProxy
  logger: Logger
  health: () => DialerHealth
  /** Routes served only with the secret (/metrics, the console). */
  secured?: Array<(app: FastifyInstance) => Promise<void> | void>
  /**
   * Routes that check the secret themselves (the console: a login form, then a session cookie, since a
   * browser's EventSource cannot send a header). Served only when there is a secret.
   */
  ownAuth?: Array<(app: FastifyInstance, secret: string) => Promise<void> | void>
  /** Routes with a sign-in of their own that needs no secret (the agent interface): always served. */
  open?: Array<(app: FastifyInstance) => Promise<void> | void>
}

/**
 * The dialer's own small HTTP listener: /healthz for anyone, everything else behind the same
 * shared-secret check as the API's (packages/rules secret-check.ts).
 */
export async function buildDialerHttp(options: DialerHttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    trustProxy: fastifyTrustProxy(options.trustProxy ?? false),
    loggerInstance: options.logger.child({ component: 'http' }) as FastifyBaseLogger,
    // Scrapes every few seconds: no log line per request.
    logController: new LogController({ disableRequestLogging: true }),
  })
  app.get('/healthz', async () => options.health())
  const secret = options.secret
  if (secret !== undefined) {
    const check = secretCheck(secret)
    await app.register(async (secured) => {
      secured.addHook('onRequest', async (request, reply) => {
        if (!check(headerCopiesOf(request))) {
          // The API's answer to a missing or wrong secret.
          await reply.code(401).send({ ok: false, error: 'unauthorized' })
        }
      })
      for (const routes of options.secured ?? []) await routes(secured)
    })
    for (const routes of options.ownAuth ?? []) await routes(app, secret)
  }
  for (const routes of options.open ?? []) await routes(app)
  return app
}

/**
 * Starts the listener (port 0 in the configuration turns it off: undefined). Returns the app and the
 * URL it listens on.
 */
export async function startDialerHttp(
  options: DialerHttpOptions,
): Promise<{ app: FastifyInstance; url: string } | undefined> {
  if (options.port === 0) return undefined
  if (options.secret === undefined) {
    options.logger.warn(
      'DIALER_HTTP_SECRET is not set: the dialer serves only /healthz and the agent interface; metrics and the console need it',
    )
  }
  const app = await buildDialerHttp(options)
  await app.listen({ host: options.host, port: options.port })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return { app, url: `http://${host}:${port}` }
}
