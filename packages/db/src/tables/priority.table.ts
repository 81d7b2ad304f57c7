import type { Insertable, Selectable, Updateable } from 'kysely'

/** `hold_dialer_priority`: the spec's priorities plus the flags the engine reads. */
export interface PriorityTable {
  id: number
  name: string
  /** 0/1: an inactive priority is rejected on push. */
  is_active: number
  /** 0/1: a callback time is accepted only on these (pool mode). */
  is_callback: number
  /** 0/1: priority 3 (Final Disposal) is never dialed. */
  is_dialable: number
}

export type Priority = Selectable<PriorityTable>
export type NewPriority = Insertable<PriorityTable>
export type PriorityUpdate = Updateable<PriorityTable>
