import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

export type Presence = 'ready' | 'paused' | 'offline'

/** `dialer_employee`: the agent roster (DECISIONS section 5). */
export interface EmployeeTable {
  id: Generated<number>
  name: string
  /** SIP extension of the agent's desk; NULL means the employee cannot be dialed. */
  extension: string | null
  email: string | null
  is_active: Generated<number>
  presence: Generated<Presence>
  /** UTC `YYYY-MM-DD HH:MM:SS.SSS`: the agent panel's last sign of life. */
  panel_seen_at: string | null
  /** UTC: end of the wrap-up time after the agent's last call. */
  wrap_until: string | null
  /** Dialer holding this agent on a call (cleared at settle), and since when (refreshed by its heartbeat). */
  on_call_by: Generated<string | null>
  on_call_since: Generated<string | null>
  /**
   * The agent's sign-in PIN as `scrypt$N$r$p$salt$hash` (apps/dialer/src/http/agent/pin.ts); NULL: the
   * agent cannot sign in to the agent interface.
   */
  pin_hash: Generated<string | null>
  /** Why a paused agent paused (one of AGENT_PAUSE_REASONS); NULL otherwise. */
  pause_reason: Generated<string | null>
  /** UTC: since when `presence` (and `pause_reason`) holds, as the agent interface set it. */
  presence_since: Generated<string | null>
  /** The PBX the agent's desk is on (`PBX_NAME` of the dialers that serve it); `default` in a one-PBX centre. */
  pbx: Generated<string>
}

export type Employee = Selectable<EmployeeTable>
export type NewEmployee = Insertable<EmployeeTable>
export type EmployeeUpdate = Updateable<EmployeeTable>
