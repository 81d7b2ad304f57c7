import { type Database, dialectOf } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import { sql, type Transaction } from 'kysely'

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
      if (category !== 'retry') parts.push({ group, pin, category })
      else {
        for (const status of ['Not Connected', 'Abandoned'] as const) {
          if (mysql) parts.push({ group, pin, category, status, retryAt: 'either' })
          else {
            parts.push({ group, pin, category, status, retryAt: 'none' })
            parts.push({ group, pin, category, status, retryAt: 'passed' })
          }
        }
      }
      group += 1
    }
  }
  return parts
}

/**
 * One candidate of one part, locked: `FOR UPDATE SKIP LOCKED` on MySQL walks the index that serves
 * the ORDER BY (ix_master_claim_callback / _retry / _pending) and skips rows another claimer holds.
 * SQLite serialises claimers with BEGIN IMMEDIATE instead. Priorities are passed as a literal list
 * rather than joined: a locking read through a join would also lock the priority rows and make every
 * other claimer skip every lead of that priority.
 */
function candidateQuery(trx: Transaction<Database>, req: ClaimRequest, part: Part) {
  const now = toDbTime(req.now)
  let q = trx
    .selectFrom('hold_dialer_master_data')
    .select(CLAIMED_COLUMNS)
    .where('isReserved', '=', 0)
    .where('priority_id', 'in', [...req.dialablePriorities])
  if (part.category === 'callback') {
    q = q
      .where('dial_status', '=', 'Callback')
      .where('callback_scheduled_at', '<=', now)
      .orderBy('callback_scheduled_at')
  } else if (part.category === 'retry') {
    q = q.where('dial_status', '=', part.status!)
    if (part.retryAt === 'none') q = q.where('next_retry_at', 'is', null)
    else if (part.retryAt === 'passed') q = q.where('next_retry_at', '<=', now)
    else q = q.where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', now)]))
    q = q.orderBy('next_retry_at')
  } else {
    q = q
      .where('dial_status', '=', 'Pending')
      .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', now)]))
      .orderBy('push_date')
  }
  if (req.excludeIds && req.excludeIds.length > 0) q = q.where('id', 'not in', [...req.excludeIds])
  if (part.pin === 'mine') q = q.where('agent_id', '=', req.pinnedAgentId)
  if (part.pin === 'unpinned') q = q.where('agent_id', 'is', null)
  q = q.orderBy('id').limit(1)
  if (dialectOf(trx) === 'mysql') q = q.forUpdate().skipLocked()
  return q
}

type CandidateRow = Awaited<ReturnType<ReturnType<typeof candidateQuery>['executeTakeFirstOrThrow']>>
type Ranked = CandidateRow & { claim_group: number }

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

/**
 * The first candidate in claim order. MySQL: every part in one statement, each a parenthesised
 * `SELECT ... LIMIT 1 FOR UPDATE SKIP LOCKED` tagged with its group, and the first in claim order
 * wins. One round trip instead of up to four (eight when pinned), which was a quarter of the claim's
 * time with 30 claimers; the price is that a part whose row is not used (a Pending lead when a
 * callback was due) stays locked, and skipped by other claimers, until this short transaction ends.
 * SQLite: one query after another, a group at a time; they are calls into the same process, and
 * SQLite has no UNION of ordered, limited parts.
 */
async function firstCandidate(
  trx: Transaction<Database>,
  req: ClaimRequest,
  parts: readonly Part[],
): Promise<CandidateRow | undefined> {
  let best: Ranked | undefined
  const consider = (row: Ranked) => {
    if (!best || before(row, best)) best = row
  }
  if (dialectOf(trx) === 'mysql') {
    const queries = parts.map((part) =>
      candidateQuery(trx, req, part).select(sql<number>`${part.group}`.as('claim_group')),
    )
    const union = queries.slice(1).reduce((acc, q) => sql`${acc} UNION ALL ${q}`, sql`${queries[0]}`)
    for (const row of (await union.execute(trx)).rows as Ranked[]) consider(row)
  } else {
    for (const part of parts) {
      if (best && Number(best.claim_group) < part.group) break
      const row = await candidateQuery(trx, req, part).executeTakeFirst()
      if (row) consider({ ...row, claim_group: part.group })
    }
  }
  if (!best) return undefined
  const { claim_group: _group, ...row } = best as Ranked
  return row
}

/**
 * Claims the next lead in the order of DECISIONS section 7 (due callbacks, due retries, Pending), marks
 * it Calling and reserved by this dialer, and keeps its status to restore if the originate fails.
 */
export async function claimNextLead(
  trx: Transaction<Database>,
  req: ClaimRequest,
): Promise<ClaimedLead | undefined> {
  if (req.dialablePriorities.length === 0) return undefined
  const categories: Category[] = req.inHours ? ['callback', 'retry', 'pending'] : ['callback']
  const pins: Pin[] =
    req.pinnedAgentId !== null
      ? req.onlyMine
        ? ['mine']
        : ['mine', 'unpinned']
      : req.unpinnedOnly
        ? ['unpinned']
        : ['any']
  const row = await firstCandidate(trx, req, claimParts(pins, categories, dialectOf(trx) === 'mysql'))
  if (!row) return undefined
  const id = Number(row.id)
  await trx
    .updateTable('hold_dialer_master_data')
    .set({
      previous_status: row.dial_status,
      dial_status: 'Calling',
      isReserved: 1,
      reserved_by: req.dialerId,
      reserved_at: toDbTime(req.now),
    })
    .where('id', '=', id)
    .execute()
  const { dial_status, next_retry_at: _retryAt, ...rest } = row
  return { ...rest, id, previous_status: dial_status }
}
