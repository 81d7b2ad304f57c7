import { fromDbTime } from '@hold-dialer/rules'
import type { RosterRow } from '../sql/agents.js'
import { agentWhy, PANEL_FRESH_MS } from './agent-why.js'

export { PANEL_FRESH_MS }

/**
 * An agent whose desk did not take a call (progressive: the Originate to the desk failed; predictive:
 * the desk was busy or did not answer a waiting customer) is not offered another for this long.
 */
export const AGENT_REST_MS = 10_000

export interface Agent {
  id: number
  name: string
  extension: string
  email: string | null
}

/**
 * Who can take a call now. Readiness comes from `dialer_employee` (refreshed by polling), the desk's
 * device state from AMI DeviceStateChange events (and a DeviceStateList at each login). An agent is
 * available when active, panel-active, presence ready, device idle, wrap-up over, and not held on a
 * call by any dialer.
 */
export class AgentTracker {
  #roster: RosterRow[] = []
  /** Agents resting after their desk failed a call, until a `performance.now()` time. */
  readonly #resting = new Map<number, number>()

  /**
   * `deskState`: the desk's state as Asterisk last reported it (DeskStates.state). `restMs`: how long
   * an agent whose desk refused a call is left out (AGENT_REST_MS).
   */
  constructor(
    private readonly deskState: (extension: string) => string | undefined,
    private readonly restMs = AGENT_REST_MS,
  ) {}

  setRoster(rows: RosterRow[]): void {
    this.#roster = rows
  }

  /** The roster as last read (read-only: the live state). */
  roster(): readonly RosterRow[] {
    return this.#roster
  }

  deviceState(extension: string): string | undefined {
    return this.deskState(extension)
  }

  /**
   * The agent's desk just refused or missed a call (busy, no answer): not offered another for a while.
   * A desk that reports itself idle while refusing (Busy(), DND, a phone off the hook) would otherwise
   * be rung again at every claim or bridging pass, and a waiting customer sent to it over and over.
   * Real time, not the dialer's clock: it is about the desk, not working hours.
   */
  rest(agentId: number): void {
    this.#resting.set(agentId, performance.now() + this.restMs)
  }

  resting(agentId: number): boolean {
    const until = this.#resting.get(agentId)
    if (until === undefined) return false
    if (until > performance.now()) return true
    this.#resting.delete(agentId)
    return false
  }

  available(now: Date, busyHere: ReadonlySet<number>): Agent[] {
    const sources = this.#whySources(now, busyHere)
    const out: Agent[] = []
    for (const r of this.#roster) {
      if (r.extension && agentWhy(r, sources) === undefined) {
        out.push({ id: r.id, name: r.name, extension: r.extension, email: r.email })
      }
    }
    return out
  }

  /** Each agent on the roster who cannot be offered a call now, and why (agent-why.ts). */
  unavailable(
    now: Date,
    busyHere: ReadonlySet<number>,
  ): Array<{ extension: string; name: string; why: string }> {
    const sources = this.#whySources(now, busyHere)
    return this.#roster.flatMap((r) => {
      const why = agentWhy(r, sources)
      return why === undefined ? [] : [{ extension: r.extension ?? '-', name: r.name, why }]
    })
  }

  #whySources(now: Date, busyHere: ReadonlySet<number>) {
    return {
      now,
      busyHere,
      deskState: (extension: string) => this.deviceState(extension),
      resting: (agentId: number) => this.resting(agentId),
    }
  }

  /** Every agent on the roster with an extension, ready or not. */
  all(): Agent[] {
    return this.#roster.flatMap((r) =>
      r.extension ? [{ id: r.id, name: r.name, extension: r.extension, email: r.email }] : [],
    )
  }

  /** Extensions of the active agents: the desks whose state the dialer needs. */
  activeExtensions(): string[] {
    return this.#roster.flatMap((r) => (r.extension && r.is_active === 1 ? [r.extension] : []))
  }

  /** Agents who would be available but for a wrap-up that ends within `withinMs`. */
  soonFree(now: Date, busyHere: ReadonlySet<number>, withinMs: number): number {
    return this.wrapRemaining(now, busyHere).filter((ms) => ms <= withinMs).length
  }

  /**
   * For each ready agent in wrap-up (not on a call, desk idle, panel fresh): milliseconds until the
   * wrap-up ends. The predictive forecast weighs each by the chance a customer dialed now answers after it.
   */
  wrapRemaining(now: Date, busyHere: ReadonlySet<number>): number[] {
    const t = now.getTime()
    const out: number[] = []
    for (const r of this.#roster) {
      if (!r.extension || r.is_active !== 1 || r.presence !== 'ready') continue
      if (r.on_call_by !== null || busyHere.has(r.id) || !r.wrap_until) continue
      if (!r.panel_seen_at || t - fromDbTime(r.panel_seen_at).getTime() > PANEL_FRESH_MS) continue
      const ends = fromDbTime(r.wrap_until).getTime()
      if (ends > t && this.deviceState(r.extension) === 'NOT_INUSE') out.push(ends - t)
    }
    return out
  }

  /** Agents logged in (active, panel fresh) and ready, whether idle or on a call. */
  readyCount(now: Date): number {
    return this.#roster.filter(
      (r) =>
        r.extension &&
        r.is_active === 1 &&
        r.presence === 'ready' &&
        r.panel_seen_at !== null &&
        now.getTime() - fromDbTime(r.panel_seen_at).getTime() <= PANEL_FRESH_MS,
    ).length
  }

  byId(id: number): Agent | undefined {
    const r = this.#roster.find((x) => x.id === id)
    return r?.extension ? { id: r.id, name: r.name, extension: r.extension, email: r.email } : undefined
  }
}
