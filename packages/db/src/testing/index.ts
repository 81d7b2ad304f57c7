export { forEachDialect } from './for-each-dialect.js'
export { unlessAlreadyGone } from './kill.js'
export { mysqlOutage, type Outage, sqliteOutage } from './outage.js'
export { TcpProxy } from './tcp-proxy.js'
export {
  createTestDatabase,
  DEFAULT_TEST_MYSQL_URL,
  recordDialectResult,
  type TestDatabase,
  testDialects,
  testMysqlUrl,
} from './test-database.js'
