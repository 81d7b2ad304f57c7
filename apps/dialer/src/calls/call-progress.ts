import type { Logger } from 'pino'
import type { CallResult, TrackedCall } from './call-tracker.js'

/**
 * The steps of a call as the log shows them. The messages are grep targets: keep them stable.
 * - `customer ringing`: the customer's phone is being dialed (progressive: from the answered desk).
 * - `customer answered`: the customer picked up.
 * - `detecting`: predictive with AMD, answered; AMD() listens before the customer is queued.
 * - `answering machine`: AMD() took the answer for a machine; the dialplan hangs it up.
 * - `on hold`: predictive, answered and waiting for a free agent (again after a desk that refused).
 * - `sent to agent`: predictive, the customer redirected to an agent's desk, which now rings.
 * - `connected to agent`: the customer and the agent are bridged and talking.
 */
export type CallPhase =
  | 'customer ringing'
  | 'customer answered'
  | 'detecting'
  | 'answering machine'
  | 'on hold'
  | 'sent to agent'
  | 'connected to agent'

/** The few steps logged at info; the rest at debug. */
const INFO: ReadonlySet<CallPhase> = new Set<CallPhase>([
  'customer answered',
  'answering machine',
  'connected to agent',
])

/**
 * One log line for a step of a call: lead id, agent (extension and id), mode, the step, the time since
 * the call started and since its previous step. No phone number or name: the lead is named by its ids.
 */
export function logCallPhase(
  logger: Logger,
  call: TrackedCall,
  phase: CallPhase,
  now: Date,
  extra: Record<string, unknown> = {},
): void {
  // Once per step: a repeated event (a second DialEnd, Newstate after BridgeEnter) is not a new one.
  if (call.phase === phase) return
  const since = call.phaseAt ?? call.startedAt
  call.phase = phase
  call.phaseAt = now
  const level = INFO.has(phase) ? 'info' : 'debug'
  logger[level](
    {
      lead: call.leadId,
      oli_id: call.oliId,
      ...agentFields(call),
      mode: call.mode ?? 'progressive',
      phase,
      elapsedMs: now.getTime() - call.startedAt.getTime(),
      phaseMs: now.getTime() - since.getTime(),
      ...extra,
    },
    phase,
  )
}

function agentFields(call: TrackedCall): { agent: string | null; agentId: number | null } {
  return { agent: call.agent?.extension ?? null, agentId: call.agent?.id ?? null }
}

/**
 * The fields the `call finished` line adds: the agent, the whole call's length and how long each part
 * took, in ms. ring: start to the customer's answer (or to the end, unanswered); hold (predictive):
 * answer to the agent's answer (or to the end, never connected); talk: connected to the end.
 */
export function callDurations(call: TrackedCall, result: CallResult): Record<string, unknown> {
  const start = call.startedAt.getTime()
  const end = result.endedAt.getTime()
  const answered = call.answeredAt?.getTime()
  const connected = call.mode === 'predictive' ? call.bridgedAt?.getTime() : answered
  return {
    ...agentFields(call),
    mode: call.mode ?? 'progressive',
    phase: 'ended',
    elapsedMs: end - start,
    ringMs: (answered ?? end) - start,
    holdMs: call.mode === 'predictive' && answered !== undefined ? (connected ?? end) - answered : null,
    talkMs: connected !== undefined ? end - connected : null,
  }
}
