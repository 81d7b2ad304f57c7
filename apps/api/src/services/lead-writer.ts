import {
  type Db,
  GroupCommit,
  isDuplicateKey,
  isLive,
  type NewMasterRow,
  type TransactionOptions,
  withBatchTransaction,
  withRetry,
} from '@hold-dialer/db'
import {
  type DialStateReset,
  type LeadPhone,
  resetForPush,
  toDbTime,
  type WorkingHours,
} from '@hold-dialer/rules'
import type { PushResultType } from '../schemas/lead.js'
import { lockedLeads, lockLeadsStatement } from '../sql/lock-leads.js'
import { upsertOneLead } from '../sql/upsert-one-lead.js'
import { insertLeadsStatement, overwriteLeadsStatement } from '../sql/write-leads.js'
import type { CheckedLead } from './validate-leads.js'

/** One push request's setting: the working hours its leads' reset follows, its time, its retry count. */
export interface PushRequest {
  hours: WorkingHours
  now: Date
  onRetry?: TransactionOptions['onRetry']
}

type Status = PushResultType['status']

const dbReset = (reset: DialStateReset) => ({
  ...reset,
  callback_scheduled_at: reset.callback_scheduled_at && toDbTime(reset.callback_scheduled_at),
  next_retry_at: reset.next_retry_at && toDbTime(reset.next_retry_at),
})

/**
 * Upserts rows with distinct `oli_id`s in one transaction: locks the existing rows in `oli_id` order,
 * leaves live (Calling + reserved) rows untouched, inserts the new ones and overwrites the rest with
 * the spec's push reset. If another request inserts one of the new `oli_id`s first, the insert fails
 * with a duplicate key and the whole transaction is run again, now seeing that row as existing, so
 * each lead's reported status is exact. On MySQL two round trips: BEGIN and the locking read; the
 * insert, the overwrite and COMMIT (it was five, one per statement).
 */
async function writeLocked(
  db: Db,
  rows: NewMasterRow[],
  onRetry: PushRequest['onRetry'],
): Promise<Map<string, Status>> {
  const byOli = [...rows].sort((a, b) => (a.oli_id < b.oli_id ? -1 : a.oli_id > b.oli_id ? 1 : 0))
  const lock = lockLeadsStatement(
    db.dialect,
    byOli.map((r) => r.oli_id),
  )
  return withBatchTransaction(
    db,
    async (session) => {
      const [locked] = await session.run([lock])
      const existing = new Map(lockedLeads(locked!.rows).map((r) => [r.oli_id, r]))
      const status = new Map<string, Status>()
      const inserts: NewMasterRow[] = []
      const updates: NewMasterRow[] = []
      const updateIds: number[] = []
      for (const row of byOli) {
        const found = existing.get(row.oli_id)
        if (found && isLive(found)) {
          status.set(row.oli_id, 'skipped_in_flight')
        } else if (found) {
          status.set(row.oli_id, 'updated')
          updates.push(row)
          updateIds.push(found.id)
        } else {
          status.set(row.oli_id, 'inserted')
          inserts.push(row)
        }
      }
      const writes = [
        ...(inserts.length > 0 ? [insertLeadsStatement(inserts)] : []),
        ...(updates.length > 0 ? [overwriteLeadsStatement(db.dialect, updates, updateIds)] : []),
      ]
      await session.run(writes, { commit: true })
      return status
    },
    {
      alsoRetry: (e) => (isDuplicateKey(e) ? 'concurrent insert' : undefined),
      ...(onRetry ? { onRetry } : {}),
    },
  )
}

/** Most single-lead pushes written in one transaction. */
const MAX_GROUP = 100
/**
 * Groups written at once on MySQL: while one group waits for its commit others can be on their way
 * (the server overlaps their flushes). With 16 clients: 1 writer 3,100-3,500 requests/s, 2 about
 * 3,700, 4 about 3,950. Their rows never overlap, and each locks its rows in `oli_id`
 * order, so they cannot deadlock each other. SQLite has one writer at a time anyway.
 */
const MYSQL_WRITERS = 4

interface SingleLead {
  row: NewMasterRow
  onRetry: PushRequest['onRetry']
}

/**
 * Writes pushed leads and reports each one's outcome exactly: a single lead joins the next group
 * commit, a batch is one locked transaction of its own. One per app (`buildApp`), carried in its
 * context: the group commit of single-lead pushes lives here.
 *
 * Group commit (`GroupCommit`): single-lead pushes that arrive while a write is under way wait, and
 * are then written together in one locked transaction, each with its own exact status: one commit
 * and two round trips for the group instead of a transaction each. Measured with 16 clients: SQLite
 * went from half the rate of a bare loop of autocommit upserts to above it (every commit is an fsync,
 * and better-sqlite3 holds the event loop while it commits); MariaDB from about 2,600 to 3,000-4,400
 * requests/s. A group of one on MariaDB is the one-statement upsert (`upsertOneLead`). Two pushes of
 * the same `oli_id` never share a group, nor are written at once: the later waits until the
 * earlier's group has ended, so it sees the earlier as existing. Up to MYSQL_WRITERS groups are
 * written at once on MySQL, one on SQLite; if a group's transaction fails after its retries, every
 * push in it answers 503 `database_unavailable`.
 */
export class LeadWriter {
  readonly #db: Db
  readonly #singles: GroupCommit<SingleLead, Status>
  /** `oli_id`s of the single-lead groups being written. */
  readonly #inFlight = new Set<string>()
  /**
   * The push reset of a lead without a callback time depends on `now` only through the local minute
   * (working hours are whole minutes, and so are zone offsets), so it is worked out once per UTC
   * minute rather than per lead or per request: its time-zone arithmetic was a quarter of the API's
   * CPU on a 500-lead batch, and 7% on single-lead pushes.
   */
  #plainReset: { hours: WorkingHours; minute: number; reset: ReturnType<typeof dbReset> } | undefined

  /** A lead's international form and `customer_tz` from its number as sent (DEFAULT_COUNTRY and TIMEZONE bound in). */
  readonly #phoneOf: (text: string) => LeadPhone

  constructor(db: Db, phoneOf: (text: string) => LeadPhone) {
    this.#db = db
    this.#phoneOf = phoneOf
    this.#singles = new GroupCommit({
      maxWriters: db.dialect === 'mysql' ? MYSQL_WRITERS : 1,
      maxGroup: MAX_GROUP,
      fits: (lead, group) =>
        !this.#inFlight.has(lead.row.oli_id) && !group.some((other) => other.row.oli_id === lead.row.oli_id),
      write: async (group) => {
        // Added before the first await, so a group formed meanwhile already sees these as in flight.
        for (const w of group) this.#inFlight.add(w.row.oli_id)
        try {
          const statuses = await this.#writeGroup(group)
          return group.map((w) => statuses.get(w.row.oli_id)!)
        } finally {
          for (const w of group) this.#inFlight.delete(w.row.oli_id)
        }
      },
    })
  }

  /** Upserts validated leads; one result per lead, in their order. */
  async push(req: PushRequest, leads: CheckedLead[]): Promise<PushResultType[]> {
    const rowFor = this.#rowBuilder(req)
    const echo = (l: CheckedLead, status: Status): PushResultType => ({
      oli_id: l.input.oli_id,
      status,
      callback_scheduled_at: l.input.callback_scheduled_at ?? null,
    })
    const lead = leads[0]
    if (leads.length === 1 && lead) {
      return [echo(lead, await this.#singles.submit({ row: rowFor(lead), onRetry: req.onRetry }))]
    }
    const statuses = await writeLocked(this.#db, leads.map(rowFor), req.onRetry)
    return leads.map((l) => echo(l, statuses.get(l.input.oli_id)!))
  }

  async #writeGroup(group: readonly SingleLead[]): Promise<Map<string, Status>> {
    const only = group.length === 1 ? group[0]! : undefined
    if (only) {
      // One autocommit statement where the dialect has it: run again on a fresh connection if this
      // one is lost. Unchanged (a live lead, or an identical push) is settled under the lock below.
      const outcome = await withRetry(
        () => upsertOneLead(this.#db, only.row),
        only.onRetry ? { onRetry: only.onRetry } : {},
      )
      if (outcome === 'inserted' || outcome === 'updated') return new Map([[only.row.oli_id, outcome]])
    }
    return writeLocked(
      this.#db,
      group.map((w) => w.row),
      group[0]!.onRetry,
    )
  }

  /** Builds the rows of one request; the stamp and the plain reset are shared by all its leads. */
  #rowBuilder(req: PushRequest): (lead: CheckedLead) => NewMasterRow {
    const stamp = toDbTime(req.now)
    const plain = this.#plainResetAt(req.now, req.hours)
    return (lead) => {
      const phone = this.#phoneOf(lead.phoneText)
      return {
        oli_id: lead.input.oli_id,
        phone_number: lead.phoneDigits,
        client_name: lead.input.client_name,
        form_type: lead.input.form_type,
        priority_id: lead.input.priority_id,
        agent_id: lead.agentId,
        ...(lead.callbackAt === null
          ? plain
          : dbReset(resetForPush({ callbackAt: lead.callbackAt, now: req.now, hours: req.hours }))),
        reserved_by: null,
        reserved_at: null,
        previous_status: null,
        push_date: stamp,
        status: 1,
        created_at: stamp,
        // Set by name rather than spread in: every row then has the same shape.
        customer_tz: phone.customer_tz,
        phone_e164: phone.phone_e164,
      }
    }
  }

  #plainResetAt(now: Date, hours: WorkingHours) {
    const minute = Math.floor(now.getTime() / 60_000)
    if (this.#plainReset?.hours !== hours || this.#plainReset.minute !== minute) {
      this.#plainReset = { hours, minute, reset: dbReset(resetForPush({ callbackAt: null, now, hours })) }
    }
    return this.#plainReset.reset
  }
}
