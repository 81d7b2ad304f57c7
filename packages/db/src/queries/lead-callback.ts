import { type DialStateReset, resetForCallback, toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'
import type { Database } from '../database.js'
import { dialectOf } from './dialect-of.js'
import { isLive } from './live-lead.js'

/** What a callback write reads of the lead it locks. */
export interface LockedLead {
  id: number
  oli_id: string
  priority_id: number
  dial_status: string
  isReserved: number
}

/**
 * Locks one master row, by `oli_id` (the API's ticket and callback-request writes) or by `id` (the
 * agent interface's callback for the lead of the agent's call).
 */
export async function lockLead(
  trx: Transaction<Database>,
  by: { oliId: string } | { id: number },
): Promise<LockedLead | undefined> {
  let query = trx
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'oli_id', 'priority_id', 'dial_status', 'isReserved'])
  query = 'oliId' in by ? query.where('oli_id', '=', by.oliId) : query.where('id', '=', by.id)
  if (dialectOf(trx) === 'mysql') query = query.forUpdate()
  const row = await query.executeTakeFirst()
  return row && { ...row, id: Number(row.id) }
}

/**
 * Writes the spec's dial-state reset for Close or a callback to one locked master row; `agentId`,
 * when given, sets the pinned mode's pin too (NULL: to the pool).
 */
export async function applyReset(
  trx: Transaction<Database>,
  id: number,
  reset: DialStateReset,
  pin?: { agentId: number | null },
): Promise<void> {
  await trx
    .updateTable('hold_dialer_master_data')
    .set({
      ...reset,
      callback_scheduled_at: reset.callback_scheduled_at && toDbTime(reset.callback_scheduled_at),
      next_retry_at: reset.next_retry_at && toDbTime(reset.next_retry_at),
      reserved_by: null,
      reserved_at: null,
      previous_status: null,
      ...(pin ? { agent_id: pin.agentId } : {}),
    })
    .where('id', '=', id)
    .execute()
}

/**
 * The rule of send-callback-request, shared by the API and the agent interface: the lead (locked)
 * must exist, `check` may refuse it (the ticket endpoint's priority 8), a lead on a call (Calling
 * and reserved) is never touched; otherwise dial_status Callback at `at`, the attempt history
 * cleared, `priority_id` and the pin kept unless `pin` says otherwise. Runs in the caller's
 * transaction.
 */
export async function scheduleLeadCallback(
  trx: Transaction<Database>,
  by: { oliId: string } | { id: number },
  at: Date,
  options: { check?: (row: LockedLead) => void; pin?: { agentId: number | null } } = {},
): Promise<'scheduled' | 'not_found' | 'in_flight'> {
  const row = await lockLead(trx, by)
  if (!row) return 'not_found'
  options.check?.(row)
  if (isLive(row)) return 'in_flight'
  await applyReset(trx, row.id, resetForCallback(at), options.pin)
  return 'scheduled'
}
