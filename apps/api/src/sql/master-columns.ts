import { MASTER_DATA_COLUMNS, type NewMasterRow } from '@hold-dialer/db'

/** Every column a push writes, in the order the hand-built upserts list them. */
export const PUSH_COLUMNS = MASTER_DATA_COLUMNS

/** Columns a push overwrites on an existing row: everything but `id`, `oli_id` and `created_at`. */
export const PUSH_UPDATES = PUSH_COLUMNS.filter((c) => c !== 'oli_id' && c !== 'created_at')

/** One row's values in `PUSH_COLUMNS` order, written into `out` from `at` (default: its end). */
export function pushValues(row: NewMasterRow, out: unknown[] = [], at = out.length): unknown[] {
  for (let k = 0; k < PUSH_COLUMNS.length; k++) out[at + k] = row[PUSH_COLUMNS[k]!] ?? null
  return out
}

/** `(?, ?, ...)` for one row. */
export const ROW_PLACEHOLDERS = `(${PUSH_COLUMNS.map(() => '?').join(', ')})`

/** A live lead: on a call (Calling) and reserved by a dialer. The API never writes to one. */
export const LIVE_SQL = "(dial_status = 'Calling' AND isReserved = 1)"
