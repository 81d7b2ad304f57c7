import {
  type BatchSession,
  type Db,
  GroupCommit,
  type Statement,
  withBatchTransaction,
} from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import {
  type Category,
  candidateStatement,
  claimParts,
  first,
  type Pin,
  type Ranked,
} from './claim-candidates.js'
import { takeAgentStatement } from './take-agent.js'

export interface ClaimRequest {
  dialerId: string
  now: Date
  /** Working hours gate for Pending and retries; due callbacks ignore it. */
  inHours: boolean
  /** Priorities that may be dialed (`is_dialable`); priority 3 is not among them. */
  dialablePriorities: readonly number[]
  /**
   * Pinned mode: the agent claiming. Leads pinned to this agent come first; leads pinned to anyone
   * else are never taken. Pool mode: null, and the pin column is ignored.
   */
  pinnedAgentId: number | null
  /**
   * Pinned mode's predictive overdial pool: with no claiming agent, leave every pinned lead alone
   * (they are dialed only when their own agent is free).
   */
  unpinnedOnly?: boolean
  /** Predictive mode's pinned claim: only leads pinned to `pinnedAgentId`, never the shared pool. */
  onlyMine?: boolean
  /** Leads this dialer will not retry yet (a failed originate's cool-down). */
  excludeIds?: readonly number[]
}

export interface ClaimedLead {
  id: number
  oli_id: string
  phone_number: string
  client_name: string
  priority_id: number
  agent_id: number | null
  previous_status: string
  call_count: number
  callback_scheduled_at: string | null
  first_attempt_at: string | null
  isRnrSent: number
}

export interface LeadClaim extends ClaimRequest {
  /**
   * The agent the call is for, taken in the same transaction (`dialer_employee.on_call_by`): no lead
   * is claimed when another dialer has them, and the agent is left free when no lead is due. Null for
   * predictive mode's overdial pool, whose calls are bridged to whoever is free on answer.
   */
  agentId: number | null
}

/**
 * Claims the next lead in the order of DECISIONS section 7 (due callbacks, due retries, Pending), marks
 * it Calling and reserved by this dialer, and keeps its status to restore if the originate fails;
 * with `agentId`, takes that agent in the same transaction.
 *
 * MySQL, two round trips when no callback or retry is due: BEGIN and every candidate part, each its
 * own `SELECT ... LIMIT 1` tagged with its group (the first in claim order wins); then one UPDATE of
 * the lead joined with the agent's row, guarded by the agent being free, and COMMIT. With one
 * statement per round trip this was seven. Taking the agent in its own UPDATE first cost a
 * statement and its answer per claim: 30 claimers measured 0.79-0.80 of the raw loop that way and
 * 0.86-0.99 with the joined UPDATE (3 rounds of 8 s, two runs each).
 * Only the Pending parts lock (`FOR UPDATE SKIP LOCKED`) in the first round trip. The callback and
 * retry parts are first probed without locking, and only a part that found a lead is run again with
 * `FOR UPDATE SKIP LOCKED` (one more round trip). The reason: a locking range scan that finds nothing
 * still locks the index record just past its range, and in the retry index that record is a Pending
 * lead another claimer is about to update; 30 claimers doing that to each other measured 4 deadlocks
 * and 2 s of lock waits in 5 s, and halved the claim rate. The price: a Pending lead locked in the
 * first round trip stays locked, and skipped by other claimers, until this short transaction ends
 * when a callback or retry was due after all; and when another dialer has the agent, a lead is
 * locked for the length of this short transaction and then left as it was.
 * SQLite: the agent's guarded UPDATE first, then one statement after another, a group at a time,
 * stopping at the first group with a lead (they are calls into the same process); claims made at the
 * same time share one transaction (`sqliteClaimGroup`).
 */
export async function claimLead(db: Db, req: LeadClaim): Promise<ClaimedLead | undefined> {
  if (req.dialablePriorities.length === 0) return undefined
  if (db.dialect === 'sqlite') return sqliteClaimGroup(db).submit(req)
  return withBatchTransaction(db, (session) => claimInSession(session, req, true))
}

/** Claims in one SQLite transaction at most; they run one after another inside it, in arrival order. */
const SQLITE_CLAIM_GROUP = 64

const SAVEPOINT: Statement = { sql: 'SAVEPOINT claim', params: [] }
const RELEASE: Statement = { sql: 'RELEASE claim', params: [] }
const ROLLBACK_TO: Statement = { sql: 'ROLLBACK TO claim', params: [] }

const sqliteClaimGroups = new WeakMap<Db, GroupCommit<LeadClaim, ClaimedLead | undefined>>()

/**
 * SQLite: claims that arrive while a claim is being written (a claim round's agents, several
 * dialers on one file) are made one after another in one transaction, in arrival order, and
 * committed together. Each claim's commit was an fsync: with 30 concurrent claimers a COMMIT took
 * 0.33 ms of a claim-and-release cycle's 0.9 ms. If the group's transaction fails after its retries,
 * every claim in it fails, and none of them reserved anything.
 * A claim that finds no lead is rolled back to its savepoint, so the agent it took stays free.
 */
function sqliteClaimGroup(db: Db): GroupCommit<LeadClaim, ClaimedLead | undefined> {
  let group = sqliteClaimGroups.get(db)
  if (!group) {
    group = new GroupCommit({
      maxWriters: 1,
      maxGroup: SQLITE_CLAIM_GROUP,
      write: (claims) =>
        withBatchTransaction(db, async (session) => {
          const leads: (ClaimedLead | undefined)[] = []
          for (const claim of claims) {
            // Each claim is undone on its own when it finds no lead, as its own transaction would
            // be: the agent it took is left free.
            await session.run([SAVEPOINT])
            const lead = await claimInSession(session, claim, false)
            await session.run(lead ? [RELEASE] : [ROLLBACK_TO, RELEASE])
            leads.push(lead)
          }
          await session.run([], { commit: true })
          return leads
        }),
    })
    sqliteClaimGroups.set(db, group)
  }
  return group
}

/**
 * One claim in `session`. On MySQL the claim's UPDATE is followed by COMMIT; on SQLite the group
 * (`sqliteClaimGroup`) commits.
 */
async function claimInSession(
  session: BatchSession,
  req: LeadClaim,
  mysql: boolean,
): Promise<ClaimedLead | undefined> {
  const commit = mysql
  const categories: Category[] = req.inHours ? ['callback', 'retry', 'pending'] : ['callback']
  const pins: Pin[] =
    req.pinnedAgentId !== null
      ? req.onlyMine
        ? ['mine']
        : ['mine', 'unpinned']
      : req.unpinnedOnly
        ? ['unpinned']
        : ['any']
  const parts = claimParts(pins, categories, mysql)
  let best: Ranked | undefined
  if (mysql) {
    const plain = parts.filter((part) => part.category !== 'pending')
    const pending = parts.filter((part) => part.category === 'pending')
    const read = plain.map((part) => candidateStatement(req, part, 'probe'))
    const results = await session.run([
      ...(read.length > 0
        ? [
            {
              sql: read.map((q) => `(${q.sql})`).join(' UNION ALL '),
              params: read.flatMap((q) => q.params),
            },
          ]
        : []),
      ...pending.map((part) => candidateStatement(req, part, 'lock')),
    ])
    const found = results
    for (const result of found.slice(read.length > 0 ? 1 : 0)) best = first(result.rows, best)
    if (read.length > 0 && found[0]!.rows.length > 0) {
      const due = new Set(found[0]!.rows.map((r) => Number(r.claim_part)))
      const relock = plain.filter((part) => due.has(part.index))
      const relocked = await session.run(relock.map((part) => candidateStatement(req, part, 'lock')))
      for (const result of relocked) best = first(result.rows, best)
    }
  } else {
    if (req.agentId !== null) {
      const [taken] = await session.run([takeAgentStatement(req.agentId, req.dialerId, req.now)])
      if (taken!.affectedRows !== 1) return undefined
    }
    for (const part of parts) {
      if (best && Number(best.claim_group) < part.group) break
      best = first((await session.run([candidateStatement(req, part, 'row')]))[0]!.rows, best)
    }
  }
  if (!best) return undefined
  const id = Number(best.id)
  const at = toDbTime(req.now)
  if (mysql && req.agentId !== null) {
    // The lead and the agent in one statement: both rows change, or neither does when another
    // dialer has the agent (then the lead, only read and locked, is left as it was).
    const [reserved] = await session.run(
      [
        {
          sql: `UPDATE hold_dialer_master_data m JOIN dialer_employee e ON e.id = ? AND e.on_call_by IS NULL
            SET m.previous_status = ?, m.dial_status = 'Calling', m.isReserved = 1, m.reserved_by = ?,
            m.reserved_at = ?, e.on_call_by = ?, e.on_call_since = ? WHERE m.id = ?`,
          params: [req.agentId, best.dial_status, req.dialerId, at, req.dialerId, at, id],
        },
      ],
      { commit },
    )
    if (reserved!.affectedRows !== 2) return undefined
  } else {
    await session.run(
      [
        {
          sql: `UPDATE hold_dialer_master_data SET previous_status = ?, dial_status = 'Calling', isReserved = 1,
            reserved_by = ?, reserved_at = ? WHERE id = ?`,
          params: [best.dial_status, req.dialerId, at, id],
        },
      ],
      { commit },
    )
  }
  const { dial_status, next_retry_at: _retryAt, claim_group: _group, claim_part: _part, ...rest } = best
  return {
    ...rest,
    id,
    priority_id: Number(rest.priority_id),
    agent_id: rest.agent_id === null ? null : Number(rest.agent_id),
    call_count: Number(rest.call_count),
    isRnrSent: Number(rest.isRnrSent),
    previous_status: dial_status,
  }
}
