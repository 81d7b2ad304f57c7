import { DatabaseAvailability } from '@hold-dialer/db'
import type { TestDatabase } from '@hold-dialer/db/testing'
import { type Config, parseConfig } from '@hold-dialer/rules'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Redis } from 'ioredis'
import type { Test } from 'tap'
import { notConfiguredAmi } from '../src/ami-status.js'
import { buildApp } from '../src/app.js'
import type { AmiStatusSource, ApiContext } from '../src/context.js'
import { WarnLogBuffer } from '../src/log-buffer.js'
import { ApiMetrics } from '../src/metrics.js'

export const SECRET = 'test-secret-42'
export const AUTH = { authorization: `Bearer ${SECRET}` }

/** A settable clock: tests move time instead of sleeping. */
export class TestClock {
  constructor(public current: Date) {}
  now = (): Date => new Date(this.current)
  set(iso: string): void {
    this.current = new Date(iso)
  }
}

export interface ApiFixture {
  app: FastifyInstance
  ctx: ApiContext
  config: Config
  clock: TestClock
  database: TestDatabase
  /** `app.inject` with the secret header added unless `headers` says otherwise. */
  call(options: InjectOptions & { auth?: boolean }): Promise<LightMyRequestResponse>
  push(body: unknown): Promise<LightMyRequestResponse>
}

/** Inside working hours (09:00-18:00 Asia/Kolkata) on a plain weekday. */
export const IN_HOURS = '2026-11-23T06:00:00.000Z' // 11:30 IST
export const AFTER_HOURS = '2026-11-23T14:00:00.000Z' // 19:30 IST

export async function apiFixture(
  t: Test,
  database: TestDatabase,
  options: {
    env?: Record<string, string>
    ami?: AmiStatusSource
    redis?: Redis
    now?: string
    /** A database watch of the test's own (one not started: the database not ready yet). */
    availability?: DatabaseAvailability
    requestTimeoutMs?: number
  } = {},
): Promise<ApiFixture> {
  const config = parseConfig(
    {
      DATABASE_URL: database.url,
      WS_SECRET: SECRET,
      TIMEZONE: 'Asia/Kolkata',
      WORK_START: '09:00',
      WORK_END: '18:00',
      ...options.env,
    },
    { hostZone: 'UTC' },
  )
  const clock = new TestClock(new Date(options.now ?? IN_HOURS))
  let availability = options.availability
  if (!availability) {
    // The test database is migrated already; this only finds it answering.
    availability = new DatabaseAvailability({ db: database.handle, log: silentLog, migrate: false })
    await availability.start()
  }
  t.teardown(() => availability.close())
  const ctx: ApiContext = {
    config,
    db: database.handle,
    availability,
    ami: options.ami ?? notConfiguredAmi(),
    metrics: new ApiMetrics(),
    logs: new WarnLogBuffer(50),
    now: clock.now,
    version: '0.0.0-test',
    startedAt: clock.now(),
  }
  const app = await buildApp(ctx, {
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  })
  t.teardown(() => app.close())
  const call = (o: InjectOptions & { auth?: boolean }) => {
    const { auth, ...rest } = o
    const headers = { ...(auth === false ? {} : AUTH), ...(rest.headers ?? {}) }
    return app.inject({ ...rest, headers })
  }
  return {
    app,
    ctx,
    config,
    clock,
    database,
    call,
    push: (body) => call({ method: 'POST', url: '/api/leads', payload: body as InjectOptions['payload'] }),
  }
}

/** For database watches whose lines a test does not read. */
export const silentLog = { info: () => {}, warn: () => {} }

let seq = 0
/** A valid pool-mode lead; override any field. */
export function lead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq += 1
  return {
    oli_id: `OLI-${seq}`,
    phone_number: '+91 98765-43210',
    client_name: `Client ${seq}`,
    form_type: 'hold',
    priority_id: 1,
    ...overrides,
  }
}

export async function masterRow(fx: ApiFixture, oliId: string) {
  return fx.database.handle.kysely
    .selectFrom('hold_dialer_master_data')
    .selectAll()
    .where('oli_id', '=', oliId)
    .executeTakeFirst()
}
