import {
  applyReset,
  archiveLead,
  type Database,
  isLive,
  lockLead,
  scheduleLeadCallback,
  withTransaction,
} from '@hold-dialer/db'
import { resetForClose, toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import { ApiError, validationFailed } from '../errors.js'

/** The escalated-ticket priority the ticket endpoint works on. */
export const ESCALATED_PRIORITY = 8

export interface WriteContext {
  db: Kysely<Database>
  now: Date
}

/**
 * Ticket Close: reset, copy to `hold_dialer_disposed` (`ticket_close`), delete from master: one
 * transaction. Checks in order: unknown 404, not priority 8 400, live 409.
 */
export async function closeTicket(ctx: WriteContext, oliId: string): Promise<void> {
  await withTransaction(ctx.db, async (trx) => {
    const row = await lockLead(trx, { oliId })
    if (!row) throw new ApiError('lead_not_found')
    requireEscalated(row.priority_id)
    if (isLive(row)) throw new ApiError('lead_in_flight')
    await applyReset(trx, row.id, resetForClose())
    await archiveLead(trx, row.id, 'ticket_close', toDbTime(ctx.now))
  })
}

/**
 * Callback Schedule (ticket, `escalatedOnly`) and send-callback-request (any priority): dial_status
 * Callback at `at`, `priority_id` and the pin kept, the reset applied.
 */
export async function scheduleCallback(
  ctx: WriteContext,
  oliId: string,
  at: Date,
  options: { escalatedOnly: boolean },
): Promise<void> {
  await withTransaction(ctx.db, async (trx) => {
    const result = await scheduleLeadCallback(trx, { oliId }, at, {
      check: options.escalatedOnly ? (row) => requireEscalated(row.priority_id) : undefined,
    })
    if (result === 'not_found') throw new ApiError('lead_not_found')
    if (result === 'in_flight') throw new ApiError('lead_in_flight')
  })
}

function requireEscalated(priorityId: number): void {
  if (priorityId !== ESCALATED_PRIORITY) {
    throw validationFailed([
      { field: 'oliId', message: `lead does not have priority_id ${ESCALATED_PRIORITY} (escalated ticket)` },
    ])
  }
}
