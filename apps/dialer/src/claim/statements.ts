import { ARCHIVED_COLUMNS, type Statement } from '@hold-dialer/db'
import { toDbTime, UNREADABLE } from '@hold-dialer/rules'
import { callKey } from '../calls/call-key.js'
import type { Candidate } from './candidates.js'
import type { LeadClaim } from './request.js'

// The claim's writes, as statements for its batch transaction (`claimLead`). Written as text for
// the same reason as the candidate queries (candidates.ts): they run in a batch, once per claim.

/**
 * Takes the claim's agent: only if no dialer has them on a call, so two dialers that both see the
 * desk idle cannot both ring it. One changed row = taken. The SQLite claim runs it first; the MySQL
 * claim takes the agent in the lead's UPDATE instead (`reserveLeadTakingAgentStatement`). The same
 * rule as `takeAgent` (sql/take-agent.ts), which predictive mode runs on its own.
 */
export function takeAgentStatement(agentId: number, req: LeadClaim): Statement {
  return {
    sql: 'UPDATE dialer_employee SET on_call_by = ?, on_call_since = ? WHERE id = ? AND on_call_by IS NULL',
    params: [req.dialerId, toDbTime(req.now), agentId],
  }
}

/**
 * SQLite: gives back the agent `takeAgentStatement` took, when the claim found no lead to dial but
 * ended listed ones (so the claim commits rather than rolling back to its savepoint).
 */
export function freeAgentStatement(agentId: number, req: LeadClaim): Statement {
  return {
    sql: 'UPDATE dialer_employee SET on_call_by = NULL, on_call_since = NULL WHERE id = ? AND on_call_by = ?',
    params: [agentId, req.dialerId],
  }
}

/**
 * Reserves the claimed lead for this dialer: Calling, its status kept to restore if the originate
 * fails, and the claim's token (calls/call-key.ts) that fences every later write to it.
 */
export function reserveLeadStatement(lead: Candidate, req: LeadClaim, token: string): Statement {
  const at = toDbTime(req.now)
  return {
    sql: `UPDATE hold_dialer_master_data SET previous_status = ?, dial_status = 'Calling', isReserved = 1,
            reserved_by = ?, reserved_at = ?, claim_token = ? WHERE id = ?`,
    params: [lead.dial_status, req.dialerId, at, token, lead.id],
  }
}

/**
 * Opens the call's attempt row in the claim's own transaction (DECISIONS section 8: every call placed
 * leaves an attempt row, whatever crashes): outcome `Dialing`, no end, found later by the call's key
 * (`linkedid`); the settle completes it. Runs after the reservation and writes only if it took (the
 * lead holds this claim's token), so a MySQL claim whose agent was taken by another dialer opens
 * nothing. A claim that crashes before its Originate leaves a row that the release completes as
 * `Unknown` (it cannot tell a call that was never placed from one whose end was lost).
 */
export function openAttemptStatement(lead: Candidate, req: LeadClaim, token: string): Statement {
  return {
    sql: `INSERT INTO hold_dialer_call_attempts (master_id, oli_id, attempt_no, dialer_id, dial_mode, agent_extension,
            phone_number, phone_e164, linkedid, outcome, started_at, superseded)
            SELECT id, oli_id, call_count + 1, ?, ?, ?, phone_number, phone_e164, ?, 'Dialing', ?, 0
            FROM hold_dialer_master_data WHERE id = ? AND claim_token = ?`,
    params: [
      req.dialerId,
      req.dialMode ?? 'progressive',
      req.agentExtension ?? null,
      callKey(lead.id, token),
      toDbTime(req.now),
      lead.id,
      token,
    ],
  }
}

/**
 * MySQL: `reserveLeadStatement` and `takeAgentStatement` in one statement: both rows change (2 changed
 * rows), or neither does when another dialer has the agent (then the lead, only read and locked, is
 * left as it was).
 */
export function reserveLeadTakingAgentStatement(
  lead: Candidate,
  agentId: number,
  req: LeadClaim,
  token: string,
): Statement {
  const at = toDbTime(req.now)
  return {
    sql: `UPDATE hold_dialer_master_data m JOIN dialer_employee e ON e.id = ? AND e.on_call_by IS NULL
            SET m.previous_status = ?, m.dial_status = 'Calling', m.isReserved = 1, m.reserved_by = ?,
            m.reserved_at = ?, m.claim_token = ?, e.on_call_by = ?, e.on_call_since = ? WHERE m.id = ?`,
    params: [agentId, lead.dial_status, req.dialerId, at, token, req.dialerId, at, lead.id],
  }
}

/**
 * Listed leads one claim ends at most before it gives up for this round (each is one more search);
 * the next claim goes on with the rest.
 */
export const MAX_LISTED_PER_CLAIM = 20

/** What `last_dial_result` says of a lead the claim ended because its number is on the do-not-call list. */
export const DNC_RESULT = 'DNC'
/** ... and of one ended because its number cannot be read (no international form: never dialed). */
export const UNREADABLE_RESULT = 'UNREADABLE_NUMBER'

/** Whether the claim ends this candidate instead of dialing it: listed, or its number unreadable. */
export function mustEnd(lead: Candidate): boolean {
  return lead.dnc === 1 || lead.phone_e164 === UNREADABLE
}

/**
 * Ends a lead the claim must not dial (`mustEnd`): its number on the do-not-call list, or a number
 * with no international form, which could be neither matched against the list nor dialed as the
 * person it names (never dialed, nothing counted). Pool mode archives it to hold_dialer_disposed
 * with `disposed_reason` `dnc` or `unreadable_number`, as max_tries archives; pinned mode sets
 * Disposed and keeps it on master, as its max_tries does.
 */
export function endListedLeadStatements(lead: Candidate, req: LeadClaim): Statement[] {
  const at = toDbTime(req.now)
  const listed = lead.dnc === 1
  const result = listed ? DNC_RESULT : UNREADABLE_RESULT
  if (
    (req.callbackMode ?? (req.pinnedAgentId !== null || req.unpinnedOnly ? 'pinned' : 'pool')) === 'pinned'
  ) {
    return [
      {
        sql: `UPDATE hold_dialer_master_data SET dial_status = 'Disposed', last_dial_result = ?, next_retry_at = NULL
                WHERE id = ?`,
        params: [result, lead.id],
      },
    ]
  }
  const cols = ARCHIVED_COLUMNS.join(', ')
  return [
    {
      sql: `UPDATE hold_dialer_master_data SET dial_status = 'Archived', last_dial_result = ?, next_retry_at = NULL
              WHERE id = ?`,
      params: [result, lead.id],
    },
    {
      sql: `INSERT INTO hold_dialer_disposed (${cols}, master_id, disposed_at, disposed_reason)
              SELECT ${cols}, id, ?, ? FROM hold_dialer_master_data WHERE id = ?`,
      params: [at, listed ? 'dnc' : 'unreadable_number', lead.id],
    },
    { sql: 'DELETE FROM hold_dialer_master_data WHERE id = ?', params: [lead.id] },
  ]
}
