import { sql, type Transaction } from 'kysely'
import type { Database } from '../database.js'
import type { DisposedReason } from '../tables/disposed.table.js'
import { MASTER_DATA_COLUMNS } from './master-columns.js'

/** Master columns copied to `hold_dialer_disposed` (everything but the master's own `id`). */
export const ARCHIVED_COLUMNS = MASTER_DATA_COLUMNS

/**
 * Copies a master row to `hold_dialer_disposed` and deletes it from master, in the caller's
 * transaction (ticket Close; pool mode's max_tries). The caller has locked the row and written its
 * final values first; the copy is taken from the row as it stands.
 */
export async function archiveLead(
  trx: Transaction<Database>,
  masterId: number,
  reason: DisposedReason,
  disposedAt: string,
): Promise<void> {
  const cols = sql.join(ARCHIVED_COLUMNS.map((c) => sql.ref(c)))
  await sql`INSERT INTO hold_dialer_disposed (${cols}, master_id, disposed_at, disposed_reason)
    SELECT ${cols}, id, ${disposedAt}, ${reason} FROM hold_dialer_master_data WHERE id = ${masterId}`.execute(
    trx,
  )
  await trx.deleteFrom('hold_dialer_master_data').where('id', '=', masterId).execute()
}
