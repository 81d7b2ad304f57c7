import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import type { StoredZones } from '../claim/rules.js'

/**
 * The distinct `customer_tz` values on master: a handful (one per zone or set of zones the leads'
 * numbers map to), read through ix_master_customer_tz.
 */
export async function readStoredZones(db: Kysely<Database>): Promise<StoredZones> {
  const rows = await db.selectFrom('hold_dialer_master_data').select('customer_tz').distinct().execute()
  const values = rows.flatMap((r) => (r.customer_tz === null ? [] : [r.customer_tz]))
  return { values, hasUnzoned: values.length < rows.length }
}
