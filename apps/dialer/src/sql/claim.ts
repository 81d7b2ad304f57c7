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

/**
 * What a claim needs of the lead, read by the locking SELECT itself: the row is read to check the
 * conditions the index does not hold anyway, and a second SELECT by id cost a round trip per claim.
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
] as const
type Pin = 'mine' | 'unpinned' | 'any'

/**
 * One candidate of one category, locked: `FOR UPDATE SKIP LOCKED` on MySQL walks the index that serves
 * the ORDER BY (ix_master_claim_callback / _retry / _pending) and skips rows another claimer holds.
 * SQLite serialises claimers with BEGIN IMMEDIATE instead. Priorities are passed as a literal list
 * rather than joined: a locking read through a join would also lock the priority rows and make every
 * other claimer skip every lead of that priority.
 */
function candidateQuery(trx: Transaction<Database>, req: ClaimRequest, category: Category, pin: Pin) {
  const now = toDbTime(req.now)
  let q = trx
    .selectFrom('hold_dialer_master_data')
    .select(CLAIMED_COLUMNS)
    .where('isReserved', '=', 0)
    .where('priority_id', 'in', [...req.dialablePriorities])
  if (category === 'callback') {
    q = q
      .where('dial_status', '=', 'Callback')
      .where('callback_scheduled_at', '<=', now)
      .orderBy('callback_scheduled_at')
  } else if (category === 'retry') {
    q = q
      .where('dial_status', 'in', ['Not Connected', 'Abandoned'])
      .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', now)]))
      .orderBy('next_retry_at')
  } else {
    q = q
      .where('dial_status', '=', 'Pending')
      .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', now)]))
      .orderBy('push_date')
  }
  if (req.excludeIds && req.excludeIds.length > 0) q = q.where('id', 'not in', [...req.excludeIds])
  if (pin === 'mine') q = q.where('agent_id', '=', req.pinnedAgentId)
  if (pin === 'unpinned') q = q.where('agent_id', 'is', null)
  q = q.orderBy('id').limit(1)
  if (dialectOf(trx) === 'mysql') q = q.forUpdate().skipLocked()
  return q
}

type CandidateRow = Awaited<ReturnType<ReturnType<typeof candidateQuery>['executeTakeFirstOrThrow']>>

/**
 * The first candidate in `plan` order. MySQL: every candidate query in one statement, each part a
 * parenthesised `SELECT ... LIMIT 1 FOR UPDATE SKIP LOCKED` tagged with its rank, and the best rank
 * wins. One round trip instead of up to three (six when pinned), which was a quarter of the claim's
 * time with 30 claimers; the price is that a part whose row is not used (a Pending lead when a
 * callback was due) stays locked, and skipped by other claimers, until this short transaction ends.
 * SQLite: one query after another; they are calls into the same process and SQLite has no UNION of
 * ordered, limited parts.
 */
async function firstCandidate(
  trx: Transaction<Database>,
  req: ClaimRequest,
  plan: readonly [Pin, Category][],
): Promise<CandidateRow | undefined> {
  if (dialectOf(trx) !== 'mysql') {
    for (const [pin, category] of plan) {
      const row = await candidateQuery(trx, req, category, pin).executeTakeFirst()
      if (row) return row
    }
    return undefined
  }
  const parts = plan.map(([pin, category], rank) =>
    candidateQuery(trx, req, category, pin).select(sql<number>`${rank}`.as('claim_rank')),
  )
  const union = parts.slice(1).reduce((acc, part) => sql`${acc} UNION ALL ${part}`, sql`${parts[0]}`)
  const { rows } = await union.execute(trx)
  let best: (CandidateRow & { claim_rank: number }) | undefined
  for (const row of rows as (CandidateRow & { claim_rank: number })[]) {
    if (!best || Number(row.claim_rank) < Number(best.claim_rank)) best = row
  }
  if (!best) return undefined
  const { claim_rank: _rank, ...row } = best
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
  const plan = pins.flatMap((pin) => categories.map((category) => [pin, category] as [Pin, Category]))
  const row = await firstCandidate(trx, req, plan)
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
  const { dial_status, ...rest } = row
  return { ...rest, id, previous_status: dial_status }
}
