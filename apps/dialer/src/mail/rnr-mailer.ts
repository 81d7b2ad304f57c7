import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'
import { createTransport, type Transporter } from 'nodemailer'
import type { Logger } from 'pino'
import { dueRnrMail, markRnrFailed, markRnrSent } from '../sql/rnr-outbox.js'

export interface RnrMailerDeps {
  db: Kysely<Database>
  smtp: { url?: string | undefined; from?: string | undefined; to?: string | undefined }
  logger: Logger
  now?: () => Date
  intervalMs?: number
}

/** Retry delays after a failed send: 1 min doubling to at most 1 h. */
export function nextMailDelayMs(attempts: number): number {
  return Math.min(60 * 60_000, 60_000 * 2 ** Math.max(0, attempts - 1))
}

/**
 * Sends pinned mode's queued RNR mails through SMTP (nodemailer), oldest first, with backoff on
 * failure. Without SMTP_URL it sends nothing and the mails stay queued (the detailed health shows it).
 */
export class RnrMailer {
  #timer: NodeJS.Timeout | undefined
  #transport: Transporter | undefined
  #running: Promise<void> | undefined

  constructor(private readonly d: RnrMailerDeps) {
    if (d.smtp.url) this.#transport = createTransport(d.smtp.url)
  }

  start(): void {
    if (!this.#transport) {
      this.d.logger.info('SMTP_URL not set: RNR mails stay queued')
      return
    }
    const loop = () => {
      this.#running = this.sendDue()
        .then(() => undefined)
        .catch((err: Error) => this.d.logger.warn({ err }, 'RNR mail pass failed'))
        .finally(() => {
          this.#timer = setTimeout(loop, this.d.intervalMs ?? 10_000)
        })
    }
    loop()
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer)
    await this.#running
    this.#transport?.close()
  }

  /** One pass: sends what is due; returns how many were sent. */
  async sendDue(): Promise<number> {
    if (!this.#transport) return 0
    const now = (this.d.now ?? (() => new Date()))()
    let sent = 0
    for (const mail of await dueRnrMail(this.d.db, now, 50)) {
      const to = mail.to_address ?? this.d.smtp.to
      if (!to) {
        await markRnrFailed(
          this.d.db,
          mail.id,
          mail.attempts + 1,
          new Date(now.getTime() + nextMailDelayMs(mail.attempts + 1)),
          'no recipient: set RNR_MAIL_TO or the agent email',
        )
        continue
      }
      try {
        await this.#transport.sendMail({
          from: this.d.smtp.from ?? 'dialer@localhost',
          to,
          subject: mail.subject,
          text: mail.body,
        })
        await markRnrSent(this.d.db, mail.id, now)
        sent += 1
      } catch (err) {
        const attempts = mail.attempts + 1
        await markRnrFailed(
          this.d.db,
          mail.id,
          attempts,
          new Date(now.getTime() + nextMailDelayMs(attempts)),
          (err as Error).message,
        )
        this.d.logger.warn({ mail: mail.id, attempts, err }, 'RNR mail not sent; will retry')
      }
    }
    return sent
  }
}
