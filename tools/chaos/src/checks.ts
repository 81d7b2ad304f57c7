import { seedAgents } from '@hold-dialer/bench/fleet'
import { lostLeads } from '@hold-dialer/bench/scale-checks'
import { insertChunked, seedRow } from '@hold-dialer/bench/seed'
import { type Db, unavailableReason } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import { sql } from 'kysely'
import { CALL_KEY } from './pbx.js'

/** The leads' `oli_id`s: `CH-<index>`, each with its own number, so a number names one lead. */
export const oliId = (i: number) => `CH-${i}`
/** The lead's number as pbx-sim sees it (digits; the dialer dials `+<digits>`). */
export const leadNumber = (i: number) => `1555${String(i).padStart(7, '0')}`

/** The outcome of an attempt row its claim opened and no settle or release has completed yet. */
export const DIALING = 'Dialing'

/** Examples kept of each failed check: enough to start from, not the whole list. */
export const EXAMPLES = 5

export interface Found {
  count: number
  examples: string[]
}

const found = (all: string[]): Found => ({ count: all.length, examples: all.slice(0, EXAMPLES) })

/**
 * The checker's side of the database: the seed, what the checks read while the run goes on and at
 * its end, and the KILL of the dialers' connections. It runs on one connection of its own (a pool of
 * 1), so that the KILL can spare it by its id and the dialers keep every other connection to the run's
 * database.
 */
export class ChaosDb {
  constructor(readonly db: Db) {}

  get #k() {
    return this.db.kysely
  }

  /**
   * Records, in the attempt's own transaction, the lead as it stood when each attempt row got its
   * result: its claim token, status and holder. Triggers of this run's database, not of the product:
   * they let "no result lands on a newer claim" be checked at the moment of each write rather than
   * guessed from the end state (a claim restored without a call leaves nothing to compare with).
   * A row gets its result when it is written whole (settle.ts writes the attempt after locking the
   * lead and before changing it), or, where the claim opens the row (`Dialing`) and the settle or a
   * release completes it, when its outcome leaves `Dialing`; both are recorded (`insert`,
   * `complete`). A later change of a completed row (a late result filling an `Unknown` one) is not:
   * whether the call counts was decided at its completion.
   */
  async installFence(): Promise<void> {
    await sql`CREATE TABLE chaos_attempt_fence (
      attempt_id BIGINT NOT NULL,
      event VARCHAR(8) NOT NULL,
      outcome VARCHAR(20) NOT NULL,
      lead_token CHAR(8) NULL,
      lead_status VARCHAR(20) NULL,
      lead_reserved TINYINT NULL,
      lead_holder VARCHAR(100) NULL,
      PRIMARY KEY (attempt_id, event)
    )`.execute(this.#k)
    const record = (event: string) =>
      sql.raw(`INSERT INTO chaos_attempt_fence
        (attempt_id, event, outcome, lead_token, lead_status, lead_reserved, lead_holder)
      SELECT NEW.id, '${event}', NEW.outcome, m.claim_token, m.dial_status, m.isReserved, m.reserved_by
      FROM (SELECT 1 AS one) AS o LEFT JOIN hold_dialer_master_data m ON m.id = NEW.master_id`)
    await sql`CREATE TRIGGER chaos_attempt_written AFTER INSERT ON hold_dialer_call_attempts FOR EACH ROW
      ${record('insert')}`.execute(this.#k)
    await sql`CREATE TRIGGER chaos_attempt_completed AFTER UPDATE ON hold_dialer_call_attempts FOR EACH ROW
      ${record('complete')} WHERE OLD.outcome = ${DIALING} AND NEW.outcome <> ${DIALING}`.execute(this.#k)
  }

  /** The agents (ready, panel fresh) and `leads` Pending leads; returns the leads' `oli_id`s. */
  async seed(extensions: readonly string[], leads: number, now: Date): Promise<string[]> {
    await seedAgents(this.#k, extensions)
    const stamp = toDbTime(now)
    const rows = Array.from({ length: leads }, (_, i) =>
      seedRow(
        {
          oli_id: oliId(i),
          phone_number: leadNumber(i),
          client_name: `Chaos ${i}`,
          form_type: 'chaos',
          priority_id: 1,
        },
        stamp,
        false,
      ),
    )
    await insertChunked(this.#k, rows)
    return rows.map((r) => r.oli_id)
  }

  async maxAttemptId(): Promise<number> {
    const r = await this.#k
      .selectFrom('hold_dialer_call_attempts')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst()
    return Number(r?.id ?? 0)
  }

  /** Attempt rows written since `afterId`, oldest first. */
  async attemptsSince(afterId: number): Promise<{ id: number; dialerId: string }[]> {
    const rows = await this.#k
      .selectFrom('hold_dialer_call_attempts')
      .select(['id', 'dialer_id'])
      .where('id', '>', afterId)
      .orderBy('id')
      .execute()
    return rows.map((r) => ({ id: Number(r.id), dialerId: r.dialer_id }))
  }

  /** Each dialer's heartbeat: its pid and the last time it wrote one (UTC text). */
  async heartbeats(): Promise<{ dialerId: string; pid: number; seenAt: string }[]> {
    const rows = await this.#k
      .selectFrom('hold_dialer_heartbeat')
      .select(['dialer_id', 'pid', 'seen_at'])
      .execute()
    return rows.map((r) => ({ dialerId: r.dialer_id, pid: Number(r.pid), seenAt: r.seen_at }))
  }

  /** The claim each lead is held under now (by lead id): live (Calling and reserved) or not, and its token. */
  async claims(ids: number[]): Promise<Map<number, { live: boolean; token: string | null }>> {
    if (ids.length === 0) return new Map()
    const rows = await this.#k
      .selectFrom('hold_dialer_master_data')
      .select(['id', 'dial_status', 'isReserved', 'claim_token'])
      .where('id', 'in', ids)
      .execute()
    return new Map(
      rows.map((r) => [
        Number(r.id),
        { live: r.dial_status === 'Calling' && Number(r.isReserved) === 1, token: r.claim_token },
      ]),
    )
  }

  /**
   * KILL of every connection to the run's database but the checker's own (its pool has one), as a
   * database restart or a network cut looks to the dialers. Returns how many were killed.
   */
  async killDialerConnections(): Promise<number> {
    return this.#k.connection().execute(async (conn) => {
      const { rows } = await sql<{ ID: number }>`SELECT ID FROM information_schema.PROCESSLIST
        WHERE DB = ${this.db.target.database} AND ID <> CONNECTION_ID()`.execute(conn)
      let killed = 0
      for (const row of rows) {
        try {
          await sql.raw(`KILL CONNECTION ${Number(row.ID)}`).execute(conn)
          killed += 1
        } catch (error) {
          // Ended on its own between the list and the KILL: that is what the KILL was for.
          if ((error as { errno?: number }).errno !== 1094) throw error
        }
      }
      return killed
    })
  }

  /** Leads a dialer could claim now: not reserved, not ended, due. */
  async claimableLeads(now: Date): Promise<number> {
    const r = await this.#k
      .selectFrom('hold_dialer_master_data')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('isReserved', '=', 0)
      .where('dial_status', 'in', ['Pending', 'Not Connected', 'Abandoned', 'Callback'])
      .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', toDbTime(now))]))
      .executeTakeFirst()
    return Number(r?.n ?? 0)
  }

  /** Every agent paused: no new claim, calls in progress go on to their end. */
  async pauseAgents(): Promise<void> {
    await this.#k.updateTable('dialer_employee').set({ presence: 'paused' }).execute()
  }

  async reservedCount(): Promise<number> {
    const r = await this.#k
      .selectFrom('hold_dialer_master_data')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('isReserved', '=', 1)
      .executeTakeFirst()
    return Number(r?.n ?? 0)
  }

  async lost(pushed: readonly string[]): Promise<Found> {
    return found(await lostLeads(this.#k, pushed, 'CH-%'))
  }

  async leftReserved(): Promise<Found> {
    const rows = await this.#k
      .selectFrom('hold_dialer_master_data')
      .select(['id', 'oli_id', 'dial_status', 'reserved_by', 'reserved_at', 'claim_token'])
      .where('isReserved', '=', 1)
      .execute()
    return found(
      rows.map(
        (r) =>
          `${r.oli_id} (lead ${r.id}): ${r.dial_status}, reserved by ${r.reserved_by} at ${r.reserved_at}, token ${r.claim_token}`,
      ),
    )
  }

  async agentsLeftOnCall(): Promise<Found> {
    const rows = await this.#k
      .selectFrom('dialer_employee')
      .select(['extension', 'on_call_by', 'on_call_since'])
      .where('on_call_by', 'is not', null)
      .execute()
    return found(rows.map((r) => `agent ${r.extension}: held by ${r.on_call_by} since ${r.on_call_since}`))
  }

  /**
   * "No result lands on a newer claim", as each attempt row got its result (the fence triggers): a
   * row that counts (superseded 0) must have found its lead live, held by the dialer that wrote it,
   * under the claim token its call key carries. Superseded rows are counted, not failed; rows still
   * open (`Dialing`) are the attempt-row check's (`openAttempts`).
   */
  async fenceAtWrite(): Promise<Found & { superseded: number; unrecorded: number }> {
    const { rows } = await sql<{
      id: number
      oli_id: string
      linkedid: string | null
      dialer_id: string
      superseded: number
      outcome: string
      event: string | null
      written: string | null
      lead_token: string | null
      lead_status: string | null
      lead_reserved: number | null
      lead_holder: string | null
    }>`SELECT a.id, a.oli_id, a.linkedid, a.dialer_id, a.superseded, a.outcome, f.event, f.outcome AS written,
         f.lead_token, f.lead_status, f.lead_reserved, f.lead_holder
       FROM hold_dialer_call_attempts a LEFT JOIN chaos_attempt_fence f ON f.attempt_id = a.id
       ORDER BY a.id`.execute(this.#k)
    // The record of each row's result: its completion, else its insert when written whole.
    const results = new Map<number, (typeof rows)[number]>()
    for (const r of rows) {
      const seen = results.get(Number(r.id))
      if (r.event === 'complete' || (r.event === 'insert' && r.written !== DIALING && !seen?.event))
        results.set(Number(r.id), r)
      else if (!seen) results.set(Number(r.id), { ...r, event: null })
    }
    const wrong: string[] = []
    let superseded = 0
    let unrecorded = 0
    for (const r of results.values()) {
      if (Number(r.superseded) === 1) {
        superseded += 1
        continue
      }
      if (r.outcome === DIALING) continue
      if (r.event === null) {
        unrecorded += 1
        continue
      }
      const token = CALL_KEY.exec(r.linkedid ?? '')?.[2]
      const ok =
        token !== undefined &&
        r.lead_token === token &&
        r.lead_status === 'Calling' &&
        Number(r.lead_reserved) === 1 &&
        r.lead_holder === r.dialer_id
      if (!ok)
        wrong.push(
          `attempt ${r.id} of ${r.oli_id} (${r.linkedid}, by ${r.dialer_id}) got its result while the lead was ${r.lead_status}, reserved ${r.lead_reserved} by ${r.lead_holder}, token ${r.lead_token}`,
        )
    }
    return { ...found(wrong), superseded, unrecorded }
  }

  /** Attempt rows still open (`Dialing`: opened by a claim, never completed) once every dialer stopped. */
  async openAttempts(): Promise<Found> {
    const rows = await this.#k
      .selectFrom('hold_dialer_call_attempts')
      .select(['id', 'oli_id', 'linkedid', 'dialer_id', 'started_at'])
      .where('outcome', '=', DIALING)
      .execute()
    return found(
      rows.map(
        (r) => `attempt ${r.id} of ${r.oli_id} (${r.linkedid}, by ${r.dialer_id}) opened at ${r.started_at}`,
      ),
    )
  }

  /**
   * The same at the end, from the rows alone: a lead that is not reserved, whose claim token has an
   * attempt row, must have that claim's attempt as its latest counted one. A lead whose last claim
   * wrote no row (restored without a call, or its row missing: counted by the attempt-row check) is
   * left to the check at write.
   */
  async fenceAtEnd(): Promise<Found> {
    const leads = await this.#k
      .selectFrom('hold_dialer_master_data')
      .select(['id', 'oli_id', 'claim_token'])
      .where('isReserved', '=', 0)
      .where('claim_token', 'is not', null)
      .execute()
    const attempts = await this.#k
      .selectFrom('hold_dialer_call_attempts')
      .select(['id', 'master_id', 'linkedid', 'superseded'])
      .orderBy('id')
      .execute()
    const byLead = new Map<number, { tokens: Set<string>; lastCounted: string | undefined }>()
    for (const a of attempts) {
      const token = CALL_KEY.exec(a.linkedid ?? '')?.[2] ?? ''
      const lead = byLead.get(Number(a.master_id)) ?? { tokens: new Set<string>(), lastCounted: undefined }
      lead.tokens.add(token)
      if (Number(a.superseded) === 0) lead.lastCounted = token
      byLead.set(Number(a.master_id), lead)
    }
    const wrong: string[] = []
    for (const l of leads) {
      const a = byLead.get(Number(l.id))
      if (!a?.tokens.has(l.claim_token ?? '')) continue
      if (a.lastCounted !== l.claim_token)
        wrong.push(
          `${l.oli_id} (lead ${l.id}): claim ${l.claim_token}, but its latest counted attempt is of claim ${a.lastCounted ?? 'none'}`,
        )
    }
    return found(wrong)
  }

  /** Every attempt row's call key. */
  async attemptKeys(): Promise<Set<string>> {
    const rows = await this.#k.selectFrom('hold_dialer_call_attempts').select('linkedid').execute()
    return new Set(rows.flatMap((r) => (r.linkedid ? [r.linkedid] : [])))
  }

  /** Attempt rows: all, those kept as superseded, and those whose call's result was lost (`Unknown`). */
  async attemptCounts(): Promise<{ all: number; superseded: number; unknown: number }> {
    const r = await this.#k
      .selectFrom('hold_dialer_call_attempts')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('superseded').as('s'),
        eb.fn.sum<number>(eb.case().when('outcome', '=', 'Unknown').then(1).else(0).end()).as('u'),
      ])
      .executeTakeFirst()
    return { all: Number(r?.n ?? 0), superseded: Number(r?.s ?? 0), unknown: Number(r?.u ?? 0) }
  }
}

/** Whether `error` is the database being away (a KILL, a restart): the check is tried again. */
export function isDatabaseAway(error: unknown): boolean {
  return unavailableReason(error) !== undefined
}
