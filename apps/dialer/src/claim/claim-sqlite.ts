import {
  type BatchSession,
  type Db,
  GroupCommit,
  type Statement,
  withBatchTransaction,
} from '@hold-dialer/db'
import { newClaimToken } from '../calls/call-key.js'
import {
  type Candidate,
  type ClaimedLead,
  candidateStatement,
  claimedLead,
  claimParts,
  claimShape,
  firstCandidate,
} from './candidates.js'
import type { DueProbeMemo } from './due-probe.js'
import type { LeadClaim } from './request.js'
import {
  endListedLeadStatements,
  freeAgentStatement,
  MAX_LISTED_PER_CLAIM,
  mustEnd,
  openAttemptStatement,
  reserveLeadStatement,
  takeAgentStatement,
} from './statements.js'

/** Claims in one SQLite transaction at most; they run one after another inside it, in arrival order. */
const SQLITE_CLAIM_GROUP = 64

const SAVEPOINT: Statement = { sql: 'SAVEPOINT claim', params: [] }
const RELEASE: Statement = { sql: 'RELEASE claim', params: [] }
const ROLLBACK_TO: Statement = { sql: 'ROLLBACK TO claim', params: [] }

/**
 * The SQLite claim: the agent's guarded UPDATE first, then one candidate statement after another, a
 * group at a time, stopping at the first group with a lead (they are calls into the same process),
 * then the lead's UPDATE. A lead whose number is on the do-not-call list is ended instead and the
 * search runs again. It does not commit: the claim group (`claimSqlite`) does.
 *
 * With `memo` (due-probe.ts), as on MySQL: while a claim of the same shape found no callback or retry
 * due less than `memo.ttlMs` ago, only the Pending parts run. With nothing due that is one candidate
 * statement instead of six (docs/benchmarks.md has what it measured).
 */
async function claimInGroup(
  session: BatchSession,
  { req, memo }: SqliteClaim,
): Promise<{ lead: ClaimedLead | undefined; ended: number }> {
  if (req.agentId !== null) {
    const [taken] = await session.run([takeAgentStatement(req.agentId, req)])
    if (taken!.affectedRows !== 1) return { lead: undefined, ended: 0 }
  }
  const parts = claimParts(req, 'sqlite')
  const probed = parts.filter((part) => part.category !== 'pending')
  const memoKey = memo && probed.length > 0 ? claimShape(req) : ''
  let ended = 0
  while (ended < MAX_LISTED_PER_CLAIM) {
    const skipDue = memo?.fresh(memoKey, req.now) === true
    let best: Candidate | undefined
    // Callback and retry parts that ran and found nothing: all of them, and nothing is due.
    let emptyDue = 0
    for (const part of parts) {
      if (best && best.claim_group < part.group) break
      const due = part.category !== 'pending'
      if (skipDue && due) continue
      const [found] = await session.run([candidateStatement(req, part, 'row')])
      if (due && found!.rows.length === 0) emptyDue += 1
      best = firstCandidate(found!.rows, best)
    }
    if (probed.length > 0 && emptyDue === probed.length) memo?.nothingDue(memoKey, req.now)
    if (!best) break
    if (mustEnd(best)) {
      await session.run(endListedLeadStatements(best, req))
      ended += 1
      continue
    }
    const token = req.token ?? newClaimToken()
    await session.run([reserveLeadStatement(best, req, token), openAttemptStatement(best, req, token)])
    return { lead: claimedLead(best, token), ended }
  }
  if (ended > 0 && req.agentId !== null) await session.run([freeAgentStatement(req.agentId, req)])
  return { lead: undefined, ended }
}

/** A claim with the dialer's memo of probes that found nothing due (due-probe.ts), if it keeps one. */
interface SqliteClaim {
  req: LeadClaim
  memo: DueProbeMemo | undefined
}

const claimGroups = new WeakMap<Db, GroupCommit<SqliteClaim, ClaimedLead | undefined>>()

/**
 * Claims that arrive while a claim is being written (a claim round's agents, several dialers on one
 * file) are made one after another in one transaction, in arrival order, and committed together.
 * Each claim's commit was an fsync: with 30 concurrent claimers a COMMIT took 0.33 ms of a
 * claim-and-release cycle's 0.9 ms. If the group's transaction fails after its retries, every claim
 * in it fails, and none of them reserved anything. A claim that finds no lead is rolled back to its
 * savepoint, as its own transaction would be, so the agent it took stays free.
 */
export function claimSqlite(db: Db, req: LeadClaim, memo?: DueProbeMemo): Promise<ClaimedLead | undefined> {
  let group = claimGroups.get(db)
  if (!group) {
    group = new GroupCommit({
      maxWriters: 1,
      maxGroup: SQLITE_CLAIM_GROUP,
      write: (claims) =>
        withBatchTransaction(db, async (session) => {
          const leads: (ClaimedLead | undefined)[] = []
          for (const claim of claims) {
            await session.run([SAVEPOINT])
            const { lead, ended } = await claimInGroup(session, claim)
            // Leads it ended are kept even when it found none to dial.
            await session.run(lead || ended > 0 ? [RELEASE] : [ROLLBACK_TO, RELEASE])
            leads.push(lead)
          }
          await session.run([], { commit: true })
          return leads
        }),
    })
    claimGroups.set(db, group)
  }
  return group.submit({ req, memo })
}
