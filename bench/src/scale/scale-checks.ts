import type { Database } from '@hold-dialer/db'
import type { PbxSim } from '@hold-dialer/pbx-sim'
import type { Kysely } from 'kysely'

/**
 * Pushed `oli_id`s found neither on master nor in disposed (must be none). `like`: the pattern every
 * pushed `oli_id` matches, so rows of other origins are not read.
 */
export async function lostLeads(
  db: Kysely<Database>,
  pushed: readonly string[],
  like = 'S%',
): Promise<string[]> {
  const found = new Set<string>()
  for (const table of ['hold_dialer_master_data', 'hold_dialer_disposed'] as const) {
    const rows = await db.selectFrom(table).select('oli_id').where('oli_id', 'like', like).execute()
    for (const r of rows) found.add(r.oli_id)
  }
  return pushed.filter((oli) => !found.has(oli))
}

/** Calls that overlapped another call on the same agent's desk (must be none). */
export function agentOverlaps(sim: PbxSim): number {
  return agentOverlapPairs(sim).length
}

/**
 * Each call that began on an agent's desk before the desk's previous call ended, with that call
 * (simulator call ids). A progressive call holds the desk from its Originate (the desk rings
 * first); a predictive call only from its bridge, since the customer rings and waits on hold before
 * any agent is chosen.
 */
export function agentOverlapPairs(sim: PbxSim): { extension: string; calls: [number, number] }[] {
  const byAgent = new Map<string, Array<[number, number, number]>>()
  for (const c of sim.calls) {
    const start = c.mode === 'predictive' ? c.bridgedAt : c.startedAt
    if (!c.agentExtension || start === null) continue
    const list = byAgent.get(c.agentExtension) ?? []
    list.push([start, c.endedAt ?? Number.POSITIVE_INFINITY, c.id])
    byAgent.set(c.agentExtension, list)
  }
  const pairs: { extension: string; calls: [number, number] }[] = []
  for (const [extension, list] of byAgent) {
    list.sort((a, b) => a[0] - b[0])
    for (let i = 1; i < list.length; i++) {
      if (list[i]![0] < list[i - 1]![1]) pairs.push({ extension, calls: [list[i - 1]![2], list[i]![2]] })
    }
  }
  return pairs
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

/**
 * Calls a PBX placed for an agent of another PBX (must be none): `pbxOf` gives each agent's PBX
 * (its index in `sims`). Every sim has every desk, so such a call would be placed and show here.
 */
export function callsForAnotherPbx(sims: readonly PbxSim[], pbxOf: ReadonlyMap<string, number>): number {
  let wrong = 0
  sims.forEach((sim, k) => {
    for (const c of sim.calls) {
      if (c.agentExtension && c.bridgedAt !== null && pbxOf.get(c.agentExtension) !== k) wrong += 1
    }
  })
  return wrong
}

/**
 * Numbers two dialers had on a call at the same moment (by the attempts' real start and end times,
 * so across PBXs, whose simulators keep clocks of their own): each with the most at once.
 */
export async function numbersOnTwoDialersAtOnce(db: Kysely<Database>): Promise<number> {
  const rows = await db
    .selectFrom('hold_dialer_call_attempts as a')
    .innerJoin('hold_dialer_call_attempts as b', (join) =>
      join
        .onRef('a.phone_e164', '=', 'b.phone_e164')
        .onRef('a.id', '<', 'b.id')
        .onRef('a.dialer_id', '<>', 'b.dialer_id')
        .onRef('b.started_at', '<', 'a.ended_at')
        .onRef('a.started_at', '<', 'b.ended_at'),
    )
    .select('a.phone_e164')
    .distinct()
    .execute()
  return rows.length
}
