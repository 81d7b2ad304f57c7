import {
  type BatchSession,
  type Db,
  GroupCommit,
  type Statement,
  withBatchTransaction,
} from '@hold-dialer/db'
import {
  type Candidate,
  type ClaimedLead,
  candidateStatement,
  claimedLead,
  claimParts,
  firstCandidate,
} from './candidates.js'
import type { LeadClaim } from './request.js'
import {
  endListedLeadStatements,
  freeAgentStatement,
  MAX_LISTED_PER_CLAIM,
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
 */
async function claimInGroup(
  session: BatchSession,
  req: LeadClaim,
): Promise<{ lead: ClaimedLead | undefined; ended: number }> {
  if (req.agentId !== null) {
    const [taken] = await session.run([takeAgentStatement(req.agentId, req)])
    if (taken!.affectedRows !== 1) return { lead: undefined, ended: 0 }
  }
  let ended = 0
  while (ended < MAX_LISTED_PER_CLAIM) {
    let best: Candidate | undefined
    for (const part of claimParts(req, 'sqlite')) {
      if (best && best.claim_group < part.group) break
      const [found] = await session.run([candidateStatement(req, part, 'row')])
      best = firstCandidate(found!.rows, best)
    }
    if (!best) break
    if (best.dnc) {
      await session.run(endListedLeadStatements(best, req))
      ended += 1
      continue
    }
    await session.run([reserveLeadStatement(best, req)])
    return { lead: claimedLead(best), ended }
  }
  if (ended > 0 && req.agentId !== null) await session.run([freeAgentStatement(req.agentId, req)])
  return { lead: undefined, ended }
}

const claimGroups = new WeakMap<Db, GroupCommit<LeadClaim, ClaimedLead | undefined>>()

/**
 * Claims that arrive while a claim is being written (a claim round's agents, several dialers on one
 * file) are made one after another in one transaction, in arrival order, and committed together.
 * Each claim's commit was an fsync: with 30 concurrent claimers a COMMIT took 0.33 ms of a
 * claim-and-release cycle's 0.9 ms. If the group's transaction fails after its retries, every claim
 * in it fails, and none of them reserved anything. A claim that finds no lead is rolled back to its
 * savepoint, as its own transaction would be, so the agent it took stays free.
 */
export function claimSqlite(db: Db, req: LeadClaim): Promise<ClaimedLead | undefined> {
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
  return group.submit(req)
}
