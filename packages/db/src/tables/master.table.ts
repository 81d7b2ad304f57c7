import type { DialStatus } from '@hold-dialer/rules'
import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/**
 * `hold_dialer_master_data`: the lead table shared by the API and the dialers. Column names are the
 * specification's, spelled as it spells them (`isReserved`, `isRnrSent`), so an existing dialer can
 * share the table. Every timestamp is UTC text `YYYY-MM-DD HH:MM:SS.SSS` on both engines.
 */
export interface MasterTable {
  id: Generated<number>
  oli_id: string
  /** Digits only, 10-15. */
  phone_number: string
  client_name: string
  form_type: string
  priority_id: number
  /** Pinned mode's pin (`dialer_employee.id`); always NULL in pool mode. */
  agent_id: number | null
  callback_scheduled_at: string | null
  dial_status: DialStatus
  last_dial_result: string | null
  hangup_by: string | null
  hangup_cause: string | null
  last_attempt_at: string | null
  first_attempt_at: string | null
  next_retry_at: string | null
  call_count: number
  isReserved: number
  isRnrSent: number
  /** Dialer instance holding the reservation. */
  reserved_by: string | null
  reserved_at: string | null
  /** Status to restore when an originate fails or a stale reservation is released. */
  previous_status: DialStatus | null
  push_date: string
  status: number
  created_at: string
  /**
   * The customer's IANA zones, space-separated, derived from `phone_number` at push; TIMEZONE when
   * the number maps to none; NULL on leads pushed before the column existed.
   */
  customer_tz: string | null
  /**
   * The number's international form (E.164, `+3612345201`), from the text the CRM sent
   * (`internationalForm` in packages/rules): what is dialed, matched and placed. `''` when the
   * number cannot be read (never dialed); NULL until worked out for a row written before the column.
   */
  phone_e164: string | null
  /**
   * The token of the claim that holds the reservation (8 hex digits), set by every claim: the call it
   * places is `hd-<id>-<token>`, and a settle, restore or adoption writes only while it is still
   * this. NULL on a lead not claimed since the column exists. Not copied to the archive.
   */
  claim_token: string | null
}

export type MasterRow = Selectable<MasterTable>
export type NewMasterRow = Insertable<MasterTable>
export type MasterUpdate = Updateable<MasterTable>
