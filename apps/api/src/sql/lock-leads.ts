import type { Dialect, Statement } from '@hold-dialer/db'

export interface LockedLead {
  id: number
  oli_id: string
  priority_id: number
  dial_status: string
  isReserved: number
  agent_id: number | null
}

/**
 * Locks the master rows of these `oli_id`s, in `oli_id` order so that two batches with overlapping
 * ids always lock in the same order and cannot deadlock each other. SQLite needs no row lock: the
 * transaction holds the database's write lock from BEGIN IMMEDIATE. A statement for the push's batch
 * transaction (one round trip with its BEGIN).
 */
export function lockLeadsStatement(dialect: Dialect, oliIds: readonly string[]): Statement {
  return {
    sql: `SELECT id, oli_id, priority_id, dial_status, isReserved, agent_id FROM hold_dialer_master_data
      WHERE oli_id IN (${oliIds.map(() => '?').join(', ')}) ORDER BY oli_id${dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
    params: oliIds,
  }
}
