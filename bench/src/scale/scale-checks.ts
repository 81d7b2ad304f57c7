import type { Database } from '@hold-dialer/db'
import type { PbxSim } from '@hold-dialer/pbx-sim'
import type { Kysely } from 'kysely'

/** Pushed `oli_id`s found neither on master nor in disposed (must be none). */
export async function lostLeads(db: Kysely<Database>, pushed: readonly string[]): Promise<string[]> {
  const found = new Set<string>()
  for (const table of ['hold_dialer_master_data', 'hold_dialer_disposed'] as const) {
    const rows = await db.selectFrom(table).select('oli_id').where('oli_id', 'like', 'S%').execute()
    for (const r of rows) found.add(r.oli_id)
  }
  return pushed.filter((oli) => !found.has(oli))
}

/** Calls that overlapped another call on the same agent's desk (must be none). */
export function agentOverlaps(sim: PbxSim): number {
  const byAgent = new Map<string, Array<[number, number]>>()
  for (const c of sim.calls) {
    if (!c.agentExtension) continue
    const list = byAgent.get(c.agentExtension) ?? []
    list.push([c.startedAt, c.endedAt ?? Number.POSITIVE_INFINITY])
    byAgent.set(c.agentExtension, list)
  }
  let overlaps = 0
  for (const list of byAgent.values()) {
    list.sort((a, b) => a[0] - b[0])
    for (let i = 1; i < list.length; i++) if (list[i]![0] < list[i - 1]![1]) overlaps++
  }
  return overlaps
}

/** Calls each dialer recorded (attempt rows), by its DIALER_ID. */
export async function attemptsByDialer(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('hold_dialer_call_attempts')
    .select((eb) => ['dialer_id', eb.fn.countAll<number>().as('n')])
    .groupBy('dialer_id')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.dialer_id, Number(r.n)]))
}
