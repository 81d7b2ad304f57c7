import type { Generated, Insertable, Selectable } from 'kysely'

/**
 * `hold_dialer_call_attempts`: one row per call placed, with the connected agent. The claim writes it
 * (outcome `Dialing`, no end), the settle completes it; a call whose result was lost in a crash is
 * completed as `Unknown` (DECISIONS section 8: every call placed leaves an attempt row).
 */
export interface CallAttemptTable {
  id: Generated<number>
  master_id: number
  oli_id: string
  /** 1-based attempt number (`call_count` after this attempt); 0 on a superseded call. */
  attempt_no: number
  dialer_id: string
  dial_mode: 'progressive' | 'predictive'
  /** `dialer_employee.id` of the agent the customer was connected to; NULL if none. */
  agent_id: number | null
  agent_extension: string | null
  phone_number: string
  /** The international form of the number called (NULL on calls recorded before the column). */
  phone_e164: string | null
  action_id: string | null
  uniqueid: string | null
  linkedid: string | null
  /**
   * The spec's outcome written to `dial_status` (Received, Not Connected, ...); `Dialing` while the
   * call is under way; `Unknown` when its dialer crashed and the call had ended before anyone could
   * follow it.
   */
  outcome: string
  /** AMI DialStatus (ANSWER, BUSY, NOANSWER, ...) when one arrived. */
  ami_dial_status: string | null
  /** AMI OriginateResponse Reason code when one arrived. */
  originate_reason: number | null
  hangup_cause: number | null
  hangup_cause_txt: string | null
  hangup_by: string | null
  started_at: string
  answered_at: string | null
  /** NULL while the call is under way. */
  ended_at: string | null
  talk_seconds: number | null
  /**
   * 1: the lead had been claimed again (or released) by the time this call ended, so the call did
   * not count for the lead (its call_count, tries and retry schedule are the newer claim's); it
   * still counts as a call to the person (the per-number caps).
   */
  superseded: Generated<number>
  /** AMD()'s AMDSTATUS (HUMAN, MACHINE, NOTSURE, HANGUP); NULL when detection did not run. */
  amd_status?: string | null
  /** AMD()'s AMDCAUSE, e.g. `LONGGREETING-1500-1500`. */
  amd_cause?: string | null
  /** Milliseconds from the answer to the verdict. */
  amd_ms?: number | null
}

export type CallAttempt = Selectable<CallAttemptTable>
export type NewCallAttempt = Insertable<CallAttemptTable>
