import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/** `hold_dialer_rnr_outbox`: pinned mode's RNR mails, queued in the settle transaction. */
export interface RnrOutboxTable {
  id: Generated<number>
  master_id: number
  oli_id: string
  agent_id: number | null
  to_address: string | null
  subject: string
  body: string
  created_at: string
  attempts: number
  next_attempt_at: string
  last_error: string | null
  sent_at: string | null
}

export type RnrMail = Selectable<RnrOutboxTable>
export type NewRnrMail = Insertable<RnrOutboxTable>
export type RnrMailUpdate = Updateable<RnrOutboxTable>
