import { MASTER_DATA_COLUMNS, type NewMasterRow } from '@hold-dialer/db'

/** Every column a push writes, in the order the hand-built upserts list them. */
export const PUSH_COLUMNS = MASTER_DATA_COLUMNS

/** Columns a push overwrites on an existing row: everything but `id`, `oli_id` and `created_at`. */
export const PUSH_UPDATES = PUSH_COLUMNS.filter((c) => c !== 'oli_id' && c !== 'created_at')

/**
 * One row's values in `PUSH_COLUMNS` order, written into `out` from `at` (default: its end). Each
 * column is read by its own name: a loop over the names is a lookup by a changing key, which V8
 * cannot cache, on every value of every row (a push of 500 leads reads 12,500). The API's
 * push-values test fails if this order and PUSH_COLUMNS' ever differ.
 */
export function pushValues(row: NewMasterRow, out: unknown[] = [], at = out.length): unknown[] {
  out[at] = row.oli_id
  out[at + 1] = row.phone_number
  out[at + 2] = row.client_name ?? null
  out[at + 3] = row.form_type ?? null
  out[at + 4] = row.priority_id ?? null
  out[at + 5] = row.agent_id ?? null
  out[at + 6] = row.callback_scheduled_at ?? null
  out[at + 7] = row.dial_status ?? null
  out[at + 8] = row.last_dial_result ?? null
  out[at + 9] = row.hangup_by ?? null
  out[at + 10] = row.hangup_cause ?? null
  out[at + 11] = row.last_attempt_at ?? null
  out[at + 12] = row.first_attempt_at ?? null
  out[at + 13] = row.next_retry_at ?? null
  out[at + 14] = row.call_count ?? null
  out[at + 15] = row.isReserved ?? null
  out[at + 16] = row.isRnrSent ?? null
  out[at + 17] = row.reserved_by ?? null
  out[at + 18] = row.reserved_at ?? null
  out[at + 19] = row.previous_status ?? null
  out[at + 20] = row.push_date ?? null
  out[at + 21] = row.status ?? null
  out[at + 22] = row.created_at ?? null
  out[at + 23] = row.customer_tz ?? null
  out[at + 24] = row.phone_e164 ?? null
  return out
}

/** `(?, ?, ...)` for one row. */
export const ROW_PLACEHOLDERS = `(${PUSH_COLUMNS.map(() => '?').join(', ')})`

/** A live lead: on a call (Calling) and reserved by a dialer. The API never writes to one. */
export const LIVE_SQL = "(dial_status = 'Calling' AND isReserved = 1)"
