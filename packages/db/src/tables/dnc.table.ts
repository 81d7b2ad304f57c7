import type { Insertable, Selectable } from 'kysely'

/**
 * `hold_dialer_dnc`: the do-not-call list. A lead whose international form equals a listed,
 * unexpired `e164` (or whose stored digits equal `digits`) is never dialed: the claim ends it instead
 * (pool: archived as `dnc`; pinned: Disposed).
 */
export interface DncTable {
  /**
   * The key: the international digits (`e164` without its `+`) for entries added since the
   * international form existed; the digits as they were added for entries from before.
   */
  digits: string
  /** The entry's international form; NULL until worked out for an entry from before, '' unreadable. */
  e164: string | null
  /** Where the entry came from (`national-registry`, `customer-request`, a file name); free text. */
  source: string | null
  added_at: string
  /** Listed until then (UTC); NULL: until removed. */
  expires_at: string | null
}

export type DncRow = Selectable<DncTable>
export type NewDncRow = Insertable<DncTable>
