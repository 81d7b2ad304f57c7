import { readFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import { type Database, scheduleLeadCallback, withTransaction } from '@hold-dialer/db'
import { formatLocal, parseCallbackTime, toDbTime } from '@hold-dialer/rules'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { LiveState } from '../live-state.js'
import { type AgentView, lastConnectedLead, readAgentView } from './agent-view.js'
import { hashPin, verifyPin } from './pin.js'
import { AgentSessions } from './sessions.js'
import { SIGN_IN_LIMITS, SignInLimiter, type SignInLimits } from './sign-in-limit.js'

export const AGENT_COOKIE = 'hd_agent'

/**
 * The reference agent panel's files: `apps/dialer/agent-panel/` beside `src/` and `dist/`, at the same
 * depth from both (as the console's).
 */
export const AGENT_PANEL_DIR = fileURLToPath(new URL('../../../agent-panel/', import.meta.url))

const PANEL_ASSETS: Record<string, string> = {
  'panel.js': 'text/javascript; charset=utf-8',
  'panel.css': 'text/css; charset=utf-8',
}

export interface AgentInterfaceOptions {
  db: Kysely<Database>
  /** This dialer's live state (the phase of the calls it has). */
  live: () => LiveState
  /** AGENT_PAUSE_REASONS. */
  pauseReasons: readonly string[]
  /** CALLBACK_MODE: a callback can be pinned to its agent only in pinned mode. */
  callbackMode: 'pool' | 'pinned'
  /** TIMEZONE: how a callback time without an offset is read, and how it is given back. */
  timezone: string
  logger: Logger
  now?: () => Date
  timing?: Partial<AgentTiming>
  signInLimits?: SignInLimits
}

export interface AgentTiming {
  /** How often an open stream reads the agent's state again (and sends it when it changed). */
  pollMs: number
  keepAliveMs: number
  sessionMs: number
}

const DEFAULT_TIMING: AgentTiming = { pollMs: 1000, keepAliveMs: 15_000, sessionMs: 12 * 3600_000 }

/** Bytes of updates a stream may leave unread before it is dropped (it reconnects by itself). */
const MAX_BUFFERED = 1_000_000

/** Checked against when the extension has no PIN or does not exist, so each refusal costs the same. */
let noPin: Promise<string> | undefined
const NO_PIN = () => {
  noPin ??= hashPin('0000')
  return noPin
}

const problem = (error: string, message: string) => ({ ok: false as const, error, message })

const SIGN_IN_BODY = {
  type: 'object',
  required: ['extension', 'pin'],
  additionalProperties: false,
  properties: {
    extension: { type: 'string', pattern: '^[0-9]{1,20}$' },
    pin: { type: 'string', maxLength: 64 },
  },
} as const

const PRESENCE_BODY = {
  type: 'object',
  required: ['presence'],
  additionalProperties: false,
  properties: {
    presence: { type: 'string', enum: ['ready', 'paused'] },
    reason: { type: 'string', maxLength: 64 },
  },
} as const

const CALLBACK_BODY = {
  type: 'object',
  required: ['scheduledAt'],
  additionalProperties: false,
  properties: {
    scheduledAt: { type: 'string', maxLength: 64 },
    to: { type: 'string', enum: ['pool', 'me'] },
  },
} as const

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in agent (`dialer_employee.id`), set by the agent interface's session check. */
    agentId?: number
  }
}

/**
 * The agent interface, under `/agent` (docs/agent-interface.md): sign-in with a PIN, presence, the
 * panel's heartbeat, a live stream of the agent's own state and call with its screen pop, "ready
 * now" and a callback for the person just spoken to. Every state is in the database, so an agent may
 * reach any dialer sharing it.
 */
export async function agentPlugin(app: FastifyInstance, options: AgentInterfaceOptions): Promise<void> {
  const timing = { ...DEFAULT_TIMING, ...options.timing }
  const now = options.now ?? (() => new Date())
  const { db, logger } = options
  const sessions = new AgentSessions(db, timing.sessionMs, now)
  const limiter = new SignInLimiter(db, options.signInLimits ?? SIGN_IN_LIMITS, now)
  const streams = new Set<ServerResponse>()
  const endStreams = async () => {
    for (const res of streams) res.end()
    streams.clear()
  }
  app.addHook('preClose', endStreams)
  app.addHook('onClose', endStreams)

  await app.register(cookie)

  // The reference panel: one page and its two files; the page asks /agent/state whether it is signed in.
  const page = readFileSync(`${AGENT_PANEL_DIR}index.html`, 'utf8')
  const assets = new Map(
    Object.keys(PANEL_ASSETS).map((name) => [name, readFileSync(`${AGENT_PANEL_DIR}${name}`, 'utf8')]),
  )
  app.get('/agent', async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
      .send(page),
  )
  app.get<{ Params: { name: string } }>('/agent/assets/:name', async (request, reply) => {
    const body = assets.get(request.params.name)
    if (body === undefined) return reply.code(404).send(problem('not_found', 'no such file'))
    return reply
      .header('content-type', PANEL_ASSETS[request.params.name])
      .header('cache-control', 'no-cache')
      .send(body)
  })

  const tokenOf = (request: FastifyRequest) => request.cookies[AGENT_COOKIE]
  const view = (agentId: number): Promise<AgentView | undefined> =>
    readAgentView(db, agentId, safeLive(), now(), options.pauseReasons)
  const safeLive = (): LiveState | undefined => {
    try {
      return options.live()
    } catch (err) {
      logger.warn({ err }, 'agent interface: live state failed')
      return undefined
    }
  }
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const agentId = await sessions.agentOf(tokenOf(request))
    if (agentId === undefined) {
      return reply.code(401).send(problem('unauthorized', 'not signed in, or the session has ended'))
    }
    request.agentId = agentId
  }
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store')

  app.post<{ Body: { extension: string; pin: string } }>(
    '/agent/sign-in',
    { schema: { body: SIGN_IN_BODY } },
    async (request, reply) => {
      const { extension, pin } = request.body
      const wait = await limiter.wait(extension, request.ip)
      if (wait > 0) {
        logger.warn({ extension }, 'agent sign-in refused: too many attempts')
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(problem('too_many_attempts', `too many sign-in attempts; try again in ${wait} s`))
      }
      const agent = await db
        .selectFrom('dialer_employee')
        .select(['id', 'pin_hash', 'is_active'])
        .where('extension', '=', extension)
        .executeTakeFirst()
      const matches = await verifyPin(pin, agent?.pin_hash ?? (await NO_PIN()))
      const failed = !agent || agent.pin_hash === null || !matches || agent.is_active !== 1
      await limiter.record(extension, request.ip, failed)
      if (failed) {
        logger.info({ extension }, 'agent sign-in refused: wrong extension or PIN')
        return reply
          .code(401)
          .send(problem('wrong_pin', 'wrong extension or PIN, or the agent is deactivated'))
      }
      const agentId = Number(agent.id)
      const token = await sessions.open(agentId)
      // Signing in is a sign of life of the panel; presence is the agent's next choice.
      await db
        .updateTable('dialer_employee')
        .set({ panel_seen_at: toDbTime(now()) })
        .where('id', '=', agentId)
        .execute()
      reply.setCookie(AGENT_COOKIE, token, {
        path: '/agent',
        httpOnly: true,
        sameSite: 'strict',
        secure: request.protocol === 'https',
        maxAge: Math.floor(timing.sessionMs / 1000),
      })
      logger.info({ extension }, 'agent signed in')
      return noStore(reply).send({ ok: true, state: await view(agentId) })
    },
  )

  app.post('/agent/sign-out', async (request, reply) => {
    const token = tokenOf(request)
    const agentId = await sessions.agentOf(token)
    reply.clearCookie(AGENT_COOKIE, { path: '/agent' })
    if (agentId === undefined) return reply.code(401).send(problem('unauthorized', 'not signed in'))
    await sessions.close(token)
    // Offline: no new call. A call in progress goes on to its end (the dialer holds the agent on it).
    const row = await setPresence(agentId, 'offline', null)
    logger.info({ agentId, onCall: row.onCall }, 'agent signed out')
    return { ok: true, onCall: row.onCall }
  })

  await app.register(async (secured) => {
    secured.addHook('preHandler', signedIn)

    secured.get('/agent/state', async (request, reply) => noStore(reply).send(await view(request.agentId!)))

    secured.post('/agent/heartbeat', async (request, reply) => {
      const at = now()
      await db
        .updateTable('dialer_employee')
        .set({ panel_seen_at: toDbTime(at) })
        .where('id', '=', request.agentId!)
        .execute()
      return noStore(reply).send({ ok: true, panelSeenAt: at.toISOString() })
    })

    secured.post<{ Body: { presence: 'ready' | 'paused'; reason?: string } }>(
      '/agent/presence',
      { schema: { body: PRESENCE_BODY } },
      async (request, reply) => {
        const { presence, reason } = request.body
        if (presence === 'paused' && (reason === undefined || !options.pauseReasons.includes(reason))) {
          return reply
            .code(400)
            .send(
              problem(
                'unknown_reason',
                `a pause needs one of these reasons: ${options.pauseReasons.join(', ')}`,
              ),
            )
        }
        if (presence === 'ready' && reason !== undefined) {
          return reply.code(400).send(problem('reason_not_allowed', 'only a pause takes a reason'))
        }
        const row = await setPresence(request.agentId!, presence, reason ?? null)
        logger.info({ agentId: request.agentId, presence, reason, onCall: row.onCall }, 'agent presence set')
        return noStore(reply).send({ ok: true, state: await view(request.agentId!) })
      },
    )

    secured.post('/agent/ready-now', async (request, reply) => {
      const at = toDbTime(now())
      // Ends the wrap-up (wrap_until now, so the last call stays known) and makes the agent ready.
      await db
        .updateTable('dialer_employee')
        .set({ wrap_until: at })
        .where('id', '=', request.agentId!)
        .where('wrap_until', '>', at)
        .execute()
      await setPresence(request.agentId!, 'ready', null)
      return noStore(reply).send({ ok: true, state: await view(request.agentId!) })
    })

    secured.post<{ Body: { scheduledAt: string; to?: 'pool' | 'me' } }>(
      '/agent/callback',
      { schema: { body: CALLBACK_BODY } },
      async (request, reply) => {
        const agentId = request.agentId!
        const { scheduledAt, to } = request.body
        const at = parseCallbackTime(scheduledAt, options.timezone)
        if (!at.ok) return reply.code(400).send(problem('validation_failed', `scheduledAt ${at.message}`))
        if (to === 'me' && options.callbackMode !== 'pinned') {
          return reply
            .code(400)
            .send(
              problem(
                'validation_failed',
                'a callback is given to its agent only in pinned mode (CALLBACK_MODE)',
              ),
            )
        }
        const row = await db
          .selectFrom('dialer_employee')
          .select('on_call_by')
          .where('id', '=', agentId)
          .executeTakeFirstOrThrow()
        if (row.on_call_by !== null) {
          return reply
            .code(409)
            .send(problem('call_in_progress', 'the call is still on: send the callback once it has ended'))
        }
        const leadId = await lastConnectedLead(db, agentId)
        if (leadId === undefined)
          return reply.code(404).send(problem('no_call', 'no call of yours to call back'))
        const result = await withTransaction(db, (trx) =>
          scheduleLeadCallback(trx, { id: leadId }, at.at, {
            ...(to === undefined ? {} : { pin: { agentId: to === 'me' ? agentId : null } }),
          }),
        )
        if (result === 'not_found') {
          return reply.code(404).send(problem('lead_not_found', 'the lead is no longer in the dialer'))
        }
        if (result === 'in_flight') {
          return reply.code(409).send(problem('lead_in_flight', 'the lead is on a call right now'))
        }
        logger.info({ agentId, lead: leadId, to: to ?? 'unchanged' }, 'agent callback scheduled')
        const lead = await db
          .selectFrom('hold_dialer_master_data')
          .select(['oli_id', 'agent_id'])
          .where('id', '=', leadId)
          .executeTakeFirstOrThrow()
        return {
          ok: true,
          lead: {
            oli_id: lead.oli_id,
            dial_status: 'Callback',
            callback_scheduled_at: formatLocal(at.at, options.timezone),
            agent_id: lead.agent_id === null ? null : Number(lead.agent_id),
          },
        }
      },
    )

    secured.get('/agent/events', async (request, reply) => {
      const agentId = request.agentId!
      const token = tokenOf(request)
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
        'x-accel-buffering': 'no',
      })
      res.write('retry: 3000\n\n')
      streams.add(res)
      let last = ''
      let busy = false
      const send = (name: string, data: unknown) => {
        if (res.writableLength > MAX_BUFFERED) res.destroy()
        else res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
      }
      const push = async () => {
        if (busy || res.destroyed || res.writableEnded) return
        busy = true
        try {
          // A session that ended (signed out elsewhere, expired) ends the stream.
          if ((await sessions.agentOf(token)) !== agentId) {
            send('signed-out', { ok: false })
            res.end()
            return
          }
          const state = await view(agentId)
          const text = JSON.stringify(state)
          if (text !== last) {
            last = text
            send('state', state)
          }
        } catch (err) {
          logger.warn({ err, agentId }, 'agent interface: state read failed')
          send('problem', { message: 'the database could not be read; retrying' })
        } finally {
          busy = false
        }
      }
      const poll = setInterval(() => void push(), timing.pollMs)
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), timing.keepAliveMs)
      const stop = () => {
        clearInterval(poll)
        clearInterval(keepAlive)
        streams.delete(res)
      }
      res.on('close', stop)
      res.on('error', stop)
      await push()
    })
  })

  /**
   * Sets the agent's presence; `presence_since` moves only when presence or reason changes. Returns
   * whether a dialer has the agent on a call (which goes on: presence only decides the next one).
   */
  async function setPresence(
    agentId: number,
    presence: 'ready' | 'paused' | 'offline',
    reason: string | null,
  ): Promise<{ onCall: boolean }> {
    const at = toDbTime(now())
    const row = await db
      .selectFrom('dialer_employee')
      .select(['presence', 'pause_reason', 'on_call_by'])
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow()
    const changed = row.presence !== presence || row.pause_reason !== reason
    await db
      .updateTable('dialer_employee')
      .set({
        presence,
        pause_reason: reason,
        // Choosing ready or a pause is a sign of life of the panel.
        ...(presence === 'offline' ? {} : { panel_seen_at: at }),
        ...(changed ? { presence_since: at } : {}),
      })
      .where('id', '=', agentId)
      .execute()
    return { onCall: row.on_call_by !== null }
  }
}

/** The agent interface on the dialer's listener, fed by this dialer. */
export function agentRoutes(deps: AgentInterfaceOptions): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    await app.register(agentPlugin, deps)
  }
}
