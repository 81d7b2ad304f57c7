import type { Database } from '@hold-dialer/db'
import type { Transaction } from 'kysely'

/**
 * A call that was never placed (failed originate, or a stale reservation with no live channel): the
 * previous status comes back, the reservation is cleared, `call_count` is not touched.
 */
export async function restoreLead(
  trx: Transaction<Database>,
  id: number,
  previousStatus: string | null,
): Promise<void> {
  await trx
    .updateTable('hold_dialer_master_data')
    .set((eb) => ({
      dial_status: previousStatus === null ? eb.ref('dial_status') : (previousStatus as never),
      previous_status: null,
      isReserved: 0,
      reserved_by: null,
      reserved_at: null,
    }))
    .where('id', '=', id)
    .execute()
}
