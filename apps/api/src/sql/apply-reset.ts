import type { Database } from '@hold-dialer/db'
import { type DialStateReset, toDbTime } from '@hold-dialer/rules'
import type { Transaction } from 'kysely'

/** Writes the spec's dial-state reset for Close or a callback to one locked master row. */
export async function applyReset(
  trx: Transaction<Database>,
  id: number,
  reset: DialStateReset,
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
    })
    .where('id', '=', id)
    .execute()
}
