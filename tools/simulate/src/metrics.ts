import type { CallRecord } from '@hold-dialer/pbx-sim'

export type Mode = 'progressive' | 'predictive'

export interface ModeResult {
  mode: Mode
  talkMinutesPerAgentHour: number
  /** Talk minutes per agent-hour as a share of the physical ceiling (`physicalCeiling`). */
  ceilingShare: number
  idleShare: number
  abandonRate: number
  abandonRateAfterShift: number
  answered: number
  abandoned: number
  callsPerHour: number
  leadsFinished: number
  /** Leads on master or archived at the end: must equal the leads seeded. */
  leadsAccounted: number
  /** Leads still reserved after the dialer stopped with its calls settled. */
  leadsStillReserved: number
  /** Most calls to one number at the same time: must be 1. */
  worstConcurrency: number
  samples: Sample[]
}

export interface Sample {
  /** Simulated minutes since the start. */
  minute: number
  dialLevel: number
  /** Abandon rate so far. */
  abandonRate: number
  /** Share of agents on a call this moment. */
  occupancy: number
}

/**
 * Figures from the simulator's call log (simulated milliseconds), so both modes are measured the same
 * way. Talk time is an agent and a customer bridged; an agent is busy from its leg's start (its desk
 * rings) to the call's end plus wrap-up after a conversation; a call answered by a customer counts as
 * abandoned unless an agent joined within the compliance time.
 */
export function summarise(
  calls: readonly CallRecord[],
  o: { start: number; end: number; shiftAt: number; agents: number; wrapMs: number; complianceMs: number },
) {
  const hours = (o.end - o.start) / 3_600_000
  let talk = 0
  let busy = 0
  let answered = 0
  let abandoned = 0
  let answeredAfter = 0
  let abandonedAfter = 0
  for (const c of calls) {
    if (c.startedAt >= o.end) continue
    const ended = Math.min(c.endedAt ?? o.end, o.end)
    if (c.bridgedAt !== null && c.bridgedAt < o.end) talk += ended - c.bridgedAt
    if (c.agentExtension) {
      // Progressive: the agent's desk is rung first; predictive: the agent joins at the bridge.
      const from = c.mode === 'progressive' ? c.startedAt : (c.bridgedAt ?? ended)
      busy += Math.max(0, ended - from) + (c.bridgedAt !== null ? o.wrapMs : 0)
    }
    if (c.answeredAt !== null && c.answeredAt < o.end) {
      const inTime = c.bridgedAt !== null && c.bridgedAt - c.answeredAt <= o.complianceMs
      answered += 1
      if (!inTime) abandoned += 1
      if (c.answeredAt >= o.shiftAt) {
        answeredAfter += 1
        if (!inTime) abandonedAfter += 1
      }
    }
  }
  const originated = calls.filter((c) => c.startedAt < o.end).length
  return {
    talkMinutesPerAgentHour: talk / 60_000 / (o.agents * hours),
    idleShare: Math.max(0, 1 - busy / (o.agents * (o.end - o.start))),
    abandonRate: answered === 0 ? 0 : abandoned / answered,
    abandonRateAfterShift: answeredAfter === 0 ? 0 : abandonedAfter / answeredAfter,
    answered,
    abandoned,
    callsPerHour: originated / hours,
  }
}

/**
 * Talk minutes per agent-hour of an agent who is never idle: every call is talk then wrap-up, so at
 * most talk / (talk + wrap-up) x 60, whatever the dialer (55.4 at 180 s and 15 s).
 */
export function physicalCeiling(p: { talkMeanSeconds: number; wrapSeconds: number }): number {
  const call = p.talkMeanSeconds + p.wrapSeconds
  return call <= 0 ? 0 : (p.talkMeanSeconds / call) * 60
}

/** How a mode is doing so far, reported while it runs. */
export interface Progress {
  mode: Mode
  /** Simulated minutes since the start of the shift. */
  minute: number
  /** Calls originated so far. */
  calls: number
  /** Calls answered more than COMPLIANCE_SECONDS ago (for later ones it is not known yet if they are abandoned). */
  answered: number
  abandoned: number
  /** Abandoned / answered (0 before the first answer). */
  abandonRate: number
}

export const pct = (x: number) => `${(x * 100).toFixed(2)}%`

/** `predictive: minute 15 of 60, 212 calls, 61 answered, abandon rate so far 1.64% (1 abandoned)` */
export function progressLine(s: Progress, ofMinutes: number): string {
  return `${s.mode}: minute ${Math.floor(s.minute)} of ${ofMinutes}, ${s.calls} calls, ${s.answered} answered, abandon rate so far ${pct(s.abandonRate)} (${s.abandoned} abandoned)`
}
