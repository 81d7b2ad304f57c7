import { readFileSync } from 'node:fs'

/**
 * A field of /proc/<pid>/status in MiB: `VmHWM` is the peak resident set since the process started,
 * so reading it once after the load gives the peak under that load without sampling.
 */
export function procStatusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)
  if (!match) throw new Error(`/proc/${pid}/status has no ${field}`)
  return Number(match[1]) / 1024
}
