import type { Logger } from 'pino'
import { tokenOfKey } from './calls/call-key.js'
import type { CallResult, TrackedCall } from './calls/call-tracker.js'
import { type AnsweredCount, type SettleContext, type SettleOutcome, settleCall } from './settle.js'

interface PendingSettle {
  call: TrackedCall
  result: CallResult
  count: AnsweredCount | undefined
}

/**
 * Writes finished calls (settle.ts), and keeps each result that cannot be written (database down, a
 * lost connection) to write again until it lands: a finished call is never lost.
 */
export class SettleQueue {
  readonly #pending: PendingSettle[] = []
  readonly #writing = new Set<Promise<unknown>>()

  constructor(
    private readonly ctx: SettleContext,
    private readonly logger: Logger,
    /** True when the error means the database is unavailable (logged elsewhere, once a minute). */
    private readonly unavailable: (err: unknown) => boolean,
    private readonly onWritten: (
      outcome: SettleOutcome | 'error',
      result: CallResult,
      call: TrackedCall,
    ) => void,
    /** A kept result is being written again. */
    private readonly onRetry: () => void = () => {},
  ) {}

  /** Results kept to be written again. */
  get pendingCount(): number {
    return this.#pending.length
  }

  /** Leads whose result is being written or waits to be written again. */
  leadIds(): Set<number> {
    return new Set(this.#pending.map((p) => p.call.leadId))
  }

  get busy(): boolean {
    return this.#writing.size > 0
  }

  /** `count`: an answered predictive call's count for the abandon-rate window, written with it. */
  write(call: TrackedCall, result: CallResult, count?: AnsweredCount): void {
    const job = settleCall(this.ctx, call, result, count)
      .then(({ outcome, current }) => {
        this.onWritten(outcome, result, call)
        if (outcome === 'superseded') {
          this.logger.warn(
            {
              lead: call.leadId,
              key: call.key,
              token: tokenOfKey(call.key) ?? null,
              leadToken: current?.token ?? null,
              leadHolder: current?.holder ?? null,
              outcome: result.outcome,
            },
            'late result: the lead is no longer held under this call’s claim; the result kept on the call’s attempt row, the lead left as it is',
          )
        }
      })
      .catch((err: Error) => {
        this.onWritten('error', result, call)
        const level = this.unavailable(err) ? 'debug' : 'error'
        this.logger[level]({ lead: call.leadId, err }, 'settle failed; kept to write again')
        this.#pending.push({ call, result, count })
      })
      .finally(() => this.#writing.delete(job))
    this.#writing.add(job)
  }

  /** Waits for the writes under way. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#writing])
  }

  /** Writes the kept results again, and waits for every write under way. */
  async retry(): Promise<void> {
    for (const p of this.#pending.splice(0)) {
      this.onRetry()
      this.write(p.call, p.result, p.count)
    }
    await this.settled()
  }
}
