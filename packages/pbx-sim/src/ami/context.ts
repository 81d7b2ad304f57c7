import type { Logger } from 'pino'
import type { Faults } from '../faults.js'
import type { PbxCore } from '../pbx/engine.js'
import type { AmiMessage } from '../wire/message.js'
import type { AmiSession } from './session.js'

/** What action handlers can reach. */
export interface AmiContext {
  core: PbxCore
  users: ReadonlyMap<string, string>
  amiVersion: string
  faults: Faults
  logger: Logger
  authFailureDelayMs: number
  /** Simulated epoch ms the switch "booted", for FullyBooted's Uptime. */
  bootedAt: number
  counters: { originates: number }
}

export type ActionHandler = (session: AmiSession, msg: AmiMessage, ctx: AmiContext) => void | Promise<void>

/** ast_true(): the values Asterisk reads as yes. */
export function isTrue(value: string | undefined): boolean {
  return value !== undefined && /^(yes|true|y|t|1|on)$/i.test(value.trim())
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
