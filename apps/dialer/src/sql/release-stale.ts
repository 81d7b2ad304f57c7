import type { Database } from '@hold-dialer/db'
import { dialectOf, withTransaction } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'
import { callKey } from '../calls/call-key.js'
import { openAttempt } from './attempts.js'
import { restoreLead } from './restore-lead.js'

export type OwnReservation = Awaited<ReturnType<typeof ownReservations>>[number]

/** This dialer's reservations, for the start-up check against the PBX's live channels. */
export async function ownReservations(db: Kysely<Database>, dialerId: string) {
  const rows = await db
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'oli_id', 'phone_number', 'phone_e164', 'previous_status', 'reserved_at', 'claim_token'])
    .where('isReserved', '=', 1)
    .where('reserved_by', '=', dialerId)
    .execute()
  return rows.map((r) => ({ ...r, id: Number(r.id) }))
}

/**
 * Counts a released reservation's call whose result was lost (`settleUnknown` in settle.ts), in the
 * release's transaction.
 */
export type CountUnknown = (trx: Transaction<Database>, leadId: number, key: string) => Promise<void>

/**
 * Releases one reservation, but only if it is still held by `heldBy` under the claim `token` (NULL: a
 * reservation from before claim tokens) and, when given, not refreshed since `notAfter`: a settle, a
 * refresh or a new claim that got there first wins. When the claim had opened its call's attempt row
 * (the call may have been placed), `countUnknown` completes it and counts the attempt (`counted`);
 * else the lead's previous status comes back with `call_count` unchanged (`released`).
 */
export async function releaseReservation(
  db: Kysely<Database>,
  id: number,
  heldBy: string,
  fence: { token: string | null; notAfter?: string },
  countUnknown?: CountUnknown,
): Promise<'released' | 'counted' | false> {
  const { token, notAfter } = fence
  return withTransaction(db, async (trx) => {
    let q = trx
      .selectFrom('hold_dialer_master_data')
      .select(['previous_status'])
      .where('id', '=', id)
      .where('isReserved', '=', 1)
      .where('reserved_by', '=', heldBy)
      .where('claim_token', token === null ? 'is' : '=', token)
    if (notAfter) q = q.where('reserved_at', '<', notAfter)
    // Locked, so a settle of the same lead committing meanwhile is seen, not overwritten.
    if (dialectOf(trx) === 'mysql') q = q.forUpdate()
    const row = await q.executeTakeFirst()
    if (!row) return false
    const key = token === null ? undefined : callKey(id, token)
    if (key && countUnknown && (await openAttempt(trx, key))) {
      await countUnknown(trx, id, key)
      return 'counted'
    }
    await restoreLead(trx, id, row.previous_status)
    return 'released'
  })
}

/**
 * Reservations older than the timeout, whoever holds them. A live dialer refreshes `reserved_at` of its
 * calls with every heartbeat, so only a dead dialer's reservations age past it.
 */
export async function expiredReservations(
  db: Kysely<Database>,
  now: Date,
  timeoutSeconds: number,
  pbx: string,
) {
  const cutoff = toDbTime(new Date(now.getTime() - timeoutSeconds * 1000))
  const rows = await db
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'reserved_by', 'claim_token'])
    .where('isReserved', '=', 1)
    .where('reserved_at', '<', cutoff)
    // Not those of a dialer of another PBX: whether their call is live can be asked only of its PBX.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('hold_dialer_heartbeat as h')
            .select('h.dialer_id')
            .whereRef('h.dialer_id', '=', 'hold_dialer_master_data.reserved_by')
            .where('h.pbx', '<>', pbx),
        ),
      ),
    )
    .limit(500)
    .execute()
  return {
    cutoff,
    rows: rows.map((r) => ({ id: Number(r.id), reservedBy: r.reserved_by ?? '', token: r.claim_token })),
  }
}

/**
 * Whether any agent of `pbx` is held on a call since before `olderThan` (its holder stopped refreshing
 * it). Another PBX's agents are left to that PBX's dialers, which can ask it for their calls.
 */
export async function hasStaleAgents(db: Kysely<Database>, olderThan: string, pbx: string): Promise<boolean> {
  const row = await db
    .selectFrom('dialer_employee')
    .select('id')
    .where('pbx', '=', pbx)
    .where('on_call_by', 'is not', null)
    .where('on_call_since', '<', olderThan)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** The dialers holding a reservation of any of these leads (the leads of the PBX's live calls). */
export async function holdersOfLeads(db: Kysely<Database>, leadIds: number[]): Promise<string[]> {
  const holders = new Set<string>()
  for (let i = 0; i < leadIds.length; i += 1000) {
    const rows = await db
      .selectFrom('hold_dialer_master_data')
      .select('reserved_by')
      .distinct()
      .where('id', 'in', leadIds.slice(i, i + 1000))
      .where('isReserved', '=', 1)
      .where('reserved_by', 'is not', null)
      .execute()
    for (const r of rows) if (r.reserved_by) holders.add(r.reserved_by)
  }
  return [...holders]
}

/**
 * Agents held on a call by a dialer that stopped refreshing them (or by this dialer before a restart),
 * except those held by `notHeldBy` (dialers with a call still live at the PBX: paused, not dead, or
 * dead with the customer and the agent still talking).
 */
export async function releaseStaleAgents(
  db: Kysely<Database>,
  options: { olderThan?: string; heldBy?: string; except?: number[]; notHeldBy?: string[]; pbx?: string },
) {
  let q = db
    .updateTable('dialer_employee')
    .set({ on_call_by: null, on_call_since: null })
    .where('on_call_by', 'is not', null)
  if (options.pbx !== undefined) q = q.where('pbx', '=', options.pbx)
  if (options.olderThan) q = q.where('on_call_since', '<', options.olderThan)
  if (options.heldBy) q = q.where('on_call_by', '=', options.heldBy)
  if (options.except && options.except.length > 0) q = q.where('id', 'not in', options.except)
  if (options.notHeldBy && options.notHeldBy.length > 0)
    q = q.where('on_call_by', 'not in', options.notHeldBy)
  const r = await q.executeTakeFirst()
  return Number(r.numUpdatedRows)
}
