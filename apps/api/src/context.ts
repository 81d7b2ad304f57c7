import type { DatabaseAvailability, Db } from '@hold-dialer/db'
import type { Config } from '@hold-dialer/rules'
import type { WarnLogBuffer } from './log-buffer.js'
import type { ApiMetrics } from './metrics.js'
import type { LeadWriter } from './services/lead-writer.js'

/** What the API reports about its own AMI connection (it keeps one for health only; it never dials). */
export interface AmiStatus {
  configured: boolean
  connected: boolean
  host: string | null
  port: number | null
  /** Round trip of the last answered Ping, ms. */
  lastPingMs: number | null
  lastPingAt: Date | null
  lastError: string | null
  /** When the current state (connected or not) began. */
  since: Date | null
}

export interface AmiStatusSource {
  status(): AmiStatus
  close(): Promise<void>
}

/** Everything the routes need, built once by the process (or by a test) and passed to `buildApp`. */
export interface ApiContext {
  config: Config
  db: Db
  /**
   * Whether the database can be used: ready (migrated) at start, reachable since. Without one,
   * `buildApp` takes the database as migrated and answering (a program that embeds the API).
   */
  availability?: DatabaseAvailability
  ami: AmiStatusSource
  metrics: ApiMetrics
  logs: WarnLogBuffer
  now: () => Date
  version: string
  startedAt: Date
}

/**
 * The context the routes get: `availability` always there, and the app's one writer of pushed leads
 * (its single-lead group commit), built with the app.
 */
export type AppContext = ApiContext & { availability: DatabaseAvailability; leads: LeadWriter }
