import { type Db, withBatchTransaction } from '@hold-dialer/db'
// The dialer's own claim and settle statements, as its claim round and its settle run them
// (apps/dialer/src/dialer.ts, settle.ts).
import { type ClaimedLead, claimLead, DueProbeMemo } from '../../../apps/dialer/dist/claim/claim.js'
import { settleLeadStatement } from '../../../apps/dialer/dist/sql/settle-lead.js'
import { releaseAgentStatement } from '../../../apps/dialer/dist/sql/take-agent.js'
import { msSince } from '../lib/stats.js'
import { CLAIM_POOL_ZONE } from './claim-pool.js'
import { ClaimLedger, type ClaimResult } from './claim-result.js'

/** Priorities seeded as dialable (1 Hold Lead, 2 Hold + Not Connected, 8 escalated ticket). */
const DIALABLE = [1, 2, 8] as const
const RETRY_LATER_MS = 3_600_000

/**
 * The release: the dialer's own settle and agent-release statements (without completing the
 * attempt row the claim opened, which the raw loop's settle does not do either), in one transaction
 * as the dialer's settle writes
 * them (one round trip on MariaDB). Sent as two autocommit writes instead, MariaDB claims measured
 * 0.77 of the raw loop against 0.93 this way (same run length, 30 claimers): at
 * innodb_flush_log_at_trx_commit=1 every commit waits for a redo-log flush, and the claim cycle had
 * three of them to the raw loop's two.
 */
async function release(
  db: Db,
  lead: ClaimedLead,
  agentId: number,
  dialerId: string,
  claimedAt: Date,
  ledger: ClaimLedger,
) {
  const at = new Date().toISOString().replace('T', ' ').slice(0, 23)
  const settle = settleLeadStatement(lead.id, {
    dialStatus: 'Not Connected',
    nextRetryAt: new Date(claimedAt.getTime() + RETRY_LATER_MS),
    rnrMailQueued: false,
    callCount: lead.call_count + 1,
    firstAttemptAt: lead.first_attempt_at ?? at,
    lastAttemptAt: at,
    lastDialResult: 'NOANSWER',
    hangupBy: null,
    hangupCause: null,
  })
  const free = releaseAgentStatement(agentId, dialerId, null)
  await withBatchTransaction(
    db,
    (session) => session.run([settle, free], { commit: true }),
    // Lock waits and deadlocks the retries absorbed still count (the scale-out table shows them).
    { onRetry: ({ error }) => ledger.lockError(error) },
  )
}

export interface DialerClaimsOptions {
  agents: readonly number[]
  seconds: number
  /** One dialer's id for every claimer (a scale-out process); default: one id per claimer. */
  dialerId?: string
  /** Where claims are recorded (a scale-out process reports its ids); default: a fresh ledger. */
  ledger?: ClaimLedger
  /**
   * Count a claim or release that failed on a lock wait timeout (1205) or deadlock (1213) after its
   * retries, and go on (the scale-out part); default: such an error fails the run.
   */
  countLockErrors?: boolean
}

/**
 * `agents.length` concurrent claimers, each standing for one agent: take the agent and the next lead
 * in one transaction (`claimLead`, as the dialer's claim round calls it), then settle the call as
 * Not Connected with a retry an hour later and free the agent. A settled lead is no
 * longer claimable, so any lead claimed twice in a run is a double claim.
 */
export async function dialerClaims(db: Db, o: DialerClaimsOptions): Promise<ClaimResult> {
  const ledger = o.ledger ?? new ClaimLedger()
  // One dialer's memo of probes that found nothing due, with the dialer's default time (DialerTiming's
  // dueProbeMs): its settles here set retries an hour away, which do not clear it.
  const memo = new DueProbeMemo(1000)
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const cycle = async (agentId: number, dialerId: string): Promise<boolean> => {
    const t0 = process.hrtime.bigint()
    const now = new Date()
    const lead = await claimLead(
      db,
      {
        agentId,
        dialerId,
        now,
        inHours: true,
        dialablePriorities: DIALABLE,
        pinnedAgentId: null,
        // CALLING_HOURS is on by default: the claim carries the zones callable now, as the dialer's does.
        customerZones: { callable: [CLAIM_POOL_ZONE], unzonedCallable: true },
      },
      memo,
    )
    if (!lead) return false
    ledger.claimed(lead.id)
    await release(db, lead, agentId, dialerId, now, ledger)
    ledger.latencies.push(msSince(t0))
    return true
  }
  const claimer = async (agentId: number, index: number) => {
    const dialerId = o.dialerId ?? `bench-dialer-${index}`
    while (Date.now() < deadline && !ledger.exhausted) {
      try {
        if (!(await cycle(agentId, dialerId))) ledger.exhausted = true
      } catch (error) {
        if (!o.countLockErrors || !ledger.lockError(error)) throw error
      }
    }
  }
  await Promise.all(o.agents.map(claimer))
  return ledger.result(msSince(started) / 1000)
}
