import { type Database, dialectOf, withTransaction } from '@hold-dialer/db'
import type { Kysely, Transaction } from 'kysely'
// The dialer's own claim and settle statements, as its claim round runs them (apps/dialer/src/dialer.ts).
import { type ClaimedLead, claimNextLead } from '../../../apps/dialer/dist/sql/claim.js'
import { settleLead } from '../../../apps/dialer/dist/sql/settle-lead.js'
import { releaseAgent, takeAgent } from '../../../apps/dialer/dist/sql/take-agent.js'
import { msSince } from '../lib/stats.js'
import { ClaimLedger, type ClaimResult } from './claim-result.js'

/** Priorities seeded as dialable (1 Hold Lead, 2 Hold + Not Connected, 8 escalated ticket). */
const DIALABLE = [1, 2, 8] as const
const RETRY_LATER_MS = 3_600_000

/**
 * The release: the dialer's own settle and agent-release statements. On MariaDB each is an autocommit
 * write, like the raw loop's one UPDATE: no lock is held across them, and a transaction would add two
 * round trips. On SQLite both go in one transaction, since there every commit is an fsync and round
 * trips cost nothing.
 */
async function release(
  db: Kysely<Database>,
  lead: ClaimedLead,
  agentId: number,
  dialerId: string,
  claimedAt: Date,
): Promise<void> {
  const at = new Date().toISOString().replace('T', ' ').slice(0, 23)
  const write = async (trx: Transaction<Database>) => {
    await settleLead(trx, lead.id, {
      plan: {
        dial_status: 'Not Connected',
        next_retry_at: new Date(claimedAt.getTime() + RETRY_LATER_MS),
        archive: false,
        queueRnrMail: false,
      },
      callCount: lead.call_count + 1,
      firstAttemptAt: lead.first_attempt_at ?? at,
      lastAttemptAt: at,
      lastDialResult: 'NOANSWER',
      hangupBy: null,
      hangupCause: null,
    })
    await releaseAgent(trx, agentId, dialerId, null)
  }
  if (dialectOf(db) === 'sqlite') await withTransaction(db, write)
  // The statements ask only for a Transaction so that their callers cannot forget the lock; here
  // each runs on its own.
  else await write(db as unknown as Transaction<Database>)
}

/**
 * `agents.length` concurrent claimers, each standing for one agent: take the agent and the next lead
 * in one transaction (`takeAgent` + `claimNextLead` in `withTransaction`), then settle the call as
 * Not Connected with a retry an hour later and free the agent. A settled lead is no
 * longer claimable, so any lead claimed twice in a run is a double claim.
 */
export async function dialerClaims(
  db: Kysely<Database>,
  o: { agents: readonly number[]; seconds: number },
): Promise<ClaimResult> {
  const ledger = new ClaimLedger()
  const started = process.hrtime.bigint()
  const deadline = Date.now() + o.seconds * 1000
  const claimer = async (agentId: number, index: number) => {
    const dialerId = `bench-dialer-${index}`
    while (Date.now() < deadline && !ledger.exhausted) {
      const t0 = process.hrtime.bigint()
      const now = new Date()
      const lead = await withTransaction(db, async (trx) => {
        if (!(await takeAgent(trx, agentId, dialerId, now))) return undefined
        const claimed = await claimNextLead(trx, {
          dialerId,
          now,
          inHours: true,
          dialablePriorities: DIALABLE,
          pinnedAgentId: null,
        })
        if (!claimed) await releaseAgent(trx, agentId, dialerId, null)
        return claimed
      })
      if (!lead) {
        ledger.exhausted = true
        break
      }
      ledger.claimed(lead.id)
      await release(db, lead, agentId, dialerId, now)
      ledger.latencies.push(msSince(t0))
    }
  }
  await Promise.all(o.agents.map(claimer))
  return ledger.result(msSince(started) / 1000)
}
