// CALLING_HOURS: the window, on the customer's own clock, in which a customer may be called (US
// TCPA 47 CFR 64.1200(c)(1) and TSR 16 CFR 310.4(c): 8 a.m. to 9 p.m. at the called party's
// location). A number that maps to several zones may be called only when every one of them is in
// its window (the intersection).
import { isWithinWorkingHours, nextWorkStart, type WorkingHours } from './working-hours.js'

/** CALLING_HOURS as a daily window, the same in every zone. */
export interface CallingWindow {
  start: string
  end: string
}

/** The zones a stored `customer_tz` names (space-separated); [] for NULL. */
export function zonesOfColumn(column: string | null): string[] {
  return column === null ? [] : column.split(' ').filter((zone) => zone !== '')
}

/** Whether `at` is inside the calling window in every one of `zones`. */
export function isCallable(at: Date, zones: readonly string[], window: CallingWindow): boolean {
  return zones.every((zone) => isWithinWorkingHours(at, { zone, ...window }))
}

/** Rounds of "move to the next window start" before giving up: enough for any real set of zones. */
const MAX_MOVES = 64

/**
 * The first moment at or after `at` that is inside the calling window of every zone and, with
 * `centre`, inside the centre's working hours too; null when there is none (zones whose windows never
 * overlap). Each step moves to the next window start of a zone that is out, so it only ever moves
 * forward; the windows repeat daily, so a week without a common moment means there is none.
 */
export function nextCallableMoment(
  at: Date,
  zones: readonly string[],
  window: CallingWindow,
  centre: WorkingHours | null,
): Date | null {
  let t = at
  const limit = at.getTime() + 8 * 24 * 3600_000
  for (let move = 0; move < MAX_MOVES && t.getTime() < limit; move++) {
    const out = zones.find((zone) => !isWithinWorkingHours(t, { zone, ...window }))
    if (out !== undefined) {
      t = nextWorkStart(t, { zone: out, ...window })
      continue
    }
    if (centre && !isWithinWorkingHours(t, centre)) {
      t = nextWorkStart(t, centre)
      continue
    }
    return t
  }
  return null
}
