import type { Generated, Selectable } from 'kysely'

/** `hold_dialer_abandon_stats`: predictive calls answered and abandoned, per dialer per hour (UTC). */
export interface AbandonStatsTable {
  bucket_start: string
  dialer_id: string
  answered: number
  abandoned: number
  /** Answered calls AMD hung up as machines (not in `answered`): the governor counts a share of them. */
  machines: Generated<number>
}

export type AbandonStats = Selectable<AbandonStatsTable>
