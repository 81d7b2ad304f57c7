import { archiveLead, type Database, type NewCallAttempt, withTransaction } from '@hold-dialer/db'
import {
  type CallingWindow,
  nextCallableMoment,
  type RetryPolicy,
  toDbTime,
  type WorkingHours,
  zonesOfColumn,
} from '@hold-dialer/rules'
import type { Kysely, Transaction } from 'kysely'
import { tokenOfKey } from './calls/call-key.js'
import type { CallResult, TrackedCall } from './calls/call-tracker.js'
import { settlePlan } from './settle-plan.js'
import { countAnswered } from './sql/abandon-stats.js'
import {
  attemptTimesSince,
  completeAttempt,
  DIALING,
  dropOpenAttempt,
  fillUnknownAttempt,
  UNKNOWN,
} from './sql/attempts.js'
import { type CurrentHolder, lockReservedLead } from './sql/lock-reserved-lead.js'
import { restoreLead } from './sql/restore-lead.js'
import { queueRnrMail } from './sql/rnr-outbox.js'
import { settleLead } from './sql/settle-lead.js'
import { releaseAgent } from './sql/take-agent.js'

export interface SettleContext {
  db: Kysely<Database>
  dialerId: string
  mode: 'pool' | 'pinned'
  dialMode: 'progressive' | 'predictive'
  policy: RetryPolicy
  abandonRetrySeconds: number
  /** AMD_RETRY_SECONDS (0 when unset by a caller that never sees a machine). */
  amdRetrySeconds?: number
  wrapSeconds: number
  rnrMailTo: string | undefined
  now: () => Date
  /** CALLING_HOURS (null: off), WORK_START/WORK_END and TIMEZONE: a retry is moved into both windows. */
  callingHours: CallingWindow | null
  hours: WorkingHours
}

export type SettleOutcome = 'settled' | 'restored' | 'superseded'

/** What a settle wrote; `current`: who holds a lead a superseded call found claimed again. */
export interface SettleReport {
  outcome: SettleOutcome
  current?: CurrentHolder
}

/** A predictive call's count for the abandon-rate window (hold_dialer_abandon_stats). */
export interface AnsweredCount {
  at: Date
  abandoned: boolean
  /** Hung up by AMD as a machine: counted apart (the governor counts a share of them). */
  machine?: boolean
}

/**
 * Writes a finished call in one transaction: the attempt row, the lead's new state (the retry
 * schedule, pool mode's archive at max_tries, pinned mode's RNR mail), the agent freed into wrap-up
 * and, for an answered predictive call, its count in the abandon-rate window (in the same
 * transaction, so a settle written again after a lost connection counts it once). A failed
 * originate restores the lead's previous status and counts nothing.
 *
 * Fenced by the call's claim (DECISIONS section 8): when the lead is no longer held under the
 * claim that placed the call, the lead is left as it is. If its release already counted the call as
 * `Unknown`, the row takes the real result and keeps its count; else (the lead changed by an
 * operator, or claimed again under another token) the call is kept as a superseded attempt
 * (`superseded` 1, `attempt_no` 0: a call the person received, counted by the per-number caps, not
 * by the lead).
 */
export async function settleCall(
  ctx: SettleContext,
  call: TrackedCall,
  result: CallResult,
  count?: AnsweredCount,
): Promise<SettleReport> {
  const now = ctx.now()
  return withTransaction(ctx.db, async (trx): Promise<SettleReport> => {
    const agentId = call.agent?.id
    const wrapUntil = new Date(now.getTime() + ctx.wrapSeconds * 1000)
    if (count) await countAnswered(trx, ctx.dialerId, count.at, count.abandoned, count.machine)
    const { lead, superseded } = await lockReservedLead(trx, call.leadId, ctx.dialerId, tokenOfKey(call.key))
    if (!lead) {
      const row = attemptRow(ctx, call, result, null)
      if (result.outcome === 'Failed') await dropOpenAttempt(trx, call.key)
      else if (!(await fillUnknownAttempt(trx, row))) await completeAttempt(trx, row)
      if (agentId !== undefined) await releaseAgent(trx, agentId, ctx.dialerId, null)
      return { outcome: 'superseded', current: superseded }
    }
    if (result.outcome === 'Failed') {
      await dropOpenAttempt(trx, call.key)
      await restoreLead(trx, lead.id, lead.previous_status)
      if (agentId !== undefined) await releaseAgent(trx, agentId, ctx.dialerId, null)
      return { outcome: 'restored' }
    }
    const startedAt = toDbTime(call.startedAt)
    const callCount = lead.call_count + 1
    await completeAttempt(trx, attemptRow(ctx, call, result, lead))
    const firstAttemptAt = lead.first_attempt_at ?? startedAt
    const attempts = await attemptTimesSince(trx, lead.id, firstAttemptAt)
    const plan = settlePlan({
      outcome: result.outcome,
      mode: ctx.mode,
      attempts,
      now,
      policy: ctx.policy,
      abandonRetrySeconds: ctx.abandonRetrySeconds,
      amdRetrySeconds: ctx.amdRetrySeconds ?? 0,
      isRnrSent: lead.isRnrSent === 1,
    })
    const nextRetryAt = retryInCallingHours(ctx, plan.next_retry_at, lead.customer_tz)
    await settleLead(trx, lead.id, {
      dialStatus: plan.dial_status,
      nextRetryAt,
      rnrMailQueued: plan.queueRnrMail,
      callCount,
      firstAttemptAt,
      lastAttemptAt: startedAt,
      lastDialResult: result.dialStatus ?? result.outcome,
      hangupBy: result.hangupBy,
      hangupCause:
        result.hangupCause === null ? null : `${result.hangupCause} ${result.hangupCauseTxt ?? ''}`.trim(),
    })
    if (plan.archive) await archiveLead(trx, lead.id, 'max_tries', toDbTime(now))
    if (plan.queueRnrMail) {
      await queueRnrMail(trx, {
        master_id: lead.id,
        oli_id: lead.oli_id,
        agent_id: lead.agent_id,
        to_address: ctx.rnrMailTo ?? call.agent?.email ?? null,
        subject: `RNR: lead ${lead.oli_id} not reachable`,
        body: [
          `Lead ${lead.oli_id} (${lead.client_name}, ${lead.phone_number}) was not reached.`,
          `Attempt ${callCount} at ${startedAt} UTC: ${result.dialStatus ?? result.outcome}${result.hangupCause === null ? '' : `, cause ${result.hangupCause}`}.`,
          `Next attempt: ${nextRetryAt ? `${toDbTime(nextRetryAt)} UTC` : 'none'}.`,
        ].join('\n'),
        created_at: toDbTime(now),
        attempts: 0,
        next_attempt_at: toDbTime(now),
        last_error: null,
        sent_at: null,
      })
    }
    // Wrap-up follows a conversation; after a call nobody answered the agent is free at once.
    const talked =
      call.mode === 'predictive'
        ? call.bridgedAt !== undefined
        : result.answeredAt !== null && result.outcome !== 'Machine'
    if (agentId !== undefined) await releaseAgent(trx, agentId, ctx.dialerId, talked ? wrapUntil : null)
    return { outcome: 'settled' }
  })
}

/**
 * A call whose result was lost (its dialer crashed, or was paused past the reservation timeout, and
 * the call had ended when the reservation was released: DECISIONS section 8). The claim had opened
 * its attempt row, so the call may have been placed and even answered: it is completed as `Unknown`
 * (`ended_at` when the loss was found) and counts as an attempt, and the lead is retried as a
 * Not Connected call would be (the retry schedule, MAX_TRIES; no RNR mail, which says the customer
 * was not reached). A customer who may have talked to an agent is then not dialed again at once as
 * if never called. Runs in the release's transaction, on the lead it locked.
 */
export async function settleUnknown(
  ctx: SettleContext,
  trx: Transaction<Database>,
  leadId: number,
  key: string,
): Promise<void> {
  const now = ctx.now()
  const lead = await trx
    .selectFrom('hold_dialer_master_data')
    .selectAll()
    .where('id', '=', leadId)
    .executeTakeFirstOrThrow()
  const open = await trx
    .updateTable('hold_dialer_call_attempts')
    .set({ outcome: UNKNOWN, ended_at: toDbTime(now) })
    .where('linkedid', '=', key)
    .where('outcome', '=', DIALING)
    .executeTakeFirst()
  if (Number(open.numUpdatedRows) === 0) return
  const startedAt =
    (
      await trx
        .selectFrom('hold_dialer_call_attempts')
        .select('started_at')
        .where('linkedid', '=', key)
        .executeTakeFirst()
    )?.started_at ?? toDbTime(now)
  const firstAttemptAt = lead.first_attempt_at ?? startedAt
  const plan = settlePlan({
    outcome: 'Not Connected',
    mode: ctx.mode,
    attempts: await attemptTimesSince(trx, leadId, firstAttemptAt),
    now,
    policy: ctx.policy,
    abandonRetrySeconds: ctx.abandonRetrySeconds,
    amdRetrySeconds: ctx.amdRetrySeconds ?? 0,
    isRnrSent: true,
  })
  await settleLead(trx, leadId, {
    dialStatus: plan.dial_status,
    nextRetryAt: retryInCallingHours(ctx, plan.next_retry_at, lead.customer_tz),
    rnrMailQueued: false,
    callCount: lead.call_count + 1,
    firstAttemptAt,
    lastAttemptAt: startedAt,
    lastDialResult: UNKNOWN,
    hangupBy: null,
    hangupCause: null,
  })
  if (plan.archive) await archiveLead(trx, leadId, 'max_tries', toDbTime(now))
}

/**
 * A finished call's attempt row. `lead`: the lead it settles, locked (the attempt counts: its
 * `attempt_no` is the lead's new call_count); null: a superseded call (kept, not counted).
 */
function attemptRow(
  ctx: SettleContext,
  call: TrackedCall,
  result: CallResult,
  lead: { call_count: number; phone_number: string; phone_e164: string | null } | null,
): NewCallAttempt {
  return {
    master_id: call.leadId,
    oli_id: call.oliId,
    attempt_no: lead ? lead.call_count + 1 : 0,
    superseded: lead ? 0 : 1,
    dialer_id: ctx.dialerId,
    dial_mode: ctx.dialMode,
    // The agent the customer was connected to: in predictive mode only once the agent's leg joined.
    agent_id:
      call.agent && (call.mode === 'predictive' ? call.bridgedAt : result.answeredAt) ? call.agent.id : null,
    agent_extension: call.agent?.extension ?? null,
    phone_number: lead?.phone_number ?? call.phone,
    phone_e164: lead ? lead.phone_e164 : call.phoneE164,
    action_id: call.actionId,
    uniqueid: result.customerUniqueid,
    linkedid: call.key,
    outcome: result.outcome,
    ami_dial_status: result.dialStatus,
    originate_reason: result.originateReason,
    hangup_cause: result.hangupCause,
    hangup_cause_txt: result.hangupCauseTxt,
    hangup_by: result.hangupBy,
    started_at: toDbTime(call.startedAt),
    answered_at: result.answeredAt && toDbTime(result.answeredAt),
    ended_at: toDbTime(result.endedAt),
    amd_status: call.amd?.status ?? null,
    amd_cause: call.amd ? call.amd.cause.slice(0, 64) : null,
    amd_ms: call.amd?.ms ?? null,
    talk_seconds: result.answeredAt
      ? Math.max(0, Math.round((result.endedAt.getTime() - result.answeredAt.getTime()) / 1000))
      : null,
  }
}

/**
 * The retry schedule's time moved to the first moment inside the customer's calling hours (every one
 * of the lead's zones; TIMEZONE for a lead without any) that is also inside the centre's working
 * hours, where a retry is claimed. Unmoved when no such moment exists (zones whose windows never
 * overlap: the claim never dials it then).
 */
function retryInCallingHours(ctx: SettleContext, at: Date | null, customerTz: string | null): Date | null {
  if (at === null || ctx.callingHours === null) return at
  const zones = customerTz === null ? [ctx.hours.zone] : zonesOfColumn(customerTz)
  return nextCallableMoment(at, zones, ctx.callingHours, ctx.hours) ?? at
}
