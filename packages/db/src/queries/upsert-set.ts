import { type RawBuilder, sql } from 'kysely'
import type { Dialect } from '../connect.js'

/**
 * The SET list of an upsert that overwrites `columns` with the values the INSERT carried:
 * `VALUES(col)` on MySQL/MariaDB (MariaDB has no `AS new` row alias; MySQL 8 still accepts VALUES()),
 * `excluded.col` on SQLite. `Row` is the table's selectable row type, for the value types.
 */
export function takeInsertedValues<Row, C extends keyof Row & string>(
  dialect: Dialect,
  columns: readonly C[],
): { [K in C]: RawBuilder<Row[K]> } {
  const out = {} as { [K in C]: RawBuilder<Row[K]> }
  for (const c of columns) {
    out[c] =
      dialect === 'mysql'
        ? sql<Row[typeof c]>`VALUES(${sql.ref(c)})`
        : sql<Row[typeof c]>`excluded.${sql.ref(c)}`
  }
  return out
}
