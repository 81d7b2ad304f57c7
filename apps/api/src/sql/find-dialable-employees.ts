import { type Database, withRetry } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

/**
 * Of `ids`, the employees pinned mode may pin a lead to: active, with an extension that is not blank
 * (DECISIONS section 3; the spec: no extension, 400). Blank is judged here rather than in SQL, where
 * TRIM removes spaces only, not tabs or other white space.
 */
export async function findEmployeesWithExtension(db: Kysely<Database>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  // Retried on a lost connection, like every read that decides an answer.
  const rows = await withRetry(() =>
    db
      .selectFrom('dialer_employee')
      .select(['id', 'extension'])
      .where('id', 'in', ids)
      .where('is_active', '=', 1)
      .execute(),
  )
  return new Set(rows.filter((r) => r.extension !== null && r.extension.trim() !== '').map((r) => r.id))
}
