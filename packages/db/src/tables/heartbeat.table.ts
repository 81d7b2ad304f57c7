import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/** `hold_dialer_heartbeat`: one row per dialer daemon, refreshed every few seconds. */
export interface HeartbeatTable {
  dialer_id: string
  hostname: string
  pid: number
  dial_mode: string
  started_at: string
  seen_at: string
  /** `connected`, `connecting`, `down`. */
  ami_state: string
  active_calls: number
  /** JSON text with further figures (claims, settles, governor state). */
  details: string | null
  /** The PBX this dialer serves (`PBX_NAME`). */
  pbx: Generated<string>
}

export type Heartbeat = Selectable<HeartbeatTable>
export type NewHeartbeat = Insertable<HeartbeatTable>
export type HeartbeatUpdate = Updateable<HeartbeatTable>
