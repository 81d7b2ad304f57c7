import { MysqlAdapter } from 'kysely'
import type { Dialect } from '../connect.js'

/** Which engine a Kysely instance or transaction talks to, for the few statements that differ. */
export function dialectOf(db: { getExecutor(): { readonly adapter: unknown } }): Dialect {
  return db.getExecutor().adapter instanceof MysqlAdapter ? 'mysql' : 'sqlite'
}
