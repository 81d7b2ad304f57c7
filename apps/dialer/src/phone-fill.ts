import { type Database, fillPhoneIdentities, type PhoneReading } from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'

/** Rows of each table one pass reads and writes in one transaction. */
const FILL_BATCH = 500

/** How long one tick keeps filling before it gives the loop back (the rest goes on next tick). */
const FILL_BUDGET_MS = 500

/**
 * The dialer's share of working out international forms the push did not (`phone_e164` NULL: rows
 * stored before the column existed, or written by an API of an earlier version while the two are
 * upgraded one after the other). The claim does not dial such a lead (the do-not-call list and the
 * caps cannot see it), so it is filled here within a tick or two; `pnpm phones backfill` does a
 * whole table at once, with progress, before the dialer starts. A tick with nothing to fill is
 * three index look-ups.
 */
export class PhoneFill {
  #total = { leads: 0, dnc: 0, attempts: 0 }

  constructor(
    private readonly db: Kysely<Database>,
    private readonly reading: PhoneReading,
    private readonly logger: Pick<Logger, 'info'>,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Fills batches until none is full or the tick's budget is spent; logs what it filled. */
  async tick(): Promise<void> {
    const started = this.clock()
    let more = true
    const filled = { leads: 0, dnc: 0, attempts: 0 }
    while (more && this.clock() - started < FILL_BUDGET_MS) {
      const pass = await fillPhoneIdentities(this.db, this.reading, FILL_BATCH)
      filled.leads += pass.leads
      filled.dnc += pass.dnc
      filled.attempts += pass.attempts
      more = Math.max(pass.leads, pass.dnc, pass.attempts) === FILL_BATCH
    }
    if (filled.leads + filled.dnc + filled.attempts === 0) return
    this.#total.leads += filled.leads
    this.#total.dnc += filled.dnc
    this.#total.attempts += filled.attempts
    this.logger.info(
      { filled, total: { ...this.#total }, more },
      more
        ? 'international forms worked out for stored numbers; more to do (pnpm phones backfill does it faster)'
        : 'international forms worked out for stored numbers',
    )
  }
}
