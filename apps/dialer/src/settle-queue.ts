import type { Logger } from 'pino'
import type { CallResult, TrackedCall } from './calls/call-tracker.js'
import { type SettleContext, type SettleOutcome, settleCall } from './settle.js'

interface PendingSettle {
  call: TrackedCall
  result: CallResult
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
    private readonly onWritten: (outcome: SettleOutcome | 'error', result: CallResult) => void,
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

  write(call: TrackedCall, result: CallResult): void {
    const job = settleCall(this.ctx, call, result)
      .then((outcome) => {
        this.onWritten(outcome, result)
        if (outcome === 'not-ours') {
          this.logger.warn(
            { lead: call.leadId },
            'settle skipped: the reservation is no longer this dialer’s',
          )
        }
      })
      .catch((err: Error) => {
        this.onWritten('error', result)
        const level = this.unavailable(err) ? 'debug' : 'error'
        this.logger[level]({ lead: call.leadId, err }, 'settle failed; kept to write again')
        this.#pending.push({ call, result })
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
      this.write(p.call, p.result)
    }
    await this.settled()
  }
}
