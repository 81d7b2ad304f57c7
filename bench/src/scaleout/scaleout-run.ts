import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Child, startNode, waitFor } from '../lib/child.js'
import { mariadbPid, processCpuMs } from '../lib/proc-status.js'
import { innodbLockCounters } from './mariadb-server.js'
import { type DialerShare, mergeShares, type ScaleoutRun, splitAgents } from './scaleout-merge.js'

const CLAIMER = 'bench/dist/scaleout/claimer-main.js'

/**
 * One run of one setting: `dialers` processes (claimer-main.ts), each with its share of `agents`
 * and its own connection pool, started together once all are connected, for `seconds`. MariaDB's
 * CPU and its lock counters are read around the run.
 */
export async function scaleoutRun(o: {
  databaseUrl: string
  agents: readonly number[]
  dialers: number
  seconds: number
}): Promise<ScaleoutRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-scaleout-'))
  const children: Child[] = []
  try {
    splitAgents(o.agents, o.dialers).forEach((share, i) => {
      children.push(
        startNode(`scaleout-dialer-${i + 1}`, CLAIMER, {
          SCALEOUT_URL: o.databaseUrl,
          SCALEOUT_AGENTS: share.join(','),
          SCALEOUT_SECONDS: String(o.seconds),
          SCALEOUT_DIALER_ID: `scaleout-dialer-${i + 1}`,
          SCALEOUT_RESULT: join(dir, `dialer-${i + 1}.json`),
        }),
      )
    })
    for (const child of children) {
      await waitFor(`${child.name} connected`, async () => child.tail().includes('ready'), 30_000, child)
    }
    const pid = mariadbPid()
    const locksBefore = await innodbLockCounters()
    const cpuBefore = processCpuMs(pid)
    for (const child of children) child.process.kill('SIGUSR2')
    await waitFor(
      'the scale-out dialers to finish',
      async () => children.every((c) => c.exited()),
      (o.seconds + 60) * 1000,
    )
    const cpuAfter = processCpuMs(pid)
    const locksAfter = await innodbLockCounters()
    const shares = children.map((child, i): DialerShare => {
      if (child.process.exitCode !== 0) throw new Error(`${child.name} failed:\n${child.tail()}`)
      return JSON.parse(readFileSync(join(dir, `dialer-${i + 1}.json`), 'utf8')) as DialerShare
    })
    return mergeShares(shares, {
      rowLockWaits: locksAfter.rowLockWaits - locksBefore.rowLockWaits,
      deadlocks: locksAfter.deadlocks - locksBefore.deadlocks,
      mariadbCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    })
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
}
