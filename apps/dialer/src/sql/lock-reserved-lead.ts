import { type Database, dialectOf, isLive } from '@hold-dialer/db'
import type { Kysely, Transaction } from 'kysely'

/** Who holds a lead a late call found claimed again (or released): logged with the call's own token. */
export interface CurrentHolder {
  /** The dialer holding it now; null when it is not reserved (or gone, archived). */
  holder: string | null
  /** The lead's last claim token. */
  token: string | null
}

/**
 * Locks a lead at settle and returns it only if this dialer still holds it live under the claim that
 * placed the call (`token`, calls/call-key.ts; a reservation from before claim tokens has none). A
 * lead another dialer released as stale and claimed again, or an operator changed, is not this
 * call's to settle any more: then `superseded` says who holds it now (`undefined` holder: the row
 * is gone, archived).
 */
export async function lockReservedLead(
  trx: Transaction<Database>,
  id: number,
  dialerId: string,
  token: string | undefined,
) {
  let q = trx.selectFrom('hold_dialer_master_data').selectAll().where('id', '=', id)
  if (dialectOf(trx) === 'mysql') q = q.forUpdate()
  const row = await q.executeTakeFirst()
  const ours =
    row !== undefined &&
    isLive(row) &&
    row.reserved_by === dialerId &&
    (row.claim_token === null || row.claim_token === token)
  if (!ours) {
    const superseded: CurrentHolder = {
      holder: row && isLive(row) ? row.reserved_by : null,
      token: row?.claim_token ?? null,
    }
    return { lead: undefined, superseded }
  }
  return { lead: { ...row, id: Number(row.id) }, superseded: undefined }
}

/** Whether the lead is still held live by this dialer under the claim `token` (a read, no lock). */
export async function holdsClaim(
  db: Kysely<Database>,
  id: number,
  dialerId: string,
  token: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('hold_dialer_master_data')
    .select(['dial_status', 'isReserved', 'reserved_by', 'claim_token'])
    .where('id', '=', id)
    .executeTakeFirst()
  return row !== undefined && isLive(row) && row.reserved_by === dialerId && row.claim_token === token
}
