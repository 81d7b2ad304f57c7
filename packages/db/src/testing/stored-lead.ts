import type { NewMasterRow } from '../tables/master.table.js'

/**
 * A Pending lead as an API of a release before the international form stored it: digits only,
 * `phone_e164` and `customer_tz` NULL (what the dialer's fill and `pnpm phones backfill` work on).
 */
export function storedLeadWithoutForm(oliId: string, phoneNumber: string, stamp: string): NewMasterRow {
  return {
    oli_id: oliId,
    phone_number: phoneNumber,
    client_name: 'Test',
    form_type: 'f',
    priority_id: 1,
    agent_id: null,
    callback_scheduled_at: null,
    dial_status: 'Pending',
    last_dial_result: null,
    hangup_by: null,
    hangup_cause: null,
    last_attempt_at: null,
    first_attempt_at: null,
    next_retry_at: null,
    call_count: 0,
    isReserved: 0,
    isRnrSent: 0,
    reserved_by: null,
    reserved_at: null,
    previous_status: null,
    push_date: stamp,
    status: 1,
    created_at: stamp,
    customer_tz: null,
    phone_e164: null,
  }
}
