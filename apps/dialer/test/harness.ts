import { AmiClient } from '@hold-dialer/ami'
import { ApiMetrics, buildApp, notConfiguredAmi, WarnLogBuffer } from '@hold-dialer/api'
import type { Database } from '@hold-dialer/db'
import { middayZone, type TestDatabase } from '@hold-dialer/db/testing'
import { type CustomerScript, type PbxSim, startPbxSim } from '@hold-dialer/pbx-sim'
import { type Config, internationalForm, parseConfig, toDbTime } from '@hold-dialer/rules'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import pino, { type Logger } from 'pino'
import type { Test } from 'tap'
import { Dialer, type DialerTiming } from '../src/dialer.js'
import type { DialerMetrics } from '../src/metrics.js'

export const SECRET = 'dialer-test-secret'

/** The dialer, the API and a fresh database, pointed at some AMI server (pbx-sim or a real Asterisk). */
export interface Rig {
  api: FastifyInstance
  config: Config
  database: TestDatabase
  dialer: Dialer
  ami: AmiClient
  clock: { now: () => Date; set(iso: string): void; real: boolean }
  /** Moves the fixed clock and keeps every agent's panel fresh at the new time. */
  setClock(iso: string): Promise<void>
  push(lead: Record<string, unknown> | Record<string, unknown>[]): Promise<void>
  /** An agent row (ready, panel fresh); the desk itself is the PBX's business. */
  insertAgent(extension: string, fields?: Record<string, unknown>): Promise<number>
  lead(oliId: string): Promise<Record<string, unknown> | undefined>
  attempts(oliId: string): Promise<Record<string, unknown>[]>
  /** Polls `check` until it holds; the 300 s default is a safety net, never a speed limit. */
  until(what: string, check: () => Promise<boolean> | boolean, timeoutMs?: number): Promise<void>
  startDialer(): Promise<void>
  stopDialer(): Promise<void>
  /**
   * Drops this dialer as a crash would (calls left live and unsettled, its reservations kept) and
   * starts a new one with the same DIALER_ID; `dialer` and `ami` are the new ones.
   */
  restartDialer(): Promise<void>
}

export interface RigOptions {
  env?: Record<string, string>
  /**
   * Fixed clock for working-hours tests (ISO); default the real clock. On the fixed clock TIMEZONE is
   * UTC; on the real one it is `middayZone` of the moment the rig starts (11:00-12:00 there), so the
   * open-all-day window and the retry days do not depend on when the suite runs (docs/testing.md).
   */
  now?: string
  timing?: Partial<DialerTiming>
  startDialer?: boolean
  /** The dialer's logger (default: silent, or TEST_LOG_LEVEL). */
  logger?: Logger
  /** The dialer's metrics (default: its own, without the process defaults). */
  metrics?: DialerMetrics
  /** DIALER_ID (default `dialer-test`): two rigs on one database need two. */
  dialerId?: string
}

export interface AmiTarget {
  port: number
  username: string
  secret: string
}

/** The real dialer and API on a fresh database, talking AMI to `target` over TCP. */
export async function rig(
  t: Test,
  database: TestDatabase,
  target: AmiTarget,
  options: RigOptions = {},
): Promise<Rig> {
  const config = parseConfig(
    {
      DATABASE_URL: database.url,
      WS_SECRET: SECRET,
      TIMEZONE: options.now ? 'UTC' : middayZone(new Date()),
      WORK_START: '00:00',
      WORK_END: '23:59',
      // Numbers are dialed at any hour here: the customers' calling hours are off too.
      CALLING_HOURS: 'off',
      WRAP_SECONDS: '0',
      AMI_HOST: '127.0.0.1',
      AMI_PORT: String(target.port),
      AMI_USERNAME: target.username,
      AMI_SECRET: target.secret,
      RING_TIMEOUT_SECONDS: '30',
      ...options.env,
    },
    { hostZone: 'UTC' },
  )
  let fixed = options.now ? new Date(options.now) : undefined
  const clock = {
    now: () => (fixed ? new Date(fixed) : new Date()),
    set: (iso: string) => {
      fixed = new Date(iso)
    },
    get real() {
      return fixed === undefined
    },
  }
  const api = await buildApp({
    config,
    db: database.handle,
    ami: notConfiguredAmi(),
    metrics: new ApiMetrics(),
    logs: new WarnLogBuffer(),
    now: clock.now,
    version: 'test',
    startedAt: new Date(),
  })
  t.teardown(() => api.close())
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' })
  const connect = () => {
    const ami = new AmiClient({
      host: '127.0.0.1',
      port: target.port,
      username: target.username,
      secret: target.secret,
      events: true,
      reconnectBaseMs: 20,
      reconnectMaxMs: 200,
    })
    const dialer = new Dialer({
      config,
      db: database.handle,
      ami,
      logger,
      dialerId: options.dialerId ?? 'dialer-test',
      hostname: 'test-host',
      now: clock.now,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      timing: {
        claimIdleMs: 30,
        rosterMs: 50,
        staleMs: 200,
        expireMs: 50,
        settleRetryMs: 100,
        zonesMs: 50,
        ...options.timing,
      },
    })
    return { ami, dialer }
  }
  const { ami, dialer } = connect()
  let running = false
  const r: Rig = {
    api,
    config,
    database,
    dialer,
    ami,
    clock,
    async setClock(iso) {
      clock.set(iso)
      await database.handle.kysely
        .updateTable('dialer_employee')
        .set({ panel_seen_at: toDbTime(clock.now()) })
        .execute()
    },
    async push(lead) {
      const payload = Array.isArray(lead) ? { leads: lead } : lead
      const res = await api.inject({
        method: 'POST',
        url: '/api/leads',
        headers: { 'x-api-key': SECRET },
        payload,
      })
      if (res.statusCode !== 201) throw new Error(`push failed: ${res.statusCode} ${res.body}`)
    },
    async insertAgent(extension, fields = {}) {
      const row = await database.handle.kysely
        .insertInto('dialer_employee')
        .values({
          name: `Agent ${extension}`,
          extension,
          email: `${extension}@example.test`,
          presence: 'ready',
          panel_seen_at: toDbTime(clock.now()),
          wrap_until: null,
          ...fields,
        })
        .executeTakeFirstOrThrow()
      return Number(row.insertId)
    },
    async lead(oliId) {
      return database.handle.kysely
        .selectFrom('hold_dialer_master_data')
        .selectAll()
        .where('oli_id', '=', oliId)
        .executeTakeFirst()
    },
    async attempts(oliId) {
      return database.handle.kysely
        .selectFrom('hold_dialer_call_attempts')
        .selectAll()
        .where('oli_id', '=', oliId)
        .orderBy('id')
        .execute()
    },
    async until(what, check, timeoutMs = 300_000) {
      const end = Date.now() + timeoutMs
      while (Date.now() < end) {
        if (await check()) return
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error(`timed out waiting for: ${what}`)
    },
    async startDialer() {
      running = true
      await r.dialer.start()
      await r.ami.start()
    },
    async stopDialer() {
      if (!running) return
      running = false
      await r.dialer.stop(2000)
      await r.ami.close()
    },
    async restartDialer() {
      if (running) {
        running = false
        await r.dialer.stop(0)
        await r.ami.close()
      }
      Object.assign(r, connect())
      await r.startDialer()
    },
  }
  t.teardown(() => r.stopDialer())
  if (options.startDialer !== false) await r.startDialer()
  return r
}

export interface Harness extends Rig {
  sim: PbxSim
  /** An agent row plus its desk on pbx-sim. */
  addAgent(extension: string, fields?: Record<string, unknown>): Promise<number>
}

export interface HarnessOptions extends RigOptions {
  timeScale?: number
  defaultOutcome?: CustomerScript
}

/** The real dialer against pbx-sim over TCP, leads pushed through the real API, on a fresh database. */
export async function harness(
  t: Test,
  database: TestDatabase,
  options: HarnessOptions = {},
): Promise<Harness> {
  const sim = await startPbxSim({
    port: 0,
    users: { dialer: 'dialer-pass' },
    timeScale: options.timeScale ?? 50,
    defaultOutcome: options.defaultOutcome ?? { kind: 'answer', ringSeconds: 2, talkSeconds: 5 },
    agentAnswerSeconds: 1,
  })
  t.teardown(() => sim.close())
  const r = await rig(t, database, { port: sim.port, username: 'dialer', secret: 'dialer-pass' }, options)
  return Object.assign(r, {
    sim,
    async addAgent(extension: string, fields: Record<string, unknown> = {}) {
      sim.addAgent(extension)
      return r.insertAgent(extension, fields)
    },
  })
}

/** A valid lead for the push API. */
export function lead(
  oliId: string,
  phone: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    oli_id: oliId,
    phone_number: phone,
    client_name: `Client ${oliId}`,
    form_type: 'hold',
    priority_id: 1,
    ...overrides,
  }
}

/**
 * Lists a person on the do-not-call list as `pnpm dnc add` does, written as `raw` in a `country`
 * centre: the international digits as the key, and the international form.
 */
export async function listPerson(db: Kysely<Database>, raw: string, country = 'US'): Promise<void> {
  const e164 = internationalForm(raw, country)
  await db
    .insertInto('hold_dialer_dnc')
    .values({ digits: e164.slice(1), e164, source: 'test', added_at: toDbTime(new Date()), expires_at: null })
    .execute()
}

/** A logger that keeps every line it writes (level debug), for tests that check what was logged. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  )
  return { logger, lines }
}
