import { MASTER_DATA_COLUMNS } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { LeadBody } from './lead-mix.js'

/** Every column a push writes, in one fixed order, for the plain scripts that stand for the ceiling. */
export const MASTER_COLUMNS = MASTER_DATA_COLUMNS

/** Columns an upsert overwrites on an existing row: all but the key and the creation time. */
export const UPDATED_COLUMNS = MASTER_COLUMNS.filter((c) => c !== 'oli_id' && c !== 'created_at')

export type MasterValues = (string | number | null)[]

/** The row a push writes for `lead` (the push reset with the working window open all day). */
export function masterValues(lead: LeadBody, stamp: string): MasterValues {
  return [
    lead.oli_id,
    lead.phone_number.replace(/\D/g, ''),
    lead.client_name,
    lead.form_type,
    lead.priority_id,
    null,
    null,
    'Pending',
    null,
    null,
    null,
    null,
    null,
    null,
    0,
    0,
    0,
    null,
    null,
    null,
    stamp,
    1,
    stamp,
    // customer_tz: the API derives it from the number; one zone for the ceiling's row.
    'America/New_York',
    // phone_e164: the API reads it from the number as sent (with its +).
    `+${lead.phone_number.replace(/\D/g, '')}`,
  ]
}

export const nowStamp = () => toDbTime(new Date())
