import { fromDbTime } from '@hold-dialer/rules'
import type { RosterRow } from '../sql/agents.js'

/** An agent's panel must have been seen within this window to count as present (DECISIONS section 5). */
export const PANEL_FRESH_MS = 30_000

/** What `agentWhy` reads besides the roster row. */
export interface AgentWhySources {
  now: Date
  /** Agents this dialer has on a call. */
  busyHere: ReadonlySet<number>
  /** The desk's state as Asterisk last reported it (DeskStates.state). */
  deskState(extension: string): string | undefined
  /** Whether the agent rests after their desk refused a call (AgentTracker.rest). */
  resting(agentId: number): boolean
}

/**
 * Why an agent cannot be offered a call now, in the operator's words, or undefined when they can: the
 * one rule for both, so the claim and "why is nothing dialed" never disagree. An agent is available
 * when they have a desk, are active, ready on the agent panel, their panel was seen within
 * PANEL_FRESH_MS, no dialer holds them on a call, they are not resting or in wrap-up, and Asterisk
 * reports their desk idle (NOT_INUSE).
 */
export function agentWhy(r: RosterRow, s: AgentWhySources): string | undefined {
  if (!r.extension) return 'no desk extension'
  if (r.is_active !== 1) return 'deactivated'
  if (r.presence !== 'ready') return `${r.presence} on the agent panel`
  const t = s.now.getTime()
  if (!r.panel_seen_at) return 'agent panel never seen'
  const unseen = t - fromDbTime(r.panel_seen_at).getTime()
  if (unseen > PANEL_FRESH_MS) return `agent panel not seen for ${Math.round(unseen / 1000)} s`
  if (r.on_call_by !== null || s.busyHere.has(r.id)) return 'on a call'
  if (s.resting(r.id)) return 'resting after their desk refused a call'
  if (r.wrap_until && fromDbTime(r.wrap_until).getTime() > t) {
    return `in wrap-up for ${Math.ceil((fromDbTime(r.wrap_until).getTime() - t) / 1000)} s more`
  }
  const desk = s.deskState(r.extension)
  if (desk === 'NOT_INUSE') return undefined
  if (desk === undefined) return 'desk state not reported by Asterisk yet'
  if (desk === 'UNKNOWN' || desk === 'INVALID') {
    return 'Asterisk does not know this desk (check AGENT_DEVICE_TEMPLATE)'
  }
  if (desk === 'UNAVAILABLE') return 'desk unavailable (its phone is not registered)'
  return `desk ${desk}`
}
