import type { Db } from '@hold-dialer/db'
import { seedPendingLeads } from '../claims/claim-pool.js'
import { waitFor } from '../lib/child.js'
import { step } from '../lib/progress.js'
import {
  agentExtensions,
  keepPanelsAlive,
  seedAgents,
  startDialer,
  startSim,
  worstConcurrentCallsPerNumber,
} from './fleet.js'

export interface DialerRssResult {
  peakRssMiB: number
  anonMiB: number
  fileMiB: number
  calls: number
  callsPerSec: number
  seconds: number
  /** Most simultaneous calls to one number (must be 1). */
  worstCallsPerNumber: number
}

export const DIALER_AGENTS = 30

/**
 * The dialer as deployed, one process, `DIALER_AGENTS` ready agents on the simulated PBX and a table of
 * Pending leads: its peak resident set (VmHWM) after `seconds` of dialing.
 */
export async function dialerRss(
  db: Db,
  databaseUrl: string,
  o: { seconds: number; leads: number; logLevel: string },
): Promise<DialerRssResult> {
  const extensions = agentExtensions(DIALER_AGENTS)
  await seedPendingLeads(db.kysely, o.leads)
  await seedAgents(db.kysely, extensions)
  const stopPanels = keepPanelsAlive(db.kysely)
  const sim = await startSim(extensions)
  const dialer = startDialer({ id: 'bench-dialer', databaseUrl, sim, logLevel: o.logLevel })
  try {
    step('waiting for the dialer to place calls')
    await waitFor('the dialer placing calls', async () => sim.originateCount() > 0, 20_000, dialer)
    const started = Date.now()
    const before = sim.originateCount()
    step(
      () =>
        `dialing: ${sim.originateCount() - before} calls placed, ${((Date.now() - started) / 1000).toFixed(0)} of ${o.seconds} s`,
    )
    await new Promise((r) => setTimeout(r, o.seconds * 1000))
    if (dialer.exited()) throw new Error(`the dialer exited:\n${dialer.tail()}`)
    const seconds = (Date.now() - started) / 1000
    const calls = sim.originateCount() - before
    return {
      peakRssMiB: dialer.peakRssMiB(),
      ...dialer.peakMemory(),
      calls,
      callsPerSec: calls / seconds,
      seconds,
      worstCallsPerNumber: worstConcurrentCallsPerNumber(sim),
    }
  } finally {
    await dialer.stop()
    stopPanels()
    await sim.close()
  }
}
