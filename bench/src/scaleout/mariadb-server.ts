import { adminConnection } from '../lib/databases.js'

/** InnoDB's server-wide counters of row-lock waits and deadlocks. */
export async function innodbLockCounters(): Promise<{ rowLockWaits: number; deadlocks: number }> {
  const conn = await adminConnection()
  try {
    const [rows] = await conn.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_waits', 'Innodb_deadlocks')",
    )
    const get = (name: string) =>
      Number(
        (rows as { Variable_name: string; Value: string }[]).find((r) => r.Variable_name === name)?.Value ??
          0,
      )
    return { rowLockWaits: get('Innodb_row_lock_waits'), deadlocks: get('Innodb_deadlocks') }
  } finally {
    await conn.end()
  }
}
