import type { Dialect, MasterRow, Statement } from '@hold-dialer/db'

/** What a push needs of an existing lead: its id, and whether it is live. */
export type LockedLead = Pick<
  MasterRow,
  'id' | 'oli_id' | 'priority_id' | 'dial_status' | 'isReserved' | 'agent_id'
>

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

/** `lockLeadsStatement`'s rows, typed: the drivers may return the integer columns as text or bigint. */
export function lockedLeads(rows: readonly Record<string, unknown>[]): LockedLead[] {
  return (rows as unknown as LockedLead[]).map((r) => ({
    ...r,
    id: Number(r.id),
    priority_id: Number(r.priority_id),
    isReserved: Number(r.isReserved),
    agent_id: r.agent_id === null ? null : Number(r.agent_id),
  }))
}
