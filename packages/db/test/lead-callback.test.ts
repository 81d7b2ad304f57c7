import t from 'tap'
import { type NewMasterRow, scheduleLeadCallback, withTransaction } from '../src/index.js'
import { forEachDialect } from '../src/testing/index.js'

function lead(oli: string, fields: Partial<NewMasterRow> = {}): NewMasterRow {
  return {
    oli_id: oli,
    phone_number: '5551000001',
    phone_e164: '+15551000001',
    client_name: oli,
    form_type: 'hold',
    priority_id: 2,
    dial_status: 'Received',
    call_count: 2,
    isReserved: 0,
    isRnrSent: 0,
    status: 1,
    last_dial_result: 'Received',
    push_date: '2026-11-23 10:00:00.000',
    created_at: '2026-11-23 10:00:00.000',
    ...fields,
  }
}

const AT = new Date('2030-01-02T10:00:00.000Z')

forEachDialect(t, async (t, database) => {
  const db = database.handle.kysely
  const row = (oli: string) =>
    db.selectFrom('hold_dialer_master_data').selectAll().where('oli_id', '=', oli).executeTakeFirstOrThrow()

  t.test('scheduleLeadCallback: by oli_id or id, the pin kept, set or cleared', async (t) => {
    await db
      .insertInto('hold_dialer_master_data')
      .values([lead('CB-A', { agent_id: 7 }), lead('CB-B')])
      .execute()
    t.equal(await withTransaction(db, (trx) => scheduleLeadCallback(trx, { oliId: 'CB-A' }, AT)), 'scheduled')
    t.match(
      await row('CB-A'),
      {
        dial_status: 'Callback',
        callback_scheduled_at: '2030-01-02 10:00:00.000',
        call_count: 0,
        last_dial_result: null,
        priority_id: 2,
        agent_id: 7,
      },
      'Callback at the time, history cleared, priority and pin kept',
    )
    const id = Number((await row('CB-B')).id)
    t.equal(
      await withTransaction(db, (trx) => scheduleLeadCallback(trx, { id }, AT, { pin: { agentId: 9 } })),
      'scheduled',
    )
    t.match(await row('CB-B'), { dial_status: 'Callback', agent_id: 9 }, 'pinned to the agent given')
    await withTransaction(db, (trx) => scheduleLeadCallback(trx, { id }, AT, { pin: { agentId: null } }))
    t.match(await row('CB-B'), { agent_id: null }, 'or to the pool')
  })

  t.test('scheduleLeadCallback: a missing lead, a lead on a call, a check that refuses', async (t) => {
    await db
      .insertInto('hold_dialer_master_data')
      .values(lead('CB-LIVE', { dial_status: 'Calling', isReserved: 1, reserved_by: 'd1' }))
      .execute()
    t.equal(await withTransaction(db, (trx) => scheduleLeadCallback(trx, { oliId: 'NONE' }, AT)), 'not_found')
    t.equal(
      await withTransaction(db, (trx) => scheduleLeadCallback(trx, { oliId: 'CB-LIVE' }, AT)),
      'in_flight',
    )
    t.match(await row('CB-LIVE'), { dial_status: 'Calling', isReserved: 1 }, 'a live lead is not touched')
    await t.rejects(
      withTransaction(db, (trx) =>
        scheduleLeadCallback(trx, { oliId: 'CB-LIVE' }, AT, {
          check: (r) => {
            throw new Error(`refused ${r.oli_id}`)
          },
        }),
      ),
      /refused CB-LIVE/,
      'the check runs before the live test',
    )
  })
})
