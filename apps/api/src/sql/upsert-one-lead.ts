import type { Db, NewMasterRow } from '@hold-dialer/db'
import { CompiledQuery } from 'kysely'
import { LIVE_SQL, PUSH_COLUMNS, PUSH_UPDATES, pushValues, ROW_PLACEHOLDERS } from './master-columns.js'

/**
 * Every assignment keeps the old value while the row is live. The order of the assignments does not
 * matter: a live row keeps every value, so it stays live while the list is evaluated, and a push never
 * writes Calling, so a row that was not live does not become live halfway.
 */
const GUARDED_UPSERT = `INSERT INTO hold_dialer_master_data (${PUSH_COLUMNS.join(', ')}) VALUES ${ROW_PLACEHOLDERS}
ON DUPLICATE KEY UPDATE ${PUSH_UPDATES.map((c) => `${c} = IF(${LIVE_SQL}, ${c}, VALUES(${c}))`).join(', ')}`

export type OneLeadOutcome = 'inserted' | 'updated' | 'unchanged'

/**
 * MySQL: upserts one lead in a single autocommit statement that leaves a live row alone, and tells
 * from the affected-row count (connections count changed rows, not matched ones) what happened: 1
 * inserted, 2 overwritten, 0 unchanged. Unchanged is either a live lead or a push identical to the
 * row to the millisecond; the caller settles which under a lock. The statement locks the row it
 * updates, so a claim cannot slip in between the live check and the write.
 * SQLite has no such statement: undefined, nothing written; the caller writes the lead locked.
 */
export async function upsertOneLead(db: Db, row: NewMasterRow): Promise<OneLeadOutcome | undefined> {
  if (db.dialect !== 'mysql') return undefined
  const result = await db.kysely.executeQuery(CompiledQuery.raw(GUARDED_UPSERT, pushValues(row)))
  const affected = Number(result.numAffectedRows ?? 0n)
  if (affected === 1) return 'inserted'
  if (affected === 2) return 'updated'
  if (affected === 0) return 'unchanged'
  throw new Error(`single-lead upsert affected ${affected} rows`)
}
