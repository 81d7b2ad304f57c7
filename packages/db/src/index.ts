export {
  type AvailabilityLogger,
  DatabaseAvailability,
  type DatabaseAvailabilityOptions,
  SchemaBehindError,
} from './availability.js'
export {
  type BatchRunner,
  type BatchSession,
  runStatement,
  type Statement,
  type StatementResult,
} from './batch.js'
export {
  type ConnectOptions,
  connect,
  type Db,
  type DbTarget,
  type Dialect,
  describeDatabaseUrl,
} from './connect.js'
export type { Database, SchemaMigrationTable } from './database.js'
export { GroupCommit, type GroupCommitOptions } from './group-commit.js'
export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  type MigrateOptions,
  type MigrateResult,
  type Migration,
  migrate,
  pendingMigrations,
  splitStatements,
} from './migrate.js'
export { connectOrExit, type FatalLogger } from './open-or-exit.js'
export { ARCHIVED_COLUMNS, archiveLead } from './queries/archive-lead.js'
export { dialectOf } from './queries/dialect-of.js'
export {
  type FilledRows,
  fillArchivedIdentities,
  fillAttemptIdentities,
  fillDncIdentities,
  fillLeadIdentities,
  fillPhoneIdentities,
  type PhoneReading,
} from './queries/fill-phone-identity.js'
export { applyReset, type LockedLead, lockLead, scheduleLeadCallback } from './queries/lead-callback.js'
export { isLive } from './queries/live-lead.js'
export { MASTER_DATA_COLUMNS } from './queries/master-columns.js'
export { takeInsertedValues } from './queries/upsert-set.js'
export { isDuplicateKey, retryableReason, unavailableReason } from './retryable-errors.js'
export type * from './tables/abandon-stats.table.js'
export type * from './tables/agent-session.table.js'
export type * from './tables/call-attempt.table.js'
export type * from './tables/disposed.table.js'
export type * from './tables/dnc.table.js'
export type * from './tables/employee.table.js'
export type * from './tables/heartbeat.table.js'
export type * from './tables/master.table.js'
export type * from './tables/priority.table.js'
export type * from './tables/rnr-outbox.table.js'
export {
  TransactionFailedError,
  type TransactionOptions,
  withBatchTransaction,
  withRetry,
  withTransaction,
} from './transaction.js'
