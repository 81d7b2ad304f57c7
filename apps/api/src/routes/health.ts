import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { fromDbTime } from '@hold-dialer/rules'
import type { AmiStatus, AppContext } from '../context.js'
import { ErrorBody } from '../schemas/common.js'
import { HealthResponse, HealthzResponse } from '../schemas/health.js'
import { countQueuedRnrMail, listHeartbeats, selectOne } from '../sql/health-queries.js'

/** AMI counts as up when logged in and a Ping was answered within this window (DECISIONS section 3). */
const AMI_PING_FRESH_MS = 30_000
const DB_CHECK_TIMEOUT_MS = 1_000
/** A dialer whose heartbeat is older than this is reported as not alive. */
const HEARTBEAT_STALE_MS = 30_000

export function amiUp(status: AmiStatus, now: Date): boolean {
  return (
    status.connected &&
    status.lastPingAt !== null &&
    now.getTime() - status.lastPingAt.getTime() <= AMI_PING_FRESH_MS
  )
}

async function checkDb(
  ctx: AppContext,
): Promise<{ ok: boolean; latencyMs: number | null; error: string | null }> {
  if (!ctx.availability.ready) {
    // Still waiting for the database at start (or for its migrations): requests get 503 until then.
    const waiting = 'not ready: waiting for the database at start'
    const last = ctx.availability.lastError
    return { ok: false, latencyMs: null, error: last ? `${waiting} (${last})` : waiting }
  }
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      selectOne(ctx.db.kysely),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${DB_CHECK_TIMEOUT_MS} ms`)),
          DB_CHECK_TIMEOUT_MS,
        )
      }),
    ])
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10, error: null }
  } catch (error) {
    ctx.availability.report(error)
    return { ok: false, latencyMs: null, error: (error as Error).message }
  } finally {
    clearTimeout(timer)
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null)

/** GET /healthz (public) and the detailed GET /health, GET /api/health (secret required). */
export function publicHealthRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          summary: 'Liveness of AMI and the database',
          security: [],
          response: { 200: HealthzResponse },
        },
      },
      async () => {
        const db = await checkDb(ctx)
        const ami = amiUp(ctx.ami.status(), ctx.now())
        return { ok: ami && db.ok, ami, db: db.ok }
      },
    )
  }
}

export function detailedHealthRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const url of ['/health', '/api/health']) {
      app.get(
        url,
        {
          schema: {
            summary: 'Detailed health',
            response: { 200: HealthResponse, 503: HealthResponse, 401: ErrorBody },
          },
        },
        async (_request, reply) => {
          const now = ctx.now()
          const db = await checkDb(ctx)
          const ami = ctx.ami.status()
          const heartbeats = db.ok ? await listHeartbeats(ctx.db.kysely) : []
          const queued = db.ok ? await countQueuedRnrMail(ctx.db.kysely) : 0
          const ok = db.ok && amiUp(ami, now)
          const body = {
            ok,
            ...(ok ? {} : { error: 'unhealthy' as const }),
            version: ctx.version,
            uptime_s: Math.floor((now.getTime() - ctx.startedAt.getTime()) / 1000),
            mode: {
              callback_mode: ctx.config.callbackMode,
              timezone: ctx.config.timezone,
              work_start: ctx.config.workStart,
              work_end: ctx.config.workEnd,
            },
            ami: {
              configured: ami.configured,
              connected: ami.connected,
              host: ami.host,
              port: ami.port,
              last_ping_ms: ami.lastPingMs,
              last_ping_at: iso(ami.lastPingAt),
              last_error: ami.lastError,
              since: iso(ami.since),
            },
            db: {
              ok: db.ok,
              dialect: ctx.db.target.dialect,
              host: ctx.db.target.host,
              database: ctx.db.target.database,
              latency_ms: db.latencyMs,
              error: db.error,
            },
            dialers: heartbeats.map((h) => ({
              ...h,
              alive: now.getTime() - fromDbTime(h.seen_at).getTime() <= HEARTBEAT_STALE_MS,
              details: h.details ? (JSON.parse(h.details) as Record<string, unknown>) : null,
            })),
            rnr_mail: { smtp_configured: Boolean(ctx.config.smtp.url), queued },
            metrics: await ctx.metrics.snapshot(),
            logs: ctx.logs.lines(),
          }
          return reply.code(ok ? 200 : 503).send(body)
        },
      )
    }
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      reply.type(ctx.metrics.registry.contentType)
      return ctx.metrics.registry.metrics()
    })
  }
}
