import { randomBytes } from 'node:crypto'
import type { AmiClient } from '@hold-dialer/ami'
import type { Logger } from 'pino'
import type { DialerMetrics } from '../metrics.js'
import type { CallStart, CallTracker } from './call-tracker.js'

/**
 * The ChannelId of a call: `hd-<lead id>-<random>`. Asterisk makes it the originated channel's
 * Uniqueid and every channel's Linkedid, so a restarted dialer finds its own calls by the prefix.
 */
export function callKeyPrefix(leadId: number): string {
  return `hd-${leadId}-`
}

export interface OriginateDeps {
  ami: AmiClient
  calls: CallTracker
  logger: Logger
  /** Originates counted by mode and result. */
  metrics?: DialerMetrics
  /** Told of each call placed: while open, the first is its try (calls/trunk-breaker.ts). */
  trunk?: { placed(key: string): void }
}

/**
 * Places one call, progressive or predictive: follows it in the tracker before the Originate is sent
 * (its first events can arrive before the reply), and tells a refusal (final: the call is settled as
 * never placed) from a timeout (the call may still have been placed: its events are awaited until
 * the originate deadline). Returns false when the Originate was not accepted.
 */
export async function originateCall(
  deps: OriginateDeps,
  start: Omit<CallStart, 'key' | 'actionId'>,
  action: (ids: { key: string; actionId: string }) => Record<string, unknown>,
  log: Record<string, unknown>,
): Promise<boolean> {
  const key = `${callKeyPrefix(start.leadId)}${randomBytes(4).toString('hex')}`
  const actionId = deps.ami.nextActionId()
  deps.calls.add({ ...start, key, actionId })
  deps.trunk?.placed(key)
  deps.logger.info({ lead: start.leadId, oli_id: start.oliId, key, ...log }, 'calling')
  try {
    await deps.ami.action(action({ key, actionId }))
    deps.metrics?.originates.inc({ mode: start.mode ?? 'progressive', result: 'accepted' })
    return true
  } catch (err) {
    const refused = (err as { reply?: unknown }).reply !== undefined
    deps.metrics?.originates.inc({
      mode: start.mode ?? 'progressive',
      result: refused ? 'refused' : 'no_reply',
    })
    deps.logger.warn({ lead: start.leadId, err, refused }, 'originate not accepted')
    if (refused) deps.calls.originateRefused(key)
    return false
  }
}
