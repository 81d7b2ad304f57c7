import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import rateLimit from '@fastify/rate-limit'
import type { Database } from '@hold-dialer/db'
import { headerCopiesOf, secretCheck } from '@hold-dialer/rules'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import { readCenter } from './center-query.js'
import { ConsoleHub, type ConsoleLive } from './console-hub.js'
import { ConsoleSessions } from './sessions.js'

/**
 * The page's files: `apps/dialer/console/` beside `src/` and `dist/`, at the same depth from both, so
 * the tests (from src) and production (from dist) find them without a copy step.
 */
export const CONSOLE_FILES_DIR = fileURLToPath(new URL('../../../console/', import.meta.url))

const ASSETS: Record<string, string> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
}

export const SESSION_COOKIE = 'hd_console'

/** The login form's answer to a secret that is not DIALER_HTTP_SECRET. */
const WRONG_SECRET =
  '<p class="problem" role="alert">Wrong secret: not signed in. Check it and try again.</p>'

export interface ConsoleOptions {
  db: Kysely<Database>
  /** The listener's secret (DIALER_HTTP_SECRET): the login form's, and the headers' for scripts. */
  secret: string
  /** The dialer's live state, taken now. */
  live: () => ConsoleLive
  /** The centre's time zone (TIMEZONE): "today" is its calendar day. */
  timezone: string
  /** The PBX this dialer serves (PBX_NAME): the console lists that PBX's agents; absent, all. */
  pbx?: string
  logger: Logger
  now?: () => Date
  /** Hours of history in the charts (default 8). */
  historyHours?: number
  /** Periods, ms (tests shorten them). */
  timing?: Partial<ConsoleTiming>
}

export interface ConsoleTiming {
  livePollMs: number
  centerPollMs: number
  keepAliveMs: number
  sampleMs: number
  sessionMs: number
}

const DEFAULT_TIMING: ConsoleTiming = {
  // At most two live updates a second.
  livePollMs: 500,
  centerPollMs: 5000,
  keepAliveMs: 15_000,
  sampleMs: 60_000,
  // A shift and then some.
  sessionMs: 12 * 3600_000,
}

/**
 * Sign-in attempts per client address: a person who mistypes gets a few tries a minute; a script
 * guessing DIALER_HTTP_SECRET gets 10 a minute (429 past it, the right secret included).
 */
export const LOGIN_RATE_LIMIT = { max: 10, timeWindow: 60_000 }

/**
 * The supervisor console, under `/console`: a login form, the page and its two files, a JSON snapshot
 * (`/console/snapshot.json`) and an event stream (`/console/events`). The data routes take the session
 * cookie the login sets, or the same secret headers as the rest of the listener (for scripts).
 */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const timing = { ...DEFAULT_TIMING, ...options.timing }
  const now = options.now ?? (() => new Date())
  const hours = options.historyHours ?? 8
  const files = {
    page: readFileSync(`${CONSOLE_FILES_DIR}index.html`, 'utf8'),
    login: readFileSync(`${CONSOLE_FILES_DIR}login.html`, 'utf8'),
    assets: new Map(
      Object.keys(ASSETS).map((name) => [name, readFileSync(`${CONSOLE_FILES_DIR}${name}`, 'utf8')]),
    ),
  }
  const sessions = new ConsoleSessions(timing.sessionMs)
  const hub = new ConsoleHub({
    live: options.live,
    center: () =>
      readCenter(options.db, now(), {
        timezone: options.timezone,
        hours,
        ...(options.pbx === undefined ? {} : { pbx: options.pbx }),
      }),
    logger: options.logger,
    livePollMs: timing.livePollMs,
    centerPollMs: timing.centerPollMs,
    keepAliveMs: timing.keepAliveMs,
    sampleMs: timing.sampleMs,
    samples: Math.ceil((hours * 3600_000) / timing.sampleMs),
  })
  hub.start()
  // preClose: before the server waits for its connections, so open streams do not hold the stop up.
  app.addHook('preClose', async () => hub.close())
  app.addHook('onClose', async () => hub.close())

  // The listener's rule (packages/rules secret-check.ts) for the headers; the login form's field is
  // checked as if it came in X-API-Key, so both compare the same way, in constant time.
  const check = secretCheck(options.secret)
  const authorized = (request: FastifyRequest) => check(headerCopiesOf(request))
  const secretMatches = (text: unknown): boolean =>
    typeof text === 'string' && check((name) => (name === 'x-api-key' ? [text] : []))

  await app.register(cookie)
  await app.register(formbody)
  // Only the login form is limited (guessing the secret); the page and its data are behind it.
  await app.register(rateLimit, { global: false })

  const session = (request: FastifyRequest) => request.cookies[SESSION_COOKIE]
  const allowed = (request: FastifyRequest) => sessions.valid(session(request)) || authorized(request)
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header(
        'content-security-policy',
        "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
      )
      .send(body)
  const loginPage = (reply: FastifyReply, status: number, message: string) =>
    html(reply, status, files.login.replace('<!--message-->', message))

  app.get('/console', async (request, reply) =>
    sessions.valid(session(request)) ? html(reply, 200, files.page) : loginPage(reply, 200, ''),
  )
  app.get('/console/', async (_request, reply) => reply.redirect('/console', 303))

  app.post('/console/login', { config: { rateLimit: LOGIN_RATE_LIMIT } }, async (request, reply) => {
    const body = request.body as Record<string, unknown> | undefined
    if (!secretMatches(body?.secret)) {
      // Says what went wrong and nothing about the secret itself (its length, how close the guess was).
      return loginPage(reply, 401, WRONG_SECRET)
    }
    reply.setCookie(SESSION_COOKIE, sessions.open(), {
      path: '/console',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      maxAge: Math.floor(timing.sessionMs / 1000),
    })
    return reply.redirect('/console', 303)
  })

  app.post('/console/logout', async (request, reply) => {
    sessions.close(session(request))
    reply.clearCookie(SESSION_COOKIE, { path: '/console' })
    return reply.redirect('/console', 303)
  })

  app.get<{ Params: { name: string } }>('/console/assets/:name', async (request, reply) => {
    const body = files.assets.get(request.params.name)
    if (body === undefined) return reply.code(404).send({ error: 'Not Found' })
    return reply
      .header('content-type', ASSETS[request.params.name])
      .header('cache-control', 'no-cache')
      .send(body)
  })

  app.get('/console/snapshot.json', async (request, reply) => {
    if (!allowed(request)) return reply.code(401).send({ error: 'Unauthorized' })
    return reply.header('cache-control', 'no-store').send(await hub.snapshot())
  })

  app.get('/console/events', async (request, reply) => {
    if (!allowed(request)) return reply.code(401).send({ error: 'Unauthorized' })
    reply.hijack()
    await hub.attach(reply.raw)
  })
}

/** The console on the dialer's listener (`ownAuth` of startDialerHttp), fed by this dialer. */
export function consoleRoutes(
  deps: Omit<ConsoleOptions, 'secret'>,
): (app: FastifyInstance, secret: string) => Promise<void> {
  return async (app, secret) => {
    await app.register(consolePlugin, { ...deps, secret })
  }
}
