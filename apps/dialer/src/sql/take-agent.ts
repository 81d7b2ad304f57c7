import { type Database, runStatement, type Statement } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'

/**
 * Takes an agent for a call: only if no dialer has them on a call. Two dialers that both see the desk
 * idle cannot both ring it. Returns false when someone else has them. (A claim takes its agent in its
 * own transaction with the same guard: claim/statements.ts.)
 *
 * One guarded UPDATE: the row count says whether this dialer got the agent. A dialer taking the same
 * agent at the same moment makes this one wait for its commit (milliseconds) and then find the agent
 * taken. Tried before: SELECT ... FOR UPDATE SKIP LOCKED, then the UPDATE: two round trips of a claim
 * that makes up to seven.
 */
export async function takeAgent(
  trx: Transaction<Database>,
  employeeId: number,
  dialerId: string,
  now: Date,
): Promise<boolean> {
  const result = await trx
    .updateTable('dialer_employee')
    .set({ on_call_by: dialerId, on_call_since: toDbTime(now) })
    .where('id', '=', employeeId)
    .where('on_call_by', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Frees an agent at settle, starting their wrap-up time; only if this dialer has them on a call. As a
 * statement, for a caller that batches it (the claims bench); `releaseAgent` runs it. Fixed text, as
 * the settle's (`settleLeadStatement`).
 */
export function releaseAgentStatement(
  employeeId: number,
  dialerId: string,
  wrapUntil: Date | null,
): Statement {
  return wrapUntil
    ? {
        sql: 'UPDATE dialer_employee SET on_call_by = NULL, on_call_since = NULL, wrap_until = ? WHERE id = ? AND on_call_by = ?',
        params: [toDbTime(wrapUntil), employeeId, dialerId],
      }
    : {
        sql: 'UPDATE dialer_employee SET on_call_by = NULL, on_call_since = NULL WHERE id = ? AND on_call_by = ?',
        params: [employeeId, dialerId],
      }
}

export async function releaseAgent(
  trx: Transaction<Database>,
  employeeId: number,
  dialerId: string,
  wrapUntil: Date | null,
): Promise<void> {
  await runStatement(trx, releaseAgentStatement(employeeId, dialerId, wrapUntil))
}

/**
 * Whether this dialer still has the agent on a call: checked before a customer is sent to an agent
 * taken a while ago (a pause, a slow database), since another dialer releases a hold its holder
 * stopped refreshing (calls/release-expired.ts) and may have given the agent a call of its own.
 */
export async function holdsAgent(
  db: Kysely<Database>,
  employeeId: number,
  dialerId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('dialer_employee')
    .select('on_call_by')
    .where('id', '=', employeeId)
    .executeTakeFirst()
  return row?.on_call_by === dialerId
}
