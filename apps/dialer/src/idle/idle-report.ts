// "Why is nothing dialed?": when a claim round places no call and none is in progress, the dialer
// works out why, in the operator's words, logs it at info once per change, and shows it in /healthz
// and on the supervisor console. A trial whose lead's customer is past their calling hours, a desk
// Asterisk does not know, a paused agent: each is said once, with what would change it.

/** Each reason a dialer places no call. */
export type IdleCode =
  | 'ami-down'
  | 'database-down'
  | 'syncing'
  | 'trunk-open'
  | 'no-agent-ready'
  | 'outside-working-hours'
  | 'leads-outside-customer-hours'
  | 'leads-held-back'
  | 'no-lead-due'

export interface IdleReason {
  code: IdleCode
  /** The reason as one line, for the log, /healthz and the console. */
  text: string
  /** `no-agent-ready`: every agent on the roster and why they cannot take a call. */
  agents?: Array<{ extension: string; name: string; why: string }>
  /** The lead reasons: how many leads the reason holds back. */
  leads?: number
  /** `leads-outside-customer-hours`: when the first of them may be called (ISO), if ever. */
  nextAt?: string | null
}

/** Leads due now as the claim sees them, when agents are ready and it found none. */
export interface DueLeads {
  /** Due and within their customers' calling hours (or no calling hours are set). */
  callable: number
  /** Due but outside their customers' calling hours. */
  waiting: number
  /** The first moment one of `waiting` may be called; null when none can be (or none wait). */
  nextAt: Date | null
}

export interface IdleInputs {
  amiConnected: boolean
  databaseAvailable: boolean
  synced: boolean
  trunkOpen: boolean
  /** Whether `now` is within WORK_START-WORK_END in TIMEZONE, and the window as words. */
  inHours: boolean
  hours: string
  /** Agents on the roster who cannot be offered a call, and whether any agent can. */
  unavailableAgents: Array<{ extension: string; name: string; why: string }>
  anyAgentAvailable: boolean
  /** Read only when agents are ready (a query); undefined when not read. */
  due?: DueLeads
}

/** Agents named in the one-line text; every one is in `agents`. */
const AGENTS_IN_TEXT = 5

/** The reasons nothing is dialed, the most basic first; [] when none can be named. */
export function idleReasons(i: IdleInputs): IdleReason[] {
  const out: IdleReason[] = []
  if (!i.amiConnected)
    out.push({ code: 'ami-down', text: 'the PBX connection (AMI) is down: no call can be placed' })
  if (!i.databaseAvailable)
    out.push({ code: 'database-down', text: 'the database does not answer: no lead can be claimed' })
  if (out.length > 0) return out
  if (!i.synced) return [{ code: 'syncing', text: "reading the PBX's desks and calls after login" }]
  if (i.trunkOpen)
    out.push({
      code: 'trunk-open',
      text: 'the trunk breaker is open (customer calls failed in a row): one try now and then',
    })
  if (!i.anyAgentAvailable) {
    const agents = i.unavailableAgents
    const named = agents
      .slice(0, AGENTS_IN_TEXT)
      .map((a) => `${a.extension} ${a.name}: ${a.why}`)
      .join('; ')
    const more = agents.length > AGENTS_IN_TEXT ? `; ${agents.length - AGENTS_IN_TEXT} more` : ''
    out.push({
      code: 'no-agent-ready',
      text:
        agents.length === 0
          ? 'no agent can take a call: the roster is empty (pnpm agents add)'
          : `no agent can take a call (${named}${more})`,
      agents,
    })
    return out
  }
  if (!i.inHours) {
    out.push({
      code: 'outside-working-hours',
      text: `outside working hours (${i.hours}): only callbacks whose time has come are dialed`,
    })
    return out
  }
  const due = i.due
  if (!due) return out
  if (due.waiting > 0) {
    const next =
      due.nextAt === null ? 'none can be called at any hour' : `the first at ${due.nextAt.toISOString()}`
    out.push({
      code: 'leads-outside-customer-hours',
      text: `${due.waiting} lead(s) due wait for their customers' calling hours (CALLING_HOURS): ${next}`,
      leads: due.waiting,
      nextAt: due.nextAt?.toISOString() ?? null,
    })
  }
  if (due.callable > 0) {
    out.push({
      code: 'leads-held-back',
      text:
        `${due.callable} lead(s) due in their customers' hours are held back: a per-number cap ` +
        '(MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER, MAX_CALLS_PER_NUMBER_PER_DAY), a failed call (60 s), or ' +
        "another dialer's claim",
      leads: due.callable,
    })
  }
  if (due.waiting === 0 && due.callable === 0) out.push({ code: 'no-lead-due', text: 'no lead is due' })
  return out
}

/** What /healthz and the console show: since when nothing is dialed, and why. */
export interface IdleSnapshot {
  since: string
  reasons: IdleReason[]
}

interface Log {
  info(fields: object, message: string): void
}

/**
 * Keeps the current reasons and logs them once per change: a change is another set of reasons, or
 * the same reasons with other words but for their numbers (an agent's panel unseen for 31 s, then
 * 32 s, is no change; another agent paused is).
 */
export class IdleReport {
  #current: { since: Date; reasons: IdleReason[]; key: string } | null = null

  constructor(private readonly log: Log) {}

  /** A round placed no call and none is in progress, for `reasons`. */
  idle(now: Date, reasons: IdleReason[]): void {
    const key = reasons.map((r) => `${r.code}:${r.text.replace(/\d+/g, '#')}`).join('|')
    if (this.#current?.key === key) {
      this.#current.reasons = reasons
      return
    }
    this.#current = { since: this.#current?.since ?? now, reasons, key }
    this.log.info(
      { reasons: reasons.map((r) => r.text) },
      reasons.length === 0 ? 'nothing dialed' : `nothing dialed: ${reasons.map((r) => r.text).join('; ')}`,
    )
  }

  /** A call was placed, or calls are in progress: the dialer works. */
  working(): void {
    if (this.#current === null) return
    this.#current = null
    this.log.info({}, 'dialing again')
  }

  snapshot(): IdleSnapshot | null {
    return this.#current && { since: this.#current.since.toISOString(), reasons: this.#current.reasons }
  }
}
