import { type AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import type { Database } from '@hold-dialer/db'
import { type Config, fromDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { AgentTracker } from '../agents/agent-tracker.js'
import type { DialerMetrics } from '../metrics.js'
import type { SettleQueue } from '../settle-queue.js'
import { openAttempt } from '../sql/attempts.js'
import {
  type CountUnknown,
  type OwnReservation,
  ownReservations,
  releaseReservation,
  releaseStaleAgents,
} from '../sql/release-stale.js'
import { callKey, type IssuedClaims, isCallOfLead } from './call-key.js'
import type { CallTracker, LiveChannel } from './call-tracker.js'
import { agentChannel } from './originate.js'

export interface ReconcileDeps {
  config: Config
  db: Kysely<Database>
  ami: AmiClient
  dialerId: string
  agents: AgentTracker
  calls: CallTracker
  settles: SettleQueue
  /** Completes a released reservation's open attempt as `Unknown` (settle.ts `settleUnknown`). */
  countUnknown: CountUnknown
  /** Claims of this process: never a previous run's (calls/call-key.ts). */
  issued: IssuedClaims
  metrics: DialerMetrics
  logger: Logger
  now: () => Date
}

/**
 * After each AMI login (DECISIONS section 8): settle the calls that ended while events were lost,
 * follow again this dialer's calls of a previous run that are still live, and release its
 * reservations that have no live channel (a restart after a crash). Nothing is counted for a
 * released lead: its previous status comes back.
 *
 * A call is adopted only when its key is the reservation's own (`hd-<lead>-<claim token>`): a
 * channel of the same lead placed under another claim is not this reservation's call, and while one
 * is up the reservation is not released either (the lead has a call at the PBX).
 */
export async function reconcileAfterLogin(d: ReconcileDeps): Promise<void> {
  const channels = await d.ami.listAction({ action: 'CoreShowChannels' })
  const live = new Set(
    channels.flatMap((c) => [header(c, 'linkedid'), header(c, 'uniqueid')].filter((x): x is string => !!x)),
  )
  d.calls.reconcile(live)
  // Calls just finished by reconcile (or before) are being written: let them land first, so their
  // leads are not mistaken for reservations without a call.
  await d.settles.settled()
  const pending = d.settles.leadIds()
  const tracked = new Set(d.calls.active().map((c) => c.leadId))
  let released = 0
  let counted = 0
  const adopted = new Set<string>()
  for (const row of await ownReservations(d.db, d.dialerId)) {
    // A claim of this very process (a round that claimed while the login's check ran) is not a
    // previous run's, though no call of it may be listed yet.
    if (tracked.has(row.id) || pending.has(row.id) || d.issued.has(row.claim_token)) continue
    const ofLead = channels.filter((c) => isCallOfLead(header(c, 'linkedid'), row.id))
    // A reservation from before claim tokens: its call is known by the lead alone.
    const key = row.claim_token === null ? undefined : callKey(row.id, row.claim_token)
    const own = key === undefined ? ofLead : ofLead.filter((c) => header(c, 'linkedid') === key)
    if (own.length > 0) adopted.add(await adopt(d, row, own))
    else if (ofLead.length > 0) {
      d.logger.warn(
        {
          lead: row.id,
          token: row.claim_token,
          live: [...new Set(ofLead.map((c) => header(c, 'linkedid')))],
        },
        'a call of this lead under another claim is live: not adopted, and the reservation is kept while it lasts',
      )
    } else {
      const fence = { token: row.claim_token }
      const r = await releaseReservation(d.db, row.id, d.dialerId, fence, d.countUnknown)
      if (r === 'released') released += 1
      else if (r === 'counted') counted += 1
    }
  }
  if (adopted.size > 0) await endAdoptedGone(d, adopted)
  await releaseStaleAgents(d.db, { heldBy: d.dialerId, except: [...d.calls.busyAgentIds()] })
  if (released > 0)
    d.logger.info({ released }, 'released reservations of a previous run with no live channel')
  if (counted > 0) d.metrics.lostResults.inc(counted)
  if (counted > 0)
    d.logger.warn(
      { counted },
      'calls of a previous run ended while nobody followed them: each counted as an attempt with result Unknown',
    )
}

/**
 * A call this dialer placed before a restart is still up: follow it again (its channels from
 * CoreShowChannels, its end from their Hangup events) and settle it when it ends, so a customer who
 * is talking is not released and dialed again. Its start, and its answer when it was noted, come from
 * the attempt row its claim opened: the call is recorded with its real ring and talk times.
 */
/**
 * An adopted call that hung up between the channel list and its adoption: its Hangup events came
 * while no call of this process had those channels, so nothing would ever end it (its reservation,
 * refreshed by this dialer's heartbeat, held until CALL_TIMEOUT_SECONDS). The PBX is asked again,
 * now that the adopted calls are followed, and those it no longer carries are ended.
 */
async function endAdoptedGone(d: ReconcileDeps, adopted: ReadonlySet<string>): Promise<void> {
  const channels = await d.ami.listAction({ action: 'CoreShowChannels' })
  const live = new Set(channels.map((c) => header(c, 'linkedid')).filter((x): x is string => !!x))
  // Only the adopted calls are judged here: every other call of this process counts as live.
  for (const call of d.calls.active()) if (!adopted.has(call.key)) live.add(call.key)
  d.calls.reconcile(live)
}

async function adopt(d: ReconcileDeps, row: OwnReservation, legs: AmiMessage[]): Promise<string> {
  const key = header(legs[0]!, 'linkedid')!
  const channels: LiveChannel[] = legs.map((l) => ({
    uniqueid: header(l, 'uniqueid') ?? '',
    name: header(l, 'channel') ?? '',
    up: header(l, 'channelstate') === '6' || header(l, 'channelstatedesc') === 'Up',
    bridgeId: header(l, 'bridgeid') || undefined,
  }))
  // The agent's desk is a channel named by AGENT_CHANNEL_TEMPLATE (`PJSIP/1001-0000002a`,
  // `Local/1001@agents-00000003;1`): in progressive mode the originated one, in predictive mode the one
  // the customer was sent to (none while the customer is on hold).
  const template = d.config.agentChannelTemplate
  const names = (
    d.config.dialMode === 'progressive' ? channels.filter((c) => c.uniqueid === key) : channels
  ).map((c) => c.name.toLowerCase())
  const agent = d.agents
    .all()
    .find((a) => names.some((n) => n.startsWith(`${agentChannel(template, a.extension).toLowerCase()}-`)))
  const now = d.now()
  const deadline = new Date(now.getTime() + d.config.callTimeoutSeconds * 1000)
  const open = await openAttempt(d.db, key)
  d.calls.adopt(
    {
      key,
      mode: d.config.dialMode,
      actionId: `adopted-${key}`,
      leadId: row.id,
      oliId: row.oli_id,
      phone: row.phone_number,
      phoneE164: row.phone_e164,
      agent: agent ?? null,
      startedAt: open ? fromDbTime(open.startedAt) : now,
      deadline,
      originateDeadline: deadline,
    },
    channels,
    open?.answeredAt ? fromDbTime(open.answeredAt) : undefined,
  )
  d.logger.warn(
    { lead: row.id, key, legs: legs.length },
    'a call of a previous run is still live: following it to its end',
  )
  return key
}
