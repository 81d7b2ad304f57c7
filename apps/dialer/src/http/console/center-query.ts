import type { Database } from '@hold-dialer/db'
import { fromDbTime, toDbTime } from '@hold-dialer/rules'
import { type Kysely, sql } from 'kysely'
import { DateTime } from 'luxon'

// The database half of the supervisor console: what every dialer and the API have written, read the
// same way on SQLite and MySQL. The live half (calls in flight, agents' desks) is the dialer's own.

/** Width of the abandon chart's buckets: the first 15 characters of a stored time, `YYYY-MM-DD HH:M`. */
export const ABANDON_BUCKET_MINUTES = 10

/** A dialer not seen for longer is shown as gone (as the API's detailed health says `alive: false`). */
export const HEARTBEAT_STALE_SECONDS = 30

/** Where a lead waits in the claim order (see claim/candidates.ts). */
export type QueueKind = 'callback_due' | 'retry_due' | 'fresh' | 'waiting' | 'in_call'

export interface CenterSnapshot {
  /** When it was read (ISO). */
  at: string
  timezone: string
  today: {
    /** The centre's calendar date, and the instant it began (ISO). */
    date: string
    since: string
    outcomes: { outcome: string; calls: number; answered: number; talkSeconds: number }[]
  }
  queue: {
    priorities: { id: number; name: string; dialable: boolean }[]
    /** Leads per priority and kind; kinds with none are left out. */
    counts: { priorityId: number; kind: QueueKind; leads: number }[]
  }
  agents: {
    id: number
    name: string
    extension: string | null
    presence: string
    active: boolean
    panelSeenAt: string | null
    wrapUntil: string | null
    onCallBy: string | null
    onCallSince: string | null
    pbx: string
  }[]
  dialers: {
    dialerId: string
    hostname: string
    pid: number
    dialMode: string
    /** The PBX it serves (PBX_NAME). */
    pbx: string
    startedAt: string
    seenAt: string
    ageSeconds: number
    /** Seen within HEARTBEAT_STALE_SECONDS (the API's detailed health uses the same rule). */
    alive: boolean
    amiState: string
    activeCalls: number
    details: Record<string, unknown> | null
  }[]
  /** The leads on a call now (reserved), by id: what the live calls are about. */
  leads: { id: number; oliId: string; priorityId: number; callCount: number }[]
  abandon: {
    bucketMinutes: number
    hours: number
    /** Predictive and progressive attempts that ended in each bucket (ISO start), oldest first. */
    buckets: { start: string; answered: number; abandoned: number }[]
  }
}

export interface CenterQueryOptions {
  timezone: string
  /** Hours of abandon-rate history in the chart. */
  hours: number
  /** Only the agents of this PBX (the dialer's PBX_NAME): the others are dialed by other dialers. */
  pbx?: string
}

const iso = (stored: string | Date | null): string | null =>
  stored === null ? null : fromDbTime(stored).toISOString()

/** Reads the centre's state from the database (a handful of grouped SELECTs, each served by an index). */
export async function readCenter(
  db: Kysely<Database>,
  now: Date,
  options: CenterQueryOptions,
): Promise<CenterSnapshot> {
  const dayStart = DateTime.fromJSDate(now, { zone: options.timezone }).startOf('day')
  const since = dayStart.toJSDate()
  const [outcomes, priorities, queue, agents, dialers, abandon, leads] = await Promise.all([
    todaysOutcomes(db, since),
    db.selectFrom('hold_dialer_priority').select(['id', 'name', 'is_dialable']).orderBy('id').execute(),
    queueCounts(db, now),
    (options.pbx === undefined
      ? db.selectFrom('dialer_employee')
      : db.selectFrom('dialer_employee').where('pbx', '=', options.pbx)
    )
      .select([
        'id',
        'name',
        'extension',
        'presence',
        'is_active',
        'panel_seen_at',
        'wrap_until',
        'on_call_by',
        'on_call_since',
        'pbx',
      ])
      .orderBy('name')
      .orderBy('id')
      .execute(),
    db.selectFrom('hold_dialer_heartbeat').selectAll().orderBy('dialer_id').execute(),
    abandonBuckets(db, now, options.hours),
    db
      .selectFrom('hold_dialer_master_data')
      .select(['id', 'oli_id', 'priority_id', 'call_count'])
      .where('isReserved', '=', 1)
      .orderBy('id')
      .limit(1000)
      .execute(),
  ])
  return {
    at: now.toISOString(),
    timezone: options.timezone,
    today: { date: dayStart.toISODate() ?? '', since: since.toISOString(), outcomes },
    queue: {
      priorities: priorities.map((p) => ({ id: p.id, name: p.name, dialable: Number(p.is_dialable) === 1 })),
      counts: queue,
    },
    agents: agents.map((a) => ({
      id: Number(a.id),
      name: a.name,
      extension: a.extension,
      presence: a.presence,
      active: Number(a.is_active) === 1,
      panelSeenAt: iso(a.panel_seen_at),
      wrapUntil: iso(a.wrap_until),
      onCallBy: a.on_call_by,
      onCallSince: iso(a.on_call_since),
      pbx: a.pbx,
    })),
    dialers: dialers.map((d) => {
      const seen = fromDbTime(d.seen_at)
      return {
        dialerId: d.dialer_id,
        hostname: d.hostname,
        pid: Number(d.pid),
        dialMode: d.dial_mode,
        pbx: d.pbx,
        startedAt: fromDbTime(d.started_at).toISOString(),
        seenAt: seen.toISOString(),
        ageSeconds: Math.max(0, Math.round((now.getTime() - seen.getTime()) / 1000)),
        alive: now.getTime() - seen.getTime() <= HEARTBEAT_STALE_SECONDS * 1000,
        amiState: d.ami_state,
        activeCalls: Number(d.active_calls),
        details: parseDetails(d.details),
      }
    }),
    leads: leads.map((l) => ({
      id: Number(l.id),
      oliId: l.oli_id,
      priorityId: Number(l.priority_id),
      callCount: Number(l.call_count),
    })),
    abandon: { bucketMinutes: ABANDON_BUCKET_MINUTES, hours: options.hours, buckets: abandon },
  }
}

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

async function todaysOutcomes(
  db: Kysely<Database>,
  since: Date,
): Promise<CenterSnapshot['today']['outcomes']> {
  const rows = await db
    .selectFrom('hold_dialer_call_attempts')
    .select((eb) => [
      'outcome',
      eb.fn.countAll<number>().as('calls'),
      eb.fn.count<number>('answered_at').as('answered'),
      eb.fn.sum<number>('talk_seconds').as('talk'),
    ])
    .where('ended_at', '>=', toDbTime(since))
    .groupBy('outcome')
    .execute()
  return rows
    .map((r) => ({
      outcome: r.outcome,
      calls: Number(r.calls),
      answered: Number(r.answered),
      talkSeconds: Number(r.talk ?? 0),
    }))
    .sort((a, b) => b.calls - a.calls || a.outcome.localeCompare(b.outcome))
}

/**
 * The leads a claim could take, by priority and by the part of the claim order they are in: callbacks
 * whose time has come, retries (Not Connected, Abandoned) whose time has come, fresh Pending leads, and
 * those of the three whose time has not come yet; reserved ones are on a call now.
 *
 * Both statements read a range of an index led by (isReserved, dial_status) (the claim's, and
 * ix_master_reserved), so they read the leads they count and none of the settled ones, however many
 * the table keeps: on SQLite the query runs on the event loop. (Grouped over the whole table it read
 * every settled lead too, at every refresh.) Timings in docs/decisions.md.
 */
async function queueCounts(db: Kysely<Database>, now: Date): Promise<CenterSnapshot['queue']['counts']> {
  const at = toDbTime(now)
  const due = sql<number>`CASE WHEN (dial_status = 'Callback' AND callback_scheduled_at <= ${at}) OR (dial_status <> 'Callback' AND (next_retry_at IS NULL OR next_retry_at <= ${at})) THEN 1 ELSE 0 END`
  const [waiting, reserved] = await Promise.all([
    db
      .selectFrom('hold_dialer_master_data')
      .select((eb) => ['priority_id', 'dial_status', due.as('due'), eb.fn.countAll<number>().as('leads')])
      .where('isReserved', '=', 0)
      .where('dial_status', 'in', ['Callback', 'Not Connected', 'Abandoned', 'Pending'])
      .groupBy(['priority_id', 'dial_status', sql`3`])
      .execute(),
    db
      .selectFrom('hold_dialer_master_data')
      .select((eb) => ['priority_id', eb.fn.countAll<number>().as('leads')])
      .where('isReserved', '=', 1)
      .groupBy('priority_id')
      .execute(),
  ])
  const counts = new Map<string, { priorityId: number; kind: QueueKind; leads: number }>()
  const add = (priorityId: number, kind: QueueKind, leads: number) => {
    const key = `${priorityId}/${kind}`
    const entry = counts.get(key) ?? { priorityId, kind, leads: 0 }
    entry.leads += leads
    counts.set(key, entry)
  }
  for (const r of waiting)
    add(Number(r.priority_id), queueKind(r.dial_status, Number(r.due) === 1), Number(r.leads))
  for (const r of reserved) add(Number(r.priority_id), 'in_call', Number(r.leads))
  return [...counts.values()].sort((a, b) => a.priorityId - b.priorityId || a.kind.localeCompare(b.kind))
}

function queueKind(status: string, due: boolean): QueueKind {
  if (!due) return 'waiting'
  if (status === 'Callback') return 'callback_due'
  if (status === 'Pending') return 'fresh'
  return 'retry_due'
}

/**
 * Answered and abandoned attempts per bucket over the last `hours`, every bucket present (zeros where
 * nothing ended). The bucket is the stored text cut after the tens of minutes, the same on both engines.
 */
async function abandonBuckets(
  db: Kysely<Database>,
  now: Date,
  hours: number,
): Promise<CenterSnapshot['abandon']['buckets']> {
  const step = ABANDON_BUCKET_MINUTES * 60_000
  const last = Math.floor(now.getTime() / step) * step
  const first = last - (Math.round((hours * 60) / ABANDON_BUCKET_MINUTES) - 1) * step
  const bucket = sql<string>`SUBSTR(ended_at, 1, 15)`
  const rows = await db
    .selectFrom('hold_dialer_call_attempts')
    .select((eb) => [
      bucket.as('bucket'),
      eb.fn.count<number>('answered_at').as('answered'),
      eb.fn.sum<number>(sql`CASE WHEN outcome = 'Abandoned' THEN 1 ELSE 0 END`).as('abandoned'),
    ])
    .where('ended_at', '>=', toDbTime(new Date(first)))
    .groupBy(sql`1`)
    .execute()
  const found = new Map(rows.map((r) => [String(r.bucket), r]))
  const buckets: CenterSnapshot['abandon']['buckets'] = []
  for (let start = first; start <= last; start += step) {
    const row = found.get(toDbTime(new Date(start)).slice(0, 15))
    buckets.push({
      start: new Date(start).toISOString(),
      answered: Number(row?.answered ?? 0),
      abandoned: Number(row?.abandoned ?? 0),
    })
  }
  return buckets
}
