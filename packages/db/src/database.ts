import type { AbandonStatsTable } from './tables/abandon-stats.table.js'
import type { AgentSessionTable, AgentSignInTable } from './tables/agent-session.table.js'
import type { CallAttemptTable } from './tables/call-attempt.table.js'
import type { DisposedTable } from './tables/disposed.table.js'
import type { DncTable } from './tables/dnc.table.js'
import type { EmployeeTable } from './tables/employee.table.js'
import type { HeartbeatTable } from './tables/heartbeat.table.js'
import type { MasterTable } from './tables/master.table.js'
import type { PriorityTable } from './tables/priority.table.js'
import type { RnrOutboxTable } from './tables/rnr-outbox.table.js'

export interface SchemaMigrationTable {
  id: string
  applied_at: string
}

/** Every table the API and the dialers share. */
export interface Database {
  hold_dialer_master_data: MasterTable
  hold_dialer_priority: PriorityTable
  hold_dialer_disposed: DisposedTable
  hold_dialer_call_attempts: CallAttemptTable
  dialer_employee: EmployeeTable
  hold_dialer_heartbeat: HeartbeatTable
  hold_dialer_rnr_outbox: RnrOutboxTable
  hold_dialer_schema_migrations: SchemaMigrationTable
  hold_dialer_abandon_stats: AbandonStatsTable
  hold_dialer_dnc: DncTable
  hold_dialer_agent_session: AgentSessionTable
  hold_dialer_agent_sign_in: AgentSignInTable
}
