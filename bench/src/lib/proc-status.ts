import { readdirSync, readFileSync } from 'node:fs'

type Field = 'VmHWM' | 'VmRSS' | 'RssAnon' | 'RssFile'

/** Fields of /proc/<pid>/status in MiB; undefined once the process is gone. */
export function procStatus(pid: number): Partial<Record<Field, number>> | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return undefined
  }
  const out: Partial<Record<Field, number>> = {}
  for (const match of text.matchAll(/^(VmHWM|VmRSS|RssAnon|RssFile):\s+(\d+) kB/gm)) {
    out[match[1] as Field] = Number(match[2]) / 1024
  }
  return out
}

/**
 * A field of /proc/<pid>/status in MiB: `VmHWM` is the peak resident set since the process started,
 * so reading it once after the load gives the peak under that load without sampling.
 */
export function procStatusMiB(pid: number, field: Field): number {
  const value = procStatus(pid)?.[field]
  if (value === undefined) throw new Error(`/proc/${pid}/status has no ${field}`)
  return value
}

/**
 * The peak resident set split in two, sampled: the process's own memory (`RssAnon`: heap, stacks,
 * buffers) and the file pages it maps (`RssFile`: the Node binary's code and data, native addons).
 * The kernel keeps a peak only of their sum (VmHWM); the file part is mostly pages of the Node binary
 * that every Node process on the host maps at once, so it depends on what else runs (a bare
 * `node -e` measured 42 MiB run from a private copy of the binary and 71 MiB from the copy other
 * Node processes were running). The private part is what one more process costs.
 */
export class MemorySampler {
  peakAnonMiB = 0
  peakFileMiB = 0
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs)
    this.timer.unref()
  }

  sample(): void {
    const s = procStatus(this.pid)
    if (!s) return
    this.peakAnonMiB = Math.max(this.peakAnonMiB, s.RssAnon ?? 0)
    this.peakFileMiB = Math.max(this.peakFileMiB, s.RssFile ?? 0)
  }

  stop(): void {
    this.sample()
    clearInterval(this.timer)
  }
}

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

/** utime + stime of a /proc `stat` file, in ms; null if unreadable. */
function statCpuMs(path: string): number | null {
  try {
    const stat = readFileSync(path, 'utf8')
    // The fields after the command name, which is in parentheses and may hold spaces: the 14th and
    // 15th of the line (utime, stime) are the 12th and 13th after it.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return null
  }
}

/** CPU time (user + system) a process has used, all its threads, in ms; null if unreadable. */
export function processCpuMs(pid: number | undefined): number | null {
  return pid === undefined ? null : statCpuMs(`/proc/${pid}/stat`)
}

/**
 * CPU time (user + system) of a process's main thread alone, in ms; null if unreadable. For Node,
 * the thread that runs JavaScript and the event loop (V8's GC helpers and libuv's pool are others).
 */
export function mainThreadCpuMs(pid: number): number | null {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`)
}
