import type { Generated, Insertable, Selectable } from 'kysely'
import type { MasterTable } from './master.table.js'

/**
 * `dnc`: the number was on the do-not-call list at claim (hold_dialer_dnc); `unreadable_number`: its
 * international form could not be worked out, so it was never dialed.
 */
export type DisposedReason = 'ticket_close' | 'max_tries' | 'dnc' | 'unreadable_number'

/**
 * `hold_dialer_disposed`: a copy of a master row taken on ticket Close or (pool mode) when
 * `call_count` reaches `max_tries`. The same `oli_id` may be archived more than once (pushed again
 * after a Close), so it is indexed, not unique; `master_id` keeps the master row's id.
 */
export interface DisposedTable extends Omit<MasterTable, 'id' | 'claim_token'> {
  id: Generated<number>
  master_id: number
  disposed_at: string
  disposed_reason: DisposedReason
}

export type DisposedRow = Selectable<DisposedTable>
export type NewDisposedRow = Insertable<DisposedTable>
