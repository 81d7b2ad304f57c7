export {
  type ConnectOptions,
  connect,
  type Db,
  type DbTarget,
  type Dialect,
  describeDatabaseUrl,
} from './connect.js'
export type { Database, SchemaMigrationTable } from './database.js'
export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  type MigrateOptions,
  type MigrateResult,
  type Migration,
  migrate,
  splitStatements,
} from './migrate.js'
export { retryableReason } from './retryable-errors.js'
export type * from './tables/call-attempt.table.js'
export type * from './tables/disposed.table.js'
export type * from './tables/employee.table.js'
export type * from './tables/heartbeat.table.js'
export type * from './tables/master.table.js'
export type * from './tables/priority.table.js'
export type * from './tables/rnr-outbox.table.js'
export { type TransactionOptions, TransactionFailedError, withTransaction } from './transaction.js'
