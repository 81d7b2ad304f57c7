import { readdirSync, readFileSync } from 'node:fs'
import { adminConnection } from '../lib/databases.js'

/**
 * Linux reports /proc/<pid>/stat times in clock ticks of USER_HZ, which is 100 on every mainstream
 * kernel build (it is fixed by the ABI, whatever CONFIG_HZ is).
 */
const TICKS_PER_SECOND = 100

/** The pid of the local MariaDB (or MySQL) server, if one runs on this host and /proc shows it. */
export function mariadbPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim()
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry)
    } catch {
      // The process ended while the list was read.
    }
  }
  return undefined
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat; null if unreadable. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The fields after the command name, which is in parentheses and may hold spaces: the 14th and
    // 15th of the line (utime, stime) are the 12th and 13th after it.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return null
  }
}

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
