import { type Db, withBatchTransaction } from '@hold-dialer/db'
import { newClaimToken } from '../calls/call-key.js'
import {
  type Candidate,
  type ClaimedLead,
  candidateStatement,
  claimedLead,
  claimParts,
  claimShape,
  firstCandidate,
  probedParts,
  probeStatement,
} from './candidates.js'
import type { DueProbeMemo } from './due-probe.js'
import type { LeadClaim } from './request.js'
import {
  endListedLeadStatements,
  MAX_LISTED_PER_CLAIM,
  mustEnd,
  openAttemptStatement,
  reserveLeadStatement,
  reserveLeadTakingAgentStatement,
} from './statements.js'

/**
 * The MySQL claim: two round trips when no callback or retry is due, in one batch transaction
 * (packages/db batch.ts). With one statement per round trip this was seven.
 *
 * 1. BEGIN and every candidate part, each its own `SELECT ... LIMIT 1` tagged with its group (the
 *    first in claim order wins). Only the Pending parts lock (`FOR UPDATE SKIP LOCKED`) here; the
 *    callback and retry parts are probed without locking, in one UNION.
 *    With `memo` (due-probe.ts), a probe of the same shape that found nothing less than a second ago
 *    stands for this one, and the probe is left out.
 * 2. Only when the probe found a lead: the parts that found one, again, with `FOR UPDATE SKIP LOCKED`.
 *    The reason: a locking range scan that finds nothing still locks the index record just past its
 *    range, and in the retry index that record is a Pending lead another claimer is about to update;
 *    30 claimers doing that to each other measured 4 deadlocks and 2 s of lock waits in 5 s, and
 *    halved the claim rate.
 * 3. One UPDATE of the lead joined with the agent's row, guarded by the agent being free, and
 *    COMMIT. Taking the agent in its own UPDATE first cost a statement and its answer per claim: 30
 *    claimers measured 0.79-0.80 of the raw loop that way and 0.86-0.99 with the joined UPDATE (3
 *    rounds of 8 s, two runs each).
 *
 * A lead whose number is on the do-not-call list (`dnc` read with the candidate) is ended in the same
 * transaction instead (statements.ts `endListedLeadStatements`) and steps 1-2 run again.
 *
 * The price: a Pending lead locked in step 1 stays locked, and skipped by other claimers, until this
 * short transaction ends when a callback or retry was due after all; and when another dialer has the
 * agent, a lead is locked for the length of this short transaction and then left as it was. A claim
 * that finds no lead ends without COMMIT, which rolls it back.
 */
export function claimMysql(db: Db, req: LeadClaim, memo?: DueProbeMemo): Promise<ClaimedLead | undefined> {
  return withBatchTransaction(db, async (session) => {
    const parts = claimParts(req, 'mysql')
    const probed = parts.filter((part) => part.category !== 'pending')
    const pending = parts.filter((part) => part.category === 'pending')
    const memoKey = memo && probed.length > 0 ? claimShape(req) : ''

    for (let ended = 0; ended < MAX_LISTED_PER_CLAIM; ended++) {
      const skipProbe = probed.length === 0 || memo?.fresh(memoKey, req.now) === true
      const results = await session.run([
        ...(skipProbe ? [] : [probeStatement(req, probed)]),
        ...pending.map((part) => candidateStatement(req, part, 'lock')),
      ])
      const probeRows = skipProbe ? [] : results.shift()!.rows
      if (!skipProbe && probeRows.length === 0) memo?.nothingDue(memoKey, req.now)
      let best: Candidate | undefined
      for (const result of results) best = firstCandidate(result.rows, best)

      const due = probedParts(probeRows, probed)
      if (due.length > 0) {
        const relocked = await session.run(due.map((part) => candidateStatement(req, part, 'lock')))
        for (const result of relocked) best = firstCandidate(result.rows, best)
      }
      if (!best) {
        // The listed leads ended on the way are kept.
        if (ended > 0) await session.run([], { commit: true })
        return undefined
      }
      if (mustEnd(best)) {
        // On the do-not-call list, or unreadable: ended in this transaction, and the search runs again.
        await session.run(endListedLeadStatements(best, req))
        continue
      }

      const token = req.token ?? newClaimToken()
      const open = openAttemptStatement(best, req, token)
      if (req.agentId === null) {
        await session.run([reserveLeadStatement(best, req, token), open], { commit: true })
      } else {
        const [reserved] = await session.run(
          [reserveLeadTakingAgentStatement(best, req.agentId, req, token), open],
          { commit: true },
        )
        if (reserved!.affectedRows !== 2) return undefined
      }
      return claimedLead(best, token)
    }
    await session.run([], { commit: true })
    return undefined
  })
}
