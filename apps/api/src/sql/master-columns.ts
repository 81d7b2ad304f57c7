import type { NewMasterRow } from '@hold-dialer/db'

/** Every column a push writes, in the order the hand-built upserts list them. */
export const PUSH_COLUMNS = [
  'oli_id',
  'phone_number',
  'client_name',
  'form_type',
  'priority_id',
  'agent_id',
  'callback_scheduled_at',
  'dial_status',
  'last_dial_result',
  'hangup_by',
  'hangup_cause',
  'last_attempt_at',
  'first_attempt_at',
  'next_retry_at',
  'call_count',
  'isReserved',
  'isRnrSent',
  'reserved_by',
  'reserved_at',
  'previous_status',
  'push_date',
  'status',
  'created_at',
] as const satisfies readonly (keyof NewMasterRow)[]

/** Columns a push overwrites on an existing row: everything but `id`, `oli_id` and `created_at`. */
export const PUSH_UPDATES = PUSH_COLUMNS.filter((c) => c !== 'oli_id' && c !== 'created_at')

/** One row's values in `PUSH_COLUMNS` order. */
export function pushValues(row: NewMasterRow, out: unknown[] = []): unknown[] {
  for (const c of PUSH_COLUMNS) out.push(row[c] ?? null)
  return out
}

/** `(?, ?, ...)` for one row. */
export const ROW_PLACEHOLDERS = `(${PUSH_COLUMNS.map(() => '?').join(', ')})`

/** A live lead: on a call (Calling) and reserved by a dialer. The API never writes to one. */
export const LIVE_SQL = "(dial_status = 'Calling' AND isReserved = 1)"
