import type { Database } from '@hold-dialer/db'
import { fromDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { LiveState } from '../live-state.js'

/** What an agent is doing, as the agent interface shows it. */
export type AgentViewState =
  | 'offline'
  | 'deactivated'
  | 'paused'
  | 'ready'
  | 'ringing'
  | 'talking'
  | 'on-call'
  | 'wrap-up'

/** One earlier call to the lead (`hold_dialer_call_attempts`). */
export interface PopAttempt {
  attemptNo: number
  startedAt: string
  endedAt: string | null
  outcome: string
  agentExtension: string | null
  talkSeconds: number | null
}

/** The screen pop: the lead of the agent's call and its earlier attempts. */
export interface ScreenPop {
  leadId: number
  oliId: string
  name: string
  number: string
  formType: string
  priority: number
  /** ISO time of the callback the lead was dialed for, if any. */
  callbackAt: string | null
  /** Pinned mode's pin (`dialer_employee.id`), else null. */
  pinnedAgentId: number | null
  attempts: PopAttempt[]
}

export interface AgentCall {
  /** This dialer's phase of the call (dialing, ringing, answered, on-hold, connected); `ended` in wrap-up; null when another dialer has it. */
  phase: string | null
  /** The dialer that has the agent on the call (null in wrap-up). */
  dialer: string | null
  lead: ScreenPop | null
}

/** Everything an agent may see: their own row and their own call, nothing of anyone else. */
export interface AgentView {
  agent: { id: number; extension: string | null; name: string }
  presence: string
  pauseReason: string | null
  presenceSince: string | null
  panelSeenAt: string | null
  state: AgentViewState
  /** End of the wrap-up while in it. */
  wrapUntil: string | null
  call: AgentCall | null
  /**
   * Why this dialer offers the agent no call now, in the operator's words (the claim's own rule,
   * agents/agent-why.ts: paused, panel not seen, desk state, wrap-up...); null when it would, or when
   * this dialer does not follow the agent.
   */
  why: string | null
  pauseReasons: readonly string[]
}

const iso = (t: string | null): string | null => (t ? fromDbTime(t).toISOString() : null)

async function readEmployee(db: Kysely<Database>, id: number) {
  return db
    .selectFrom('dialer_employee')
    .select([
      'id',
      'name',
      'extension',
      'is_active',
      'presence',
      'pause_reason',
      'presence_since',
      'panel_seen_at',
      'wrap_until',
      'on_call_by',
    ])
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The lead `leadId` and its attempts, as the agent's screen pop. */
export async function screenPop(db: Kysely<Database>, leadId: number): Promise<ScreenPop | null> {
  const lead = await db
    .selectFrom('hold_dialer_master_data')
    .select([
      'id',
      'oli_id',
      'client_name',
      'phone_number',
      'form_type',
      'priority_id',
      'callback_scheduled_at',
      'agent_id',
    ])
    .where('id', '=', leadId)
    .executeTakeFirst()
  if (!lead) return null
  const attempts = await db
    .selectFrom('hold_dialer_call_attempts')
    .select(['attempt_no', 'started_at', 'ended_at', 'outcome', 'agent_extension', 'talk_seconds'])
    .where('master_id', '=', leadId)
    // The call being made now has no end yet; only ended calls are earlier attempts.
    .where('ended_at', 'is not', null)
    .orderBy('id')
    .execute()
  return {
    leadId: Number(lead.id),
    oliId: lead.oli_id,
    name: lead.client_name,
    number: lead.phone_number,
    formType: lead.form_type,
    priority: lead.priority_id,
    callbackAt: iso(lead.callback_scheduled_at),
    pinnedAgentId: lead.agent_id === null ? null : Number(lead.agent_id),
    attempts: attempts.map((a) => ({
      attemptNo: a.attempt_no,
      startedAt: iso(a.started_at) as string,
      endedAt: iso(a.ended_at),
      outcome: a.outcome,
      agentExtension: a.agent_extension,
      talkSeconds: a.talk_seconds,
    })),
  }
}

/**
 * The lead of the agent's last call that reached them (the settle writes `agent_id` on the attempt
 * of a call connected to the agent): the call a wrap-up follows, and the person a callback is for.
 */
export async function lastConnectedLead(db: Kysely<Database>, agentId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('hold_dialer_call_attempts')
    .select('master_id')
    .where('agent_id', '=', agentId)
    .where('ended_at', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? Number(row.master_id) : undefined
}

/** The lead of a call in progress to the agent's desk, from its open attempt (any dialer's, progressive). */
async function openCallLead(db: Kysely<Database>, extension: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('hold_dialer_call_attempts')
    .select('master_id')
    .where('agent_extension', '=', extension)
    .where('ended_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? Number(row.master_id) : undefined
}

/**
 * The agent's own view, from the database (so any dialer sharing it gives the same answer) and this
 * dialer's live calls (the call's phase while this dialer has it).
 */
export async function readAgentView(
  db: Kysely<Database>,
  agentId: number,
  live: LiveState | undefined,
  now: Date,
  pauseReasons: readonly string[],
): Promise<AgentView | undefined> {
  const row = await readEmployee(db, agentId)
  if (!row) return undefined
  const t = now.getTime()
  const wrapEnds = row.wrap_until ? fromDbTime(row.wrap_until).getTime() : 0
  const here = live?.calls.find((c) => c.agentId === agentId)
  let state: AgentViewState
  let call: AgentCall | null = null
  if (here) {
    state = here.phase === 'connected' ? 'talking' : 'ringing'
    call = { phase: here.phase, dialer: live?.dialerId ?? null, lead: await screenPop(db, here.leadId) }
  } else if (row.on_call_by !== null) {
    state = 'on-call'
    const leadId = row.extension ? await openCallLead(db, row.extension) : undefined
    call = { phase: null, dialer: row.on_call_by, lead: leadId ? await screenPop(db, leadId) : null }
  } else if (wrapEnds > t) {
    state = 'wrap-up'
    const leadId = await lastConnectedLead(db, agentId)
    call = { phase: 'ended', dialer: null, lead: leadId ? await screenPop(db, leadId) : null }
  } else if (row.is_active !== 1) {
    state = 'deactivated'
  } else {
    state = row.presence === 'ready' ? 'ready' : row.presence === 'paused' ? 'paused' : 'offline'
  }
  return {
    agent: { id: Number(row.id), extension: row.extension, name: row.name },
    presence: row.presence,
    pauseReason: row.presence === 'paused' ? row.pause_reason : null,
    presenceSince: iso(row.presence_since),
    panelSeenAt: iso(row.panel_seen_at),
    state,
    wrapUntil: wrapEnds > t ? iso(row.wrap_until) : null,
    call,
    why: live?.agents.find((a) => a.agentId === agentId)?.why ?? null,
    pauseReasons,
  }
}
