import { customerZoneColumn, internationalFormOfDigits } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { Database } from '../database.js'
import { withTransaction } from '../transaction.js'

/** How stored digits are read: national numbers' country and the clock of a number with none. */
export interface PhoneReading {
  /** DEFAULT_COUNTRY, else TIMEZONE's country (`phoneCountry`); undefined: digits carry their code. */
  country: string | undefined
  /** TIMEZONE: `customer_tz` of a number that maps to no zone. */
  fallbackZone: string
}

/** Rows filled by one `fillPhoneIdentities` pass, per table. */
export interface FilledRows {
  leads: number
  dnc: number
  attempts: number
}

/**
 * Works out the international form of up to `limit` rows of each table that have none yet (NULL:
 * written before the column existed, or by an API of an earlier version during an upgrade), and the
 * lead's `customer_tz` from it. Only digits are stored there, so they are read as
 * `internationalFormOfDigits` reads them. Each table's rows are written in one transaction; a lead is
 * written only while it still has no international form and the same digits, so a push that landed
 * meanwhile (with its own form, worked out from the text sent) is never overwritten. Found through
 * the column's index (`ix_master_phone_e164`, `ix_attempts_phone_e164`, `ix_dnc_e164`), so a pass
 * with nothing to do is three index look-ups.
 */
export async function fillPhoneIdentities(
  db: Kysely<Database>,
  reading: PhoneReading,
  limit: number,
): Promise<FilledRows> {
  const formOf = memoised((digits: string) => internationalFormOfDigits(digits, reading.country))
  const leads = await db
    .selectFrom('hold_dialer_master_data')
    .select(['id', 'phone_number'])
    .where('phone_e164', 'is', null)
    .limit(limit)
    .execute()
  if (leads.length > 0) {
    await withTransaction(db, async (trx) => {
      for (const lead of leads) {
        const e164 = formOf(lead.phone_number)
        await trx
          .updateTable('hold_dialer_master_data')
          .set({ phone_e164: e164, customer_tz: customerZoneColumn(e164, reading.fallbackZone) })
          .where('id', '=', lead.id)
          .where('phone_e164', 'is', null)
          .where('phone_number', '=', lead.phone_number)
          .execute()
      }
    })
  }
  const entries = await db
    .selectFrom('hold_dialer_dnc')
    .select('digits')
    .where('e164', 'is', null)
    .limit(limit)
    .execute()
  if (entries.length > 0) {
    await withTransaction(db, async (trx) => {
      for (const entry of entries) {
        await trx
          .updateTable('hold_dialer_dnc')
          .set({ e164: formOf(entry.digits) })
          .where('digits', '=', entry.digits)
          .where('e164', 'is', null)
          .execute()
      }
    })
  }
  const calls = await db
    .selectFrom('hold_dialer_call_attempts')
    .select(['id', 'phone_number'])
    .where('phone_e164', 'is', null)
    .limit(limit)
    .execute()
  if (calls.length > 0) {
    await withTransaction(db, async (trx) => {
      for (const call of calls) {
        await trx
          .updateTable('hold_dialer_call_attempts')
          .set({ phone_e164: formOf(call.phone_number) })
          .where('id', '=', call.id)
          .execute()
      }
    })
  }
  return { leads: leads.length, dnc: entries.length, attempts: calls.length }
}

/** Each distinct digits read once per pass: a table of retries holds the same numbers many times. */
function memoised(read: (digits: string) => string): (digits: string) => string {
  const known = new Map<string, string>()
  return (digits) => {
    let form = known.get(digits)
    if (form === undefined) {
      form = read(digits)
      known.set(digits, form)
    }
    return form
  }
}
