import { type DialStatus, nextAttempt, type RetryPolicy, retryDelayForAbandon } from '@hold-dialer/rules'
import type { CallOutcome } from './calls/outcomes.js'

export interface SettleInput {
  outcome: Exclude<CallOutcome, 'Failed'>
  mode: 'pool' | 'pinned'
  /** Start times of every attempt since the lead's first, ascending, including this one. */
  attempts: Date[]
  now: Date
  policy: RetryPolicy
  abandonRetrySeconds: number
  /** AMD_RETRY_SECONDS: the retry delay after a call an answering machine took. */
  amdRetrySeconds: number
  isRnrSent: boolean
}

export interface SettlePlan {
  dial_status: DialStatus
  next_retry_at: Date | null
  /** Pool mode's end of the lead: copy to hold_dialer_disposed (`max_tries`) and delete from master. */
  archive: boolean
  /** Pinned mode's first Not Connected: queue the RNR mail and set isRnrSent. */
  queueRnrMail: boolean
}

/**
 * What a placed call turns the lead into (the spec's state table, both modes). Pure: the caller
 * reads the attempts and writes the result in one transaction.
 *
 * Abandoned counts as an attempt like any other, so MAX_TRIES also ends a lead that keeps being
 * abandoned; otherwise a lead could be redialed every ABANDON_RETRY_SECONDS forever.
 */
export function settlePlan(input: SettleInput): SettlePlan {
  const none = { next_retry_at: null, archive: false, queueRnrMail: false }
  if (input.outcome === 'Received') return { dial_status: 'Received', ...none }
  if (input.outcome === 'Rejected') return { dial_status: 'Rejected', ...none }

  const next = nextAttempt({ attempts: input.attempts, now: input.now }, input.policy)
  if (next.kind === 'exhausted') {
    return input.mode === 'pool'
      ? { dial_status: 'Archived', next_retry_at: null, archive: true, queueRnrMail: false }
      : { dial_status: 'Disposed', next_retry_at: null, archive: false, queueRnrMail: false }
  }
  if (input.outcome === 'Machine') {
    // An answering machine (AMD): the customer was not reached. The lead is Not Connected, counted as
    // an attempt (MAX_TRIES), and tried again AMD_RETRY_SECONDS later, in both callback modes; pinned
    // mode's first one sends the RNR mail as any Not Connected call.
    return {
      dial_status: 'Not Connected',
      next_retry_at: retryDelayForAbandon(input.now, input.amdRetrySeconds),
      archive: false,
      queueRnrMail: input.mode === 'pinned' && !input.isRnrSent,
    }
  }
  if (input.outcome === 'Abandoned' && input.mode === 'pool') {
    // Pool mode: the spec's fixed abandoned retry. Pinned mode uses the Not Connected scheduler.
    return {
      dial_status: 'Abandoned',
      next_retry_at: retryDelayForAbandon(input.now, input.abandonRetrySeconds),
      archive: false,
      queueRnrMail: false,
    }
  }
  return {
    dial_status: input.outcome,
    next_retry_at: next.at,
    archive: false,
    queueRnrMail: input.mode === 'pinned' && input.outcome === 'Not Connected' && !input.isRnrSent,
  }
}
