import type { NewMasterRow } from '../tables/master.table.js'

/**
 * Every column of a master row but its `id`, in one fixed order: what a push writes, what an archived
 * copy keeps, and the column list of every hand-built statement over them (the API's batch upserts,
 * the benchmark's ceiling scripts).
 */
export const MASTER_DATA_COLUMNS = [
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
  'customer_tz',
  'phone_e164',
] as const satisfies readonly (keyof NewMasterRow)[]
