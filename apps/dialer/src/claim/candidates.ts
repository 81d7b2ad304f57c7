import type { Dialect, MasterRow, MasterTable, Statement } from '@hold-dialer/db'
import { type DialStatus, toDbTime } from '@hold-dialer/rules'
import type { ClaimRequest } from './request.js'

// The claim's candidate queries: which parts a claim looks in, their SQL, and the claim order
// between the rows they find. claim-mysql.ts and claim-sqlite.ts run them.

/**
 * What a claim needs of the lead, read by the locking SELECT itself: the row is read to check the
 * conditions the index does not hold anyway, and a second SELECT by id cost a round trip per claim.
 * `next_retry_at` orders the retry parts against each other.
 */
const CLAIMED_COLUMNS = [
  'id',
  'oli_id',
  'phone_number',
  'phone_e164',
  'client_name',
  'priority_id',
  'agent_id',
  'dial_status',
  'call_count',
  'callback_scheduled_at',
  'first_attempt_at',
  'isRnrSent',
  'next_retry_at',
] as const satisfies readonly (keyof MasterTable)[]

type ClaimedColumns = Pick<MasterRow, (typeof CLAIMED_COLUMNS)[number]>

/**
 * A candidate lead as a part's SELECT reads it, with the part that found it and whether its number
 * is on the do-not-call list (`dnc`: then the claim ends the lead instead of reserving it, as it does
 * a lead whose `phone_e164` is '', a number that cannot be read).
 */
export type Candidate = ClaimedColumns & { claim_group: number; claim_part: number; dnc: number }

/**
 * A claimed lead: its claimed columns, with the status it had before the claim as `previous_status`
 * and the claim's token (`claim_token`, calls/call-key.ts).
 */
export type ClaimedLead = Omit<ClaimedColumns, 'dial_status' | 'next_retry_at'> & {
  previous_status: DialStatus
  claim_token: string
}

export type Category = 'callback' | 'retry' | 'pending'
/** `overdue`: pinned to another agent and waiting longer than PINNED_FALLBACK_MINUTES. */
export type Pin = 'mine' | 'unpinned' | 'overdue' | 'any'
type RetryStatus = 'Not Connected' | 'Abandoned'

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

/** The parts a claim looks in, in claim order: due callbacks, due retries, Pending, per pin. */
export function claimParts(req: ClaimRequest, dialect: Dialect): Part[] {
  const categories: Category[] = req.inHours ? ['callback', 'retry', 'pending'] : ['callback']
  const pins: Pin[] =
    req.pinnedAgentId !== null
      ? req.onlyMine
        ? ['mine']
        : ['mine', 'unpinned']
      : req.unpinnedOnly
        ? ['unpinned']
        : ['any']
  const fallback = req.pinnedFallback
  const parts: Part[] = []
  let group = 0
  for (const pin of pins) {
    for (const category of categories) {
      // A lead overdue for its agent is taken as if unpinned: in the unpinned parts' group, so the
      // usual order (oldest first) decides between them.
      const alike: Pin[] =
        pin === 'unpinned' && fallback && (category === 'callback' || fallback.workingDueBefore !== null)
          ? ['unpinned', 'overdue']
          : [pin]
      for (const p of alike) {
        if (category !== 'retry') parts.push({ index: parts.length, group, pin: p, category })
        else {
          for (const status of ['Not Connected', 'Abandoned'] as const) {
            if (dialect === 'mysql') {
              parts.push({ index: parts.length, group, pin: p, category, status, retryAt: 'either' })
            } else {
              parts.push({ index: parts.length, group, pin: p, category, status, retryAt: 'none' })
              parts.push({ index: parts.length, group, pin: p, category, status, retryAt: 'passed' })
            }
          }
        }
      }
      group += 1
    }
  }
  return parts
}

/**
 * Since when an overdue part's lead has been due: a callback since its time, a retry since its retry
 * time (or its last attempt, or its push), Pending since its push (or the WORK_START it waited for).
 */
const DUE_SINCE: Record<Category, string> = {
  callback: 'callback_scheduled_at',
  retry: 'COALESCE(next_retry_at, last_attempt_at, push_date)',
  pending: 'COALESCE(next_retry_at, push_date)',
}

/**
 * The statuses a part looks for, written into its SQL as literals rather than bound. With
 * `dial_status = ?` (the second column of every claim index) each run of a reused SQLite statement
 * cost as much as preparing it afresh, 50-80 µs, against 4-11 µs with the literal (the same plan;
 * SQLite re-plans a statement for the bound value of an indexed column), and a claim runs up to six
 * (docs/benchmarks.md). They are the code's own constants, never input.
 */
const CLAIM_STATUS = { callback: "'Callback'", pending: "'Pending'" } as const
const RETRY_STATUS: Record<RetryStatus, string> = {
  'Not Connected': "'Not Connected'",
  Abandoned: "'Abandoned'",
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
 * batch (see `claimLead`), and building it with Kysely was a large share of a claim's CPU on SQLite.
 */
export function candidateStatement(req: ClaimRequest, part: Part, mode: ReadMode): Statement {
  const now = toDbTime(req.now)
  // A lead whose international form is not worked out yet (NULL: pushed before it existed) waits for
  // the dialer's fill (phone-fill.ts): until then the do-not-call list and the caps cannot see it.
  const where = [
    'isReserved = 0',
    'phone_e164 IS NOT NULL',
    `priority_id IN (${placeholders(req.dialablePriorities.length)})`,
  ]
  const params: (string | number | null)[] = [...req.dialablePriorities]
  let order: string
  if (part.category === 'callback') {
    where.push(`dial_status = ${CLAIM_STATUS.callback}`, 'callback_scheduled_at <= ?')
    params.push(now)
    order = 'callback_scheduled_at'
  } else if (part.category === 'retry') {
    where.push(`dial_status = ${RETRY_STATUS[part.status!]}`)
    if (part.retryAt === 'none') where.push('next_retry_at IS NULL')
    else if (part.retryAt === 'passed') where.push('next_retry_at <= ?')
    else where.push('(next_retry_at IS NULL OR next_retry_at <= ?)')
    if (part.retryAt !== 'none') params.push(now)
    order = 'next_retry_at'
  } else {
    where.push(`dial_status = ${CLAIM_STATUS.pending}`, '(next_retry_at IS NULL OR next_retry_at <= ?)')
    params.push(now)
    order = 'push_date'
  }
  const excluded = req.excludeIds ?? []
  if (excluded.length > 0) {
    where.push(`id NOT IN (${placeholders(excluded.length)})`)
    params.push(...excluded)
  }
  if (part.pin === 'mine') {
    where.push('agent_id = ?')
    params.push(req.pinnedAgentId)
  }
  if (part.pin === 'unpinned') where.push('agent_id IS NULL')
  if (part.pin === 'overdue') {
    where.push('agent_id IS NOT NULL')
    if (req.pinnedAgentId !== null) {
      where.push('agent_id <> ?')
      params.push(req.pinnedAgentId)
    }
    where.push(`${DUE_SINCE[part.category]} <= ?`)
    const fallback = req.pinnedFallback!
    params.push(toDbTime(part.category === 'callback' ? fallback.dueBefore : fallback.workingDueBefore!))
    if (fallback.pbx !== undefined) {
      // Pinned to an agent of this dialer's PBX (a primary-key look-up per candidate).
      where.push('agent_id IN (SELECT e.id FROM dialer_employee e WHERE e.pbx = ?)')
      params.push(fallback.pbx)
    }
  }
  numberCapsWhere(req, where, params)
  if (req.customerZones) {
    // The customer's local hours, decided in the dialer for each distinct stored zone value: the
    // query only compares the column with constants (no time arithmetic per row).
    const { callable, unzonedCallable } = req.customerZones
    const allowed: string[] = []
    if (callable.length > 0) {
      allowed.push(`customer_tz IN (${placeholders(callable.length)})`)
      params.push(...callable)
    }
    if (unzonedCallable) allowed.push('customer_tz IS NULL')
    where.push(allowed.length > 0 ? `(${allowed.join(' OR ')})` : '1 = 0')
  }
  if (mode === 'probe') {
    return {
      sql: `SELECT ${part.index} AS claim_part FROM hold_dialer_master_data WHERE ${where.join(' AND ')} LIMIT 1`,
      params,
    }
  }
  // The do-not-call check is read with the row, not filtered on: a listed lead is found in its turn
  // and ended by the claim (claimLead), rather than left on the table for ever. Evaluated only for
  // the one row returned, by primary key.
  return {
    sql:
      `SELECT ${CLAIMED_COLUMNS.join(', ')}, ${part.group} AS claim_group, ${part.index} AS claim_part, ${DNC_LISTED} AS dnc` +
      ` FROM hold_dialer_master_data WHERE ${where.join(' AND ')} ORDER BY ${order}, id LIMIT 1${mode === 'lock' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    params: [now, now, ...params],
  }
}

/**
 * What the SQL text of a claim's candidate parts depends on, with its pin: two claims of one shape run
 * the same statements with other values. Both claims key their DueProbeMemo on it: building the
 * callback and retry statements only to key on their text was about 8% of the SQLite claims bench's
 * product time. Every input that
 * changes `candidateStatement`'s text belongs here (test/claim-shape.test.ts checks them).
 */
export function claimShape(req: ClaimRequest): string {
  const fallback = req.pinnedFallback
  const caps = req.numberCaps
  const zones = req.customerZones
  return [
    req.pinnedAgentId,
    req.inHours ? 'h' : '-',
    req.onlyMine ? 'm' : '-',
    req.unpinnedOnly ? 'u' : '-',
    fallback ? (fallback.workingDueBefore === null ? 'f' : 'F') : '-',
    fallback?.pbx !== undefined ? 'p' : '-',
    req.dialablePriorities.length,
    req.excludeIds?.length ?? 0,
    caps?.lastEndedBefore ? 'l' : '-',
    caps?.perDay ? 'd' : '-',
    zones ? `${zones.callable.length}${zones.unzonedCallable ? 'z' : '-'}` : '-',
  ].join(' ')
}

/**
 * Whether the candidate's number is listed and unexpired (two parameters: now, now): the same person
 * (international form, ix_dnc_e164), or, for an entry from before the international form whose own
 * form is not worked out yet (`e164` NULL), the same digits (the primary key), which is what it
 * matched then. Only for those: an entry added since keeps its international digits as its key, and
 * the listed Budapest `3612345201` must not stop the Texas `3612345201` pushed nationally. Two
 * EXISTS rather than one with an OR, so each is one index look-up.
 */
const DNC_LISTED =
  '(EXISTS (SELECT 1 FROM hold_dialer_dnc d WHERE d.e164 = hold_dialer_master_data.phone_e164' +
  " AND d.e164 <> '' AND (d.expires_at IS NULL OR d.expires_at > ?))" +
  ' OR EXISTS (SELECT 1 FROM hold_dialer_dnc d WHERE d.digits = hold_dialer_master_data.phone_number' +
  ' AND d.e164 IS NULL AND (d.expires_at IS NULL OR d.expires_at > ?)))'

/**
 * The per-number caps as conditions on the candidate, each an indexed look-up by the person called,
 * the number's international form (ix_master_phone_e164, ix_attempts_phone_e164), so `212-555-0101`
 * and `+1 212 555 0101` are one number: not dialed now under another lead, not called too recently,
 * not called too often today. Attempts are written at settle; the number's call in progress is the
 * reserved lead, which the first condition covers.
 */
function numberCapsWhere(req: ClaimRequest, where: string[], params: (string | number | null)[]): void {
  const caps = req.numberCaps
  if (!caps || (!caps.lastEndedBefore && !caps.perDay)) return
  where.push(
    'NOT EXISTS (SELECT 1 FROM hold_dialer_master_data o WHERE o.phone_e164 = hold_dialer_master_data.phone_e164 AND o.isReserved = 1)',
  )
  if (caps.lastEndedBefore) {
    where.push(
      'NOT EXISTS (SELECT 1 FROM hold_dialer_call_attempts a WHERE a.phone_e164 = hold_dialer_master_data.phone_e164 AND a.ended_at > ?)',
    )
    params.push(toDbTime(caps.lastEndedBefore))
  }
  if (caps.perDay) {
    where.push(
      '(SELECT COUNT(*) FROM hold_dialer_call_attempts a WHERE a.phone_e164 = hold_dialer_master_data.phone_e164 AND a.started_at >= ?) < ?',
    )
    params.push(toDbTime(caps.perDay.since), caps.perDay.max)
  }
}

/** MySQL: whether each of `parts` has a candidate, unlocked, in one statement (a row per part that has). */
export function probeStatement(req: ClaimRequest, parts: readonly Part[]): Statement {
  const probes = parts.map((part) => candidateStatement(req, part, 'probe'))
  return {
    sql: probes.map((q) => `(${q.sql})`).join(' UNION ALL '),
    params: probes.flatMap((q) => q.params),
  }
}

/** The parts a probe's rows say have a candidate. */
export function probedParts(rows: readonly Record<string, unknown>[], parts: readonly Part[]): Part[] {
  const due = new Set(rows.map((r) => Number(r.claim_part)))
  return parts.filter((part) => due.has(part.index))
}

const placeholders = (n: number) => (n === 0 ? '' : `${'?, '.repeat(n - 1)}?`)

/** A candidate query's row, typed: the drivers may return the integer columns as text or bigint. */
function candidateOf(row: Record<string, unknown>): Candidate {
  const r = row as unknown as Candidate
  return {
    ...r,
    id: Number(r.id),
    priority_id: Number(r.priority_id),
    agent_id: r.agent_id === null ? null : Number(r.agent_id),
    call_count: Number(r.call_count),
    isRnrSent: Number(r.isRnrSent),
    claim_group: Number(r.claim_group),
    claim_part: Number(r.claim_part),
    dnc: Number(r.dnc),
  }
}

/**
 * Claim order between candidates: group first, then (within the retry group) no retry time before
 * the oldest retry time, then id. Times are fixed-width UTC text, so text order is time order.
 */
function before(a: Candidate, b: Candidate): boolean {
  if (a.claim_group !== b.claim_group) return a.claim_group < b.claim_group
  const at = a.next_retry_at ?? ''
  const bt = b.next_retry_at ?? ''
  if (at !== bt) return at < bt
  return a.id < b.id
}

/** The first in claim order of `best` and the candidate queries' rows. */
export function firstCandidate(
  rows: readonly Record<string, unknown>[],
  best: Candidate | undefined,
): Candidate | undefined {
  for (const row of rows) {
    const candidate = candidateOf(row)
    if (!best || before(candidate, best)) best = candidate
  }
  return best
}

/** What the claim returns of the candidate it reserved. */
export function claimedLead(c: Candidate, token: string): ClaimedLead {
  const {
    dial_status,
    next_retry_at: _retryAt,
    claim_group: _group,
    claim_part: _part,
    dnc: _dnc,
    ...rest
  } = c
  return { ...rest, previous_status: dial_status, claim_token: token }
}
