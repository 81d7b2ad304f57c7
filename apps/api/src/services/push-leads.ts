import {
  type Database,
  dialectOf,
  isDuplicateKey,
  isLive,
  type NewMasterRow,
  retryableReason,
  type TransactionOptions,
  withTransaction,
} from '@hold-dialer/db'
import { type DialStateReset, resetForPush, toDbTime, type WorkingHours } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { PushResultType } from '../schemas/lead.js'
import { lockLeadsByOliId } from '../sql/lock-leads.js'
import { upsertOneLead } from '../sql/upsert-one-lead.js'
import { insertLeads, overwriteLeads } from '../sql/write-leads.js'
import type { CheckedLead } from './validate-leads.js'

export interface PushContext {
  db: Kysely<Database>
  hours: WorkingHours
  now: Date
  onRetry?: TransactionOptions['onRetry']
}

const dbReset = (reset: DialStateReset) => ({
  ...reset,
  callback_scheduled_at: reset.callback_scheduled_at && toDbTime(reset.callback_scheduled_at),
  next_retry_at: reset.next_retry_at && toDbTime(reset.next_retry_at),
})

/**
 * The push reset of a lead without a callback time depends on `now` only through the local minute
 * (working hours are whole minutes, and so are zone offsets), so it is worked out once per UTC
 * minute rather than per lead or per request: its time-zone arithmetic was a quarter of the API's
 * CPU on a 500-lead batch, and 7% on single-lead pushes.
 */
let plainResetMemo: { hours: WorkingHours; minute: number; reset: ReturnType<typeof dbReset> } | undefined

function plainReset(now: Date, hours: WorkingHours) {
  const minute = Math.floor(now.getTime() / 60_000)
  if (plainResetMemo?.hours !== hours || plainResetMemo.minute !== minute) {
    plainResetMemo = { hours, minute, reset: dbReset(resetForPush({ callbackAt: null, now, hours })) }
  }
  return plainResetMemo.reset
}

/** Builds the rows of one request; the stamp and the plain reset are shared by all its leads. */
function rowBuilder(ctx: PushContext): (lead: CheckedLead) => NewMasterRow {
  const stamp = toDbTime(ctx.now)
  const plain = plainReset(ctx.now, ctx.hours)
  return (lead) => ({
    oli_id: lead.input.oli_id,
    phone_number: lead.phoneDigits,
    client_name: lead.input.client_name,
    form_type: lead.input.form_type,
    priority_id: lead.input.priority_id,
    agent_id: lead.agentId,
    ...(lead.callbackAt === null
      ? plain
      : dbReset(resetForPush({ callbackAt: lead.callbackAt, now: ctx.now, hours: ctx.hours }))),
    reserved_by: null,
    reserved_at: null,
    previous_status: null,
    push_date: stamp,
    status: 1,
    created_at: stamp,
  })
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs one autocommit statement again on a deadlock, lock wait or SQLITE_BUSY, with the same capped,
 * jittered backoff as `withTransaction` (5 retries from 20 ms, doubling, at most 1 s).
 */
async function retryingStatement<T>(fn: () => Promise<T>, onRetry: PushContext['onRetry']): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      const reason = retryableReason(error)
      if (reason === undefined || attempt >= 5) throw error
      const delayMs = Math.round(Math.random() * Math.min(1000, 20 * 2 ** attempt))
      onRetry?.({ attempt: attempt + 1, reason, delayMs, error })
      await sleep(delayMs)
    }
  }
}

/**
 * Upserts a validated batch in one transaction: locks the existing rows in `oli_id` order, leaves
 * live (Calling + reserved) rows untouched, inserts the new ones and overwrites the rest with the
 * spec's push reset. If another request inserts one of the new `oli_id`s first, the insert fails
 * with a duplicate key and the whole transaction is run again, now seeing that row as existing,
 * so each lead's reported status is exact.
 */
async function pushLocked(
  ctx: PushContext,
  leads: CheckedLead[],
  rowFor: (lead: CheckedLead) => NewMasterRow,
): Promise<Map<string, PushResultType['status']>> {
  const byOli = [...leads].sort((a, b) =>
    a.input.oli_id < b.input.oli_id ? -1 : a.input.oli_id > b.input.oli_id ? 1 : 0,
  )
  return withTransaction(
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
          updates.push(rowFor(lead))
        } else {
          status.set(lead.input.oli_id, 'inserted')
          inserts.push(rowFor(lead))
        }
      }
      await insertLeads(trx, inserts)
      await overwriteLeads(trx, updates)
      return status
    },
    { alsoRetry: (e) => (isDuplicateKey(e) ? 'concurrent insert' : undefined), onRetry: ctx.onRetry },
  )
}

/**
 * Upserts validated leads and reports each one's outcome exactly. On MySQL a single lead first tries
 * one guarded autocommit upsert (`upsertOneLead`): one round trip instead of four for a new or an
 * overwritten lead. Only when it changed nothing (a live lead, or a push identical to the row) does it
 * take the locked path, which then decides under the row lock. On SQLite every push takes the locked
 * path: its statements are calls into this process, and BEGIN IMMEDIATE already serialises writers.
 */
export async function pushLeads(ctx: PushContext, leads: CheckedLead[]): Promise<PushResultType[]> {
  const rowFor = rowBuilder(ctx)
  const echo = (l: CheckedLead, status: PushResultType['status']): PushResultType => ({
    oli_id: l.input.oli_id,
    status,
    callback_scheduled_at: l.input.callback_scheduled_at ?? null,
  })
  const lead = leads[0]
  if (leads.length === 1 && lead && dialectOf(ctx.db) === 'mysql') {
    const outcome = await retryingStatement(() => upsertOneLead(ctx.db, rowFor(lead)), ctx.onRetry)
    if (outcome !== 'unchanged') return [echo(lead, outcome)]
  }
  const statuses = await pushLocked(ctx, leads, rowFor)
  return leads.map((l) => echo(l, statuses.get(l.input.oli_id)!))
}
