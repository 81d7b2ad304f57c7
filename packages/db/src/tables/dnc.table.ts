import type { Insertable, Selectable } from 'kysely'

/**
 * `hold_dialer_dnc`: the do-not-call list. A lead whose `phone_number` equals a listed, unexpired
 * `digits` is never dialed: the claim ends it instead (pool: archived as `dnc`; pinned: Disposed).
 */
export interface DncTable {
  /** Digits only, as leads store their number. */
  digits: string
  /** Where the entry came from (`national-registry`, `customer-request`, a file name); free text. */
  source: string | null
  added_at: string
  /** Listed until then (UTC); NULL: until removed. */
  expires_at: string | null
}

export type DncRow = Selectable<DncTable>
export type NewDncRow = Insertable<DncTable>
