import type { Database } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'

/** Leads due now, by their stored customer zone value (`null`: pushed before zones were stored). */
export type DueByZone = Array<{ zone: string | null; leads: number }>

/**
 * How many unreserved leads of the dialable priorities are due now (Pending, a retry whose time has
 * come, a callback whose time has come), by `customer_tz`: what "why is nothing dialed" reads when
 * agents are ready and the claim found nothing, to tell leads waiting for their customers' hours from
 * no lead at all. Each part is a range of a claim index; it runs only while the dialer is idle, and
 * at most every few seconds (idle/idle-report.ts). Leads pinned to another PBX's agents are not this
 * dialer's to dial and are not counted (`pbx`, PBX_NAME).
 */
export async function dueByZone(
  db: Kysely<Database>,
  now: Date,
  priorities: readonly number[],
  pbx: string,
): Promise<DueByZone> {
  if (priorities.length === 0) return []
  const at = toDbTime(now)
  const base = () =>
    db
      .selectFrom('hold_dialer_master_data')
      .select((eb) => ['customer_tz', eb.fn.countAll<number | string>().as('leads')])
      .where('isReserved', '=', 0)
      .where('priority_id', 'in', [...priorities])
      .where((eb) =>
        eb.or([
          eb('agent_id', 'is', null),
          eb('agent_id', 'in', eb.selectFrom('dialer_employee').select('id').where('pbx', '=', pbx)),
        ]),
      )
      .groupBy('customer_tz')
  const rows = await base()
    .where('dial_status', '=', 'Pending')
    .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', at)]))
    .unionAll(
      base()
        .where('dial_status', 'in', ['Not Connected', 'Abandoned'])
        .where((eb) => eb.or([eb('next_retry_at', 'is', null), eb('next_retry_at', '<=', at)])),
    )
    .unionAll(base().where('dial_status', '=', 'Callback').where('callback_scheduled_at', '<=', at))
    .execute()
  const byZone = new Map<string | null, number>()
  for (const r of rows) byZone.set(r.customer_tz, (byZone.get(r.customer_tz) ?? 0) + Number(r.leads))
  return [...byZone].map(([zone, leads]) => ({ zone, leads }))
}
