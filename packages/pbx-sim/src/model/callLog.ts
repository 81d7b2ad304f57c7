import type { CallMode, CallOutcome, CallRecord, HangupParty } from '../types.js'
import type { CustomerPlan } from './customerPlan.js'

/** Live bookkeeping for one CallRecord: how many of its channels are still up. */
export class CallState {
  live = 0
  finished = false
  plan: CustomerPlan | null = null
  constructor(readonly record: CallRecord) {}
}

export interface CallStart {
  actionId: string | null
  mode: CallMode
  number: string | null
  agentExtension: string | null
  originateChannel: string
  context: string | null
  exten: string | null
  application: string | null
  data: string | null
  variables: Record<string, string>
  startedAt: number
}

export type CallListener = (record: CallRecord) => void

/** Every Originate, in order, plus the per-number concurrency counters tests use. */
export class CallLog {
  readonly records: CallRecord[] = []
  private readonly active = new Map<string, number>()
  private readonly maxActive = new Map<string, number>()

  constructor(
    private readonly onStart: CallListener = () => {},
    private readonly onEnd: CallListener = () => {},
  ) {}

  start(init: CallStart): CallState {
    const record: CallRecord = {
      id: this.records.length + 1,
      ...init,
      channels: [],
      answeredAt: null,
      bridgedAt: null,
      endedAt: null,
      outcome: 'pending',
      hangupBy: null,
      hangupCause: null,
      dialStatus: null,
    }
    this.records.push(record)
    if (record.number !== null) {
      const now = (this.active.get(record.number) ?? 0) + 1
      this.active.set(record.number, now)
      this.maxActive.set(record.number, Math.max(now, this.maxActive.get(record.number) ?? 0))
    }
    this.onStart(record)
    return new CallState(record)
  }

  attach(call: CallState, channelName: string): void {
    call.live += 1
    call.record.channels.push(channelName)
  }

  /**
   * A channel of the call hung up. The hangup that ended the conversation (one made from inside a
   * bridge, or the last channel going) names who ended the call.
   */
  detach(call: CallState, at: number, cause: number, by: HangupParty, fromBridge: boolean): void {
    call.live -= 1
    if (call.record.hangupBy === null && (fromBridge || call.live <= 0)) {
      call.record.hangupBy = by
      call.record.hangupCause = cause
    }
    if (call.live <= 0) this.finish(call, at)
  }

  setOutcome(call: CallState, outcome: CallOutcome): void {
    if (call.record.outcome === 'pending') call.record.outcome = outcome
  }

  finish(call: CallState, at: number): void {
    if (call.finished) return
    call.finished = true
    const record = call.record
    record.endedAt = at
    if (record.outcome === 'pending') {
      record.outcome =
        record.bridgedAt !== null ? 'answered' : record.answeredAt !== null ? 'abandoned' : 'cancelled'
    }
    if (record.number !== null) this.active.set(record.number, (this.active.get(record.number) ?? 1) - 1)
    this.onEnd(record)
  }

  activeCallsTo(number: string): number {
    return this.active.get(number) ?? 0
  }

  maxConcurrentCallsTo(number: string): number {
    return this.maxActive.get(number) ?? 0
  }
}
