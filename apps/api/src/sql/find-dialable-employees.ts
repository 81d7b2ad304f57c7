import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

/** Of `ids`, those on the employee roster with an extension (pinned mode's `agent_id` check). */
export async function findEmployeesWithExtension(db: Kysely<Database>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('dialer_employee')
    .select('id')
    .where('id', 'in', ids)
    .where('extension', 'is not', null)
    .where('extension', '!=', '')
    .execute()
  return new Set(rows.map((r) => r.id))
}
