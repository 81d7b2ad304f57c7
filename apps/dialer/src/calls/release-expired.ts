import { type AmiClient, header } from '@hold-dialer/ami'
import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { DialerMetrics } from '../metrics.js'
import {
  type CountUnknown,
  expiredReservations,
  hasStaleAgents,
  holdersOfLeads,
  releaseReservation,
  releaseStaleAgents,
} from '../sql/release-stale.js'
import { type IssuedClaims, isCallOfLead, leadOfKey } from './call-key.js'

export interface ReleaseExpiredDeps {
  db: Kysely<Database>
  ami: AmiClient
  logger: Logger
  metrics: DialerMetrics
  now: Date
  timeoutSeconds: number
  /** Completes a released reservation's open attempt as `Unknown` (settle.ts `settleUnknown`). */
  countUnknown: CountUnknown
  /** Claims of this process, being dialed or followed: never released here (calls/call-key.ts). */
  issued: IssuedClaims
  /** The PBX this dialer serves (PBX_NAME): only its agents and its dialers' reservations are released. */
  pbx: string
}

/**
 * Any dialer releases reservations whose holder stopped refreshing them for `timeoutSeconds`
 * (DECISIONS section 8), but never while the PBX carries a call of that lead: a holder can be paused,
 * not dead, with its call going on, and a lead released then would be dialed again while the customer
 * is still on the line. Such a reservation is kept (a warning each round) until its call ends. Without
 * the PBX's channel list (AMI down) no lead is released this round. Each release is fenced by the
 * claim token read with it: a holder that came back and settled, or a new claim, wins.
 *
 * The PBX asked is this dialer's, so only reservations of dialers of the same PBX (by their heartbeat's
 * `pbx`; a holder that never wrote one too) and holds of that PBX's agents are released here: another
 * PBX's are left to its own dialers (docs/dialer.md, "Several PBXs").
 */
export async function releaseExpired(d: ReleaseExpiredDeps): Promise<void> {
  const { cutoff, rows } = await expiredReservations(d.db, d.now, d.timeoutSeconds, d.pbx)
  const staleAgents = await hasStaleAgents(d.db, cutoff, d.pbx)
  const live = rows.length > 0 || staleAgents ? await liveLinkedIds(d) : undefined
  let released = 0
  let counted = 0
  let kept = 0
  for (const r of live ? rows : []) {
    // This process's own claim, though old (a round that began before a pause dates it then): it is
    // being dialed or followed here.
    if (d.issued.has(r.token)) continue
    const calls = [...(live as Set<string>)].filter((id) => isCallOfLead(id, r.id))
    if (calls.length > 0) {
      kept += 1
      d.logger.warn(
        { lead: r.id, holder: r.reservedBy, token: r.token, live: calls, timeout: d.timeoutSeconds },
        'expired reservation kept: a call of this lead is still live at the PBX',
      )
      continue
    }
    const fence = { token: r.token, notAfter: cutoff }
    const done = await releaseReservation(d.db, r.id, r.reservedBy, fence, d.countUnknown)
    if (done === 'released') released += 1
    else if (done === 'counted') counted += 1
  }
  // An agent's hold ages with its holder's heartbeat, like the holder's reservations: it is kept
  // while that holder has a call live at the PBX (the agent is on it, or about to be bridged to it),
  // and not released at all while the PBX cannot be asked.
  const agents =
    staleAgents && live
      ? await releaseStaleAgents(d.db, {
          olderThan: cutoff,
          pbx: d.pbx,
          notHeldBy: await holdersOfLiveCalls(d, live),
        })
      : 0
  if (released + counted > 0) d.metrics.releases.inc({ kind: 'lead' }, released + counted)
  if (counted > 0) d.metrics.lostResults.inc(counted)
  if (agents > 0) d.metrics.releases.inc({ kind: 'agent' }, agents)
  if (released + counted + agents > 0)
    d.logger.warn(
      { released, counted, agents, kept, timeout: d.timeoutSeconds },
      'released expired reservations (counted: calls whose result was lost, each an attempt with result Unknown)',
    )
}

/** The dialers holding the leads of the PBX's live calls. */
async function holdersOfLiveCalls(d: ReleaseExpiredDeps, live: Set<string>): Promise<string[]> {
  const leads = [...live].map(leadOfKey).filter((id): id is number => id !== undefined)
  return leads.length > 0 ? holdersOfLeads(d.db, [...new Set(leads)]) : []
}

/** Every live channel's Linkedid, from the PBX; `undefined` when it cannot be asked now. */
async function liveLinkedIds(d: ReleaseExpiredDeps): Promise<Set<string> | undefined> {
  if (d.ami.state !== 'connected') {
    d.logger.debug('expired reservations not released: the PBX cannot be asked for its live calls')
    return undefined
  }
  const channels = await d.ami.listAction({ action: 'CoreShowChannels' })
  return new Set(channels.map((c) => header(c, 'linkedid')).filter((x): x is string => !!x))
}
