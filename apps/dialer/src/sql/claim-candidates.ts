import type { Statement } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { ClaimRequest } from './claim.js'

// The claim's candidate queries: which parts a claim looks in, their SQL, and the claim order
// between the rows they find. `claimLead` (claim.ts) runs them.

export type Category = 'callback' | 'retry' | 'pending'
export type Pin = 'mine' | 'unpinned' | 'any'
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
export interface Part {
  /** Its place in the list, returned with its row. */
  index: number
  group: number
  pin: Pin
  category: Category
  status?: RetryStatus
  retryAt?: 'none' | 'passed' | 'either'
}

export function claimParts(pins: readonly Pin[], categories: readonly Category[], mysql: boolean): Part[] {
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
export type ReadMode = 'row' | 'lock' | 'probe'

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
export function candidateStatement(req: ClaimRequest, part: Part, mode: ReadMode): Statement {
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

export interface Ranked {
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

export function first(
  rows: readonly Record<string, unknown>[],
  best: Ranked | undefined,
): Ranked | undefined {
  for (const row of rows as unknown as Ranked[]) if (!best || before(row, best)) best = row
  return best
}
