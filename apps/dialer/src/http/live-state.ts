import type { AmiStatusSnapshot } from '@hold-dialer/ami'
import { fromDbTime } from '@hold-dialer/rules'
import { PANEL_FRESH_MS } from '../agents/agent-tracker.js'
import { agentWhy } from '../agents/agent-why.js'
import type { TrackedCall } from '../calls/call-tracker.js'
import type { TrunkState } from '../calls/trunk-breaker.js'
import type { IdleSnapshot } from '../idle/idle-report.js'
import type { GovernorSnapshot } from '../predictive.js'
import type { RosterRow } from '../sql/agents.js'

/** What an agent is doing, as the dialer sees it. */
export const AGENT_STATES = [
  'idle',
  'ringing',
  'talking',
  'wrap-up',
  'paused',
  'resting',
  'unavailable',
] as const
export type AgentState = (typeof AGENT_STATES)[number]

/** Where a call of this dialer is. */
export const CALL_PHASES = ['dialing', 'ringing', 'answered', 'on-hold', 'connected'] as const
export type CallPhase = (typeof CALL_PHASES)[number]

export interface LiveAgent {
  agentId: number
  extension: string
  name: string
  /** `ready`, `paused` or `offline` (the agent panel's setting). */
  presence: string
  paused: boolean
  active: boolean
  /** The desk's device state as Asterisk last reported it (NOT_INUSE, INUSE, RINGING...), if known. */
  deskState: string | null
  state: AgentState
  /** When `state` began (ms since the epoch): a call's own times where known, else when first seen. */
  since: number
  /** The lead of the call this dialer has the agent on, if any. */
  leadId: number | null
  /** Why the agent cannot be offered a call now (agents/agent-why.ts); null when they can. */
  why: string | null
}

export interface LiveCall {
  leadId: number
  agentId: number | null
  mode: 'progressive' | 'predictive'
  phase: CallPhase
  startedAt: number
  phaseSince: number
}

/** The dialer's live state as plain JSON-able data (gauges and the supervisor console read it). */
export interface LiveState {
  dialerId: string
  /** When this state was taken (ms since the epoch). */
  at: number
  dialMode: 'progressive' | 'predictive'
  ami: { connected: boolean; state: string; since: number }
  agents: LiveAgent[]
  calls: LiveCall[]
  /** Leads this dialer holds reserved for its calls in progress. */
  reservedLeads: number
  /** Predictive: lines dialed per idle agent, the abandon rate in the window and its cap; else null. */
  dialLevel: number | null
  abandonRate: number | null
  abandonRateMax: number | null
  /** The trunk breaker: `open` while customer calls cannot be placed (calls/trunk-breaker.ts). */
  trunk: TrunkState
  /** While nothing is dialed: since when and why (idle/idle-report.ts); else null. */
  idle: IdleSnapshot | null
}

/** What the dialer knows, read at the moment the state is taken. */
export interface LiveSources {
  dialerId: string
  dialMode: 'progressive' | 'predictive'
  now: Date
  roster: readonly RosterRow[]
  deskState(extension: string): string | undefined
  resting(agentId: number): boolean
  calls: readonly TrackedCall[]
  ami: AmiStatusSnapshot
  governor: GovernorSnapshot | undefined
  abandonRateMax: number
  trunk: TrunkState
  idle: IdleSnapshot | null
  /** Keeps when each agent's state and each call's phase began. */
  clock: SinceClock
}

/**
 * Remembers when each keyed state began: a state given a time of its own (a call's answer) takes
 * it; one without is dated from the first time it was seen. Keys not seen in a pass are forgotten.
 */
export class SinceClock {
  #seen = new Map<string, { state: string; since: number }>()

  /** Starts a pass: entries not touched before `end()` are dropped. */
  begin(): Map<string, { state: string; since: number }> {
    return new Map()
  }

  mark(
    pass: Map<string, { state: string; since: number }>,
    key: string,
    state: string,
    known: number | undefined,
    now: number,
  ): number {
    const prev = this.#seen.get(key)
    const since = prev && prev.state === state ? prev.since : (known ?? now)
    pass.set(key, { state, since })
    return since
  }

  end(pass: Map<string, { state: string; since: number }>): void {
    this.#seen = pass
  }
}

/** A call's phase and, where the call itself says, when it began. */
export function callPhase(call: TrackedCall): { phase: CallPhase; since: number | undefined } {
  if (call.mode === 'predictive') {
    if (call.bridgedAt) return { phase: 'connected', since: call.bridgedAt.getTime() }
    if (call.answeredAt) {
      // Sent to an agent whose desk is ringing, or waiting for one.
      return call.redirected
        ? { phase: 'answered', since: undefined }
        : { phase: 'on-hold', since: call.answeredAt.getTime() }
    }
  } else if (call.answeredAt) {
    // Progressive: the agent's desk answered first, so an answered customer is talking to the agent.
    return { phase: 'connected', since: call.answeredAt.getTime() }
  }
  if (call.legs.size === 0 && !call.originateResponse)
    return { phase: 'dialing', since: call.startedAt.getTime() }
  return { phase: 'ringing', since: undefined }
}

/**
 * The agent's state: on a call of this dialer (ringing until the customer and agent are connected),
 * then presence, then held by another dialer, resting, wrap-up, the desk's state.
 */
function agentState(
  r: RosterRow,
  call: { phase: CallPhase; since: number | undefined } | undefined,
  s: LiveSources,
): { state: AgentState; since: number | undefined } {
  const now = s.now.getTime()
  if (call) return { state: call.phase === 'connected' ? 'talking' : 'ringing', since: call.since }
  if (r.is_active !== 1 || r.presence === 'offline') return { state: 'unavailable', since: undefined }
  if (!r.panel_seen_at || now - fromDbTime(r.panel_seen_at).getTime() > PANEL_FRESH_MS) {
    return { state: 'unavailable', since: undefined }
  }
  if (r.presence === 'paused') return { state: 'paused', since: undefined }
  // Held on a call by another dialer.
  if (r.on_call_by !== null && r.on_call_by !== s.dialerId) return { state: 'talking', since: undefined }
  if (s.resting(r.id)) return { state: 'resting', since: undefined }
  if (r.wrap_until && fromDbTime(r.wrap_until).getTime() > now) return { state: 'wrap-up', since: undefined }
  const desk = r.extension ? s.deskState(r.extension) : undefined
  if (desk === 'NOT_INUSE') return { state: 'idle', since: undefined }
  if (desk === 'RINGING' || desk === 'RINGINUSE') return { state: 'ringing', since: undefined }
  if (desk === 'INUSE' || desk === 'BUSY' || desk === 'ONHOLD') return { state: 'talking', since: undefined }
  return { state: 'unavailable', since: undefined }
}

/** The live state from what the dialer knows now. No I/O: cheap enough for every scrape. */
export function liveState(s: LiveSources): LiveState {
  const now = s.now.getTime()
  const pass = s.clock.begin()
  const calls: LiveCall[] = []
  const byAgent = new Map<number, { leadId: number; phase: CallPhase; since: number | undefined }>()
  for (const call of s.calls) {
    const p = callPhase(call)
    const phaseSince = s.clock.mark(pass, `call:${call.key}`, p.phase, p.since, now)
    calls.push({
      leadId: call.leadId,
      agentId: call.agent?.id ?? null,
      mode: call.mode ?? 'progressive',
      phase: p.phase,
      startedAt: call.startedAt.getTime(),
      phaseSince,
    })
    if (call.agent) byAgent.set(call.agent.id, { leadId: call.leadId, phase: p.phase, since: phaseSince })
  }
  const agents: LiveAgent[] = []
  const why = { now: s.now, busyHere: new Set(byAgent.keys()), deskState: s.deskState, resting: s.resting }
  for (const r of s.roster) {
    if (!r.extension) continue
    const call = byAgent.get(r.id)
    const a = agentState(r, call, s)
    agents.push({
      agentId: r.id,
      extension: r.extension,
      name: r.name,
      presence: r.presence,
      paused: r.presence === 'paused',
      active: r.is_active === 1,
      deskState: s.deskState(r.extension) ?? null,
      state: a.state,
      since: s.clock.mark(pass, `agent:${r.id}`, a.state, a.since, now),
      leadId: call?.leadId ?? null,
      why: agentWhy(r, why) ?? null,
    })
  }
  s.clock.end(pass)
  const predictive = s.dialMode === 'predictive'
  return {
    dialerId: s.dialerId,
    at: now,
    dialMode: s.dialMode,
    ami: { connected: s.ami.state === 'connected', state: s.ami.state, since: s.ami.since.getTime() },
    agents,
    calls,
    reservedLeads: new Set(s.calls.map((c) => c.leadId)).size,
    dialLevel: predictive ? (s.governor?.dialLevel ?? 1) : null,
    abandonRate: predictive ? (s.governor?.rate ?? 0) : null,
    abandonRateMax: predictive ? s.abandonRateMax : null,
    trunk: s.trunk,
    idle: s.idle,
  }
}
