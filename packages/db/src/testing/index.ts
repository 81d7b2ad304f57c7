export { childEntry, childrenRunBuild } from './child-entry.js'
export { forEachDialect } from './for-each-dialect.js'
export { unlessAlreadyGone } from './kill.js'
export { mysqlOutage, type Outage, sqliteOutage } from './outage.js'
export { storedLeadWithoutForm } from './stored-lead.js'
export { TcpProxy } from './tcp-proxy.js'
export { fakeClockEnv, MIDDAY_HOUR, middayZone, withoutFakeClock } from './test-clock.js'
export {
  createTestDatabase,
  DEFAULT_TEST_MYSQL_URL,
  recordDialectResult,
  type TestDatabase,
  testDatabaseName,
  testDialects,
  testMysqlUrl,
} from './test-database.js'
