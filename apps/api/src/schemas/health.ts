import { Type } from '@sinclair/typebox'

export const HealthzResponse = Type.Object({ ok: Type.Boolean(), ami: Type.Boolean(), db: Type.Boolean() })

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])

export const HealthResponse = Type.Object({
  ok: Type.Boolean(),
  /** Set when unhealthy (503): the spec's error bodies all carry `ok: false` and an `error` string. */
  error: Type.Optional(Type.Literal('unhealthy')),
  version: Type.String(),
  uptime_s: Type.Integer(),
  mode: Type.Object({
    callback_mode: Type.String(),
    timezone: Type.String(),
    work_start: Type.String(),
    work_end: Type.String(),
  }),
  ami: Type.Object({
    configured: Type.Boolean(),
    connected: Type.Boolean(),
    host: Nullable(Type.String()),
    port: Type.Union([Type.Integer(), Type.Null()]),
    last_ping_ms: Type.Union([Type.Number(), Type.Null()]),
    last_ping_at: Nullable(Type.String()),
    last_error: Nullable(Type.String()),
    since: Nullable(Type.String()),
  }),
  db: Type.Object({
    ok: Type.Boolean(),
    dialect: Type.String(),
    host: Type.String(),
    database: Type.String(),
    latency_ms: Type.Union([Type.Number(), Type.Null()]),
    error: Nullable(Type.String()),
  }),
  dialers: Type.Array(
    Type.Object({
      dialer_id: Type.String(),
      hostname: Type.String(),
      pid: Type.Integer(),
      dial_mode: Type.String(),
      /** The PBX the dialer serves (its PBX_NAME). */
      pbx: Type.String(),
      started_at: Type.String(),
      seen_at: Type.String(),
      alive: Type.Boolean(),
      ami_state: Type.String(),
      active_calls: Type.Integer(),
      details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    }),
  ),
  rnr_mail: Type.Object({ smtp_configured: Type.Boolean(), queued: Type.Integer() }),
  metrics: Type.Record(Type.String(), Type.Number()),
  logs: Type.Array(Type.Unknown()),
})
