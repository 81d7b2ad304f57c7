import type { AmiClient } from '@hold-dialer/ami'
import type { Logger } from 'pino'
import type { DialerMetrics } from '../metrics.js'
import { callKey } from './call-key.js'
import type { CallStart, CallTracker } from './call-tracker.js'

export interface OriginateDeps {
  ami: AmiClient
  calls: CallTracker
  logger: Logger
  /** Originates counted by mode and result. */
  metrics?: DialerMetrics
  /** Told of each call placed: while open, the first is its try (calls/trunk-breaker.ts). */
  trunk?: { placed(key: string): void }
  /** Asked before a call whose claim is older than CLAIM_RECHECK_MS: is the lead still held under it? */
  fence?: { now(): Date; held(leadId: number, token: string): Promise<boolean> }
}

/**
 * A claim older than this when its call is about to be placed (the dialer was paused, or the
 * database slow) is checked again first: meanwhile another dialer may have released it as stale and
 * dialed the lead, and the customer must not be rung twice at once.
 */
export const CLAIM_RECHECK_MS = 2000

/**
 * Places one call, progressive or predictive, named after its claim (calls/call-key.ts): follows it
 * in the tracker before the Originate is sent (its first events can arrive before the reply), and
 * tells a refusal (final: the call is settled as never placed) from a timeout (the call may still
 * have been placed: its events are awaited until the originate deadline). Returns false when the
 * Originate was not accepted.
 */
export async function originateCall(
  deps: OriginateDeps,
  start: Omit<CallStart, 'key' | 'actionId'> & { claimToken: string },
  action: (ids: { key: string; actionId: string }) => Record<string, unknown>,
  log: Record<string, unknown>,
): Promise<boolean> {
  const { claimToken, ...call } = start
  const key = callKey(start.leadId, claimToken)
  const actionId = deps.ami.nextActionId()
  // Followed from here on, so the lead and its agent count as busy while the claim is checked.
  deps.calls.add({ ...call, key, actionId })
  const stale = deps.fence && deps.fence.now().getTime() - start.startedAt.getTime() > CLAIM_RECHECK_MS
  if (stale && !(await deps.fence?.held(start.leadId, claimToken))) {
    deps.logger.warn(
      { lead: start.leadId, key },
      'not dialed: the claim was lost before its call was placed (the lead was released and claimed again)',
    )
    // Settled as never placed: the settle finds the lead no longer held, writes nothing to it and
    // frees the agent the claim took.
    deps.calls.originateRefused(key, 'claim lost before the call was placed')
    return false
  }
  deps.trunk?.placed(key)
  deps.logger.info({ lead: start.leadId, oli_id: start.oliId, key, ...log }, 'calling')
  try {
    await deps.ami.action(action({ key, actionId }))
    deps.metrics?.originates.inc({ mode: start.mode ?? 'progressive', result: 'accepted' })
    return true
  } catch (err) {
    // Refused by the PBX, or never sent (the AMI was down): nothing was placed, and the call is
    // settled at once. A timeout is not final: the Originate may have been placed.
    const e = err as { reply?: unknown; notSent?: boolean }
    const refused = e.reply !== undefined || e.notSent === true
    deps.metrics?.originates.inc({
      mode: start.mode ?? 'progressive',
      result: refused ? 'refused' : 'no_reply',
    })
    deps.logger.warn({ lead: start.leadId, err, refused }, 'originate not accepted')
    if (refused) {
      deps.calls.originateRefused(
        key,
        e.notSent ? 'Originate not sent: the AMI was not connected' : undefined,
      )
    }
    return false
  }
}
