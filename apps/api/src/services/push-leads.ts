import {
  type Database,
  isDuplicateKey,
  isLive,
  type NewMasterRow,
  type TransactionOptions,
  withTransaction,
} from '@hold-dialer/db'
import { resetForPush, toDbTime, type WorkingHours } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { PushResultType } from '../schemas/lead.js'
import { lockLeadsByOliId } from '../sql/lock-leads.js'
import { insertLeads, overwriteLeads } from '../sql/write-leads.js'
import type { CheckedLead } from './validate-leads.js'

export interface PushContext {
  db: Kysely<Database>
  hours: WorkingHours
  now: Date
  onRetry?: TransactionOptions['onRetry']
}

function rowFor(lead: CheckedLead, now: Date, hours: WorkingHours): NewMasterRow {
  const reset = resetForPush({ callbackAt: lead.callbackAt, now, hours })
  const stamp = toDbTime(now)
  return {
    oli_id: lead.input.oli_id,
    phone_number: lead.phoneDigits,
    client_name: lead.input.client_name,
    form_type: lead.input.form_type,
    priority_id: lead.input.priority_id,
    agent_id: lead.agentId,
    ...reset,
    callback_scheduled_at: reset.callback_scheduled_at && toDbTime(reset.callback_scheduled_at),
    next_retry_at: reset.next_retry_at && toDbTime(reset.next_retry_at),
    reserved_by: null,
    reserved_at: null,
    previous_status: null,
    push_date: stamp,
    status: 1,
    created_at: stamp,
  }
}

/**
 * Upserts a validated batch in one transaction: locks the existing rows in `oli_id` order, leaves
 * live (Calling + reserved) rows untouched, inserts the new ones and overwrites the rest with the
 * spec's push reset. If another request inserts one of the new `oli_id`s first, the insert fails
 * with a duplicate key and the whole transaction is run again, now seeing that row as existing,
 * so each lead's reported status is exact.
 */
export async function pushLeads(ctx: PushContext, leads: CheckedLead[]): Promise<PushResultType[]> {
  const byOli = [...leads].sort((a, b) =>
    a.input.oli_id < b.input.oli_id ? -1 : a.input.oli_id > b.input.oli_id ? 1 : 0,
  )
  const statuses = await withTransaction(
    ctx.db,
    async (trx) => {
      const existing = await lockLeadsByOliId(
        trx,
        byOli.map((l) => l.input.oli_id),
      )
      const status = new Map<string, PushResultType['status']>()
      const inserts: NewMasterRow[] = []
      const updates: NewMasterRow[] = []
      for (const lead of byOli) {
        const row = existing.get(lead.input.oli_id)
        if (row && isLive(row)) {
          status.set(lead.input.oli_id, 'skipped_in_flight')
        } else if (row) {
          status.set(lead.input.oli_id, 'updated')
          updates.push(rowFor(lead, ctx.now, ctx.hours))
        } else {
          status.set(lead.input.oli_id, 'inserted')
          inserts.push(rowFor(lead, ctx.now, ctx.hours))
        }
      }
      await insertLeads(trx, inserts)
      await overwriteLeads(trx, updates)
      return status
    },
    { alsoRetry: (e) => (isDuplicateKey(e) ? 'concurrent insert' : undefined), onRetry: ctx.onRetry },
  )
  return leads.map((l) => ({
    oli_id: l.input.oli_id,
    status: statuses.get(l.input.oli_id)!,
    callback_scheduled_at: l.input.callback_scheduled_at ?? null,
  }))
}
