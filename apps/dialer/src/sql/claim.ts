import {
  type BatchSession,
  type Db,
  GroupCommit,
  type Statement,
  withBatchTransaction,
} from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
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

type Category = 'callback' | 'retry' | 'pending'
type Pin = 'mine' | 'unpinned' | 'any'
type RetryStatus = 'Not Connected' | 'Abandoned'

/**
 * What a claim needs of the lead, read by the locking SELECT itself: the row is read to check the
 * conditions the index does not hold anyway, and a second SELECT by id cost a round trip per claim.
 * `next_retry_at` orders the retry parts against each other.
 */
const CLAIMED_COLUMNS = [
  'id',
  'oli_id',
  'phone_number',
  'client_name',
  'priority_id',
  'agent_id',
  'dial_status',
  'call_count',
  'callback_scheduled_at',
  'first_attempt_at',
  'isRnrSent',
  'next_retry_at',
] as const

/**
 * One ordered, limited candidate query. `group` is its place in the claim order (pin, then category);
 * the retry category is one part per status, so that ix_master_claim_retry serves each part's ORDER BY
 * (an IN over both statuses made MySQL sort every due retry, locking each one it read, and SQLite
 * read every Not Connected lead: 0.6 ms per claim at 3,700 of them, growing with the backlog).
 * SQLite also splits "no retry time" from "retry time passed": with the OR it walked the whole
 * status instead of the range.
 */
interface Part {
  /** Its place in the list, returned with its row. */
  index: number
  group: number
  pin: Pin
  category: Category
  status?: RetryStatus
  retryAt?: 'none' | 'passed' | 'either'
}

function claimParts(pins: readonly Pin[], categories: readonly Category[], mysql: boolean): Part[] {
  const parts: Part[] = []
  let group = 0
  for (const pin of pins) {
    for (const category of categories) {
      if (category !== 'retry') parts.push({ index: parts.length, group, pin, category })
      else {
        for (const status of ['Not Connected', 'Abandoned'] as const) {
          if (mysql) parts.push({ index: parts.length, group, pin, category, status, retryAt: 'either' })
          else {
            parts.push({ index: parts.length, group, pin, category, status, retryAt: 'none' })
            parts.push({ index: parts.length, group, pin, category, status, retryAt: 'passed' })
          }
        }
      }
      group += 1
    }
  }
  return parts
}

/**
 * How a part is read: `row` reads the candidate's columns, `lock` does so with
 * `FOR UPDATE SKIP LOCKED`, `probe` only says whether the part has a candidate (its index, no order).
 */
type ReadMode = 'row' | 'lock' | 'probe'

/**
 * One candidate of one part, as SQL: `FOR UPDATE SKIP LOCKED` on MySQL walks the index that serves
 * the ORDER BY (ix_master_claim_callback / _retry / _pending) and skips rows another claimer holds.
 * SQLite serialises claimers with BEGIN IMMEDIATE instead. Priorities are passed as a literal list
 * rather than joined: a locking read through a join would also lock the priority rows and make every
 * other claimer skip every lead of that priority. Written as text, not built with Kysely: it runs in a
 * batch (see `claimLead`), and building it was a large share of a claim's CPU on SQLite. The text
 * depends only on the part, the mode and the list lengths, so it is built once (`candidateSql`); the
 * values are put in order here.
 */
function candidateStatement(req: ClaimRequest, part: Part, mode: ReadMode): Statement {
  const now = toDbTime(req.now)
  const params: (string | number | null)[] = [...req.dialablePriorities]
  if (part.category === 'callback') params.push('Callback', now)
  else if (part.category === 'retry') {
    params.push(part.status!)
    if (part.retryAt !== 'none') params.push(now)
  } else params.push('Pending', now)
  const excluded = req.excludeIds?.length ?? 0
  if (excluded > 0) params.push(...req.excludeIds!)
  if (part.pin === 'mine') params.push(req.pinnedAgentId)
  return { sql: candidateSql(part, mode, req.dialablePriorities.length, excluded), params }
}

const sqlTexts = new Map<string, string>()
/** Distinct texts kept at most; the excluded-id count varies, so the map is emptied when full. */
const SQL_TEXTS_KEPT = 1000

function candidateSql(part: Part, mode: ReadMode, priorities: number, excluded: number): string {
  const key = `${part.index}/${part.group}/${part.pin}/${part.category}/${part.status}/${part.retryAt}/${mode}/${priorities}/${excluded}`
  const known = sqlTexts.get(key)
  if (known !== undefined) return known
  const where = ['isReserved = 0', `priority_id IN (${placeholders(priorities)})`]
  let order: string
  if (part.category === 'callback') {
    where.push('dial_status = ?', 'callback_scheduled_at <= ?')
    order = 'callback_scheduled_at'
  } else if (part.category === 'retry') {
    where.push('dial_status = ?')
    if (part.retryAt === 'none') where.push('next_retry_at IS NULL')
    else if (part.retryAt === 'passed') where.push('next_retry_at <= ?')
    else where.push('(next_retry_at IS NULL OR next_retry_at <= ?)')
    order = 'next_retry_at'
  } else {
    where.push('dial_status = ?', '(next_retry_at IS NULL OR next_retry_at <= ?)')
    order = 'push_date'
  }
  if (excluded > 0) where.push(`id NOT IN (${placeholders(excluded)})`)
  if (part.pin === 'mine') where.push('agent_id = ?')
  if (part.pin === 'unpinned') where.push('agent_id IS NULL')
  const sql =
    mode === 'probe'
      ? `SELECT ${part.index} AS claim_part FROM hold_dialer_master_data WHERE ${where.join(' AND ')} LIMIT 1`
      : `SELECT ${CLAIMED_COLUMNS.join(', ')}, ${part.group} AS claim_group, ${part.index} AS claim_part FROM hold_dialer_master_data` +
        ` WHERE ${where.join(' AND ')} ORDER BY ${order}, id LIMIT 1${mode === 'lock' ? ' FOR UPDATE SKIP LOCKED' : ''}`
  if (sqlTexts.size >= SQL_TEXTS_KEPT) sqlTexts.clear()
  sqlTexts.set(key, sql)
  return sql
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

interface Ranked {
  id: number
  oli_id: string
  phone_number: string
  client_name: string
  priority_id: number
  agent_id: number | null
  dial_status: string
  call_count: number
  callback_scheduled_at: string | null
  first_attempt_at: string | null
  isRnrSent: number
  next_retry_at: string | null
  claim_group: number
  claim_part: number
}

/**
 * Claim order between candidates: group first, then (within the retry group) no retry time before
 * the oldest retry time, then id. Times are fixed-width UTC text, so text order is time order.
 */
function before(a: Ranked, b: Ranked): boolean {
  if (Number(a.claim_group) !== Number(b.claim_group)) return Number(a.claim_group) < Number(b.claim_group)
  const at = a.next_retry_at ?? ''
  const bt = b.next_retry_at ?? ''
  if (at !== bt) return at < bt
  return Number(a.id) < Number(b.id)
}

function first(rows: readonly Record<string, unknown>[], best: Ranked | undefined): Ranked | undefined {
  for (const row of rows as unknown as Ranked[]) if (!best || before(row, best)) best = row
  return best
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
