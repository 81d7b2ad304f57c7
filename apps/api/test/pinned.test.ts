import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

interface Detail {
  field: string
  message: string
}

async function countRows(fx: ApiFixture, oliId: string): Promise<number> {
  const rows = await fx.database.handle.kysely
    .selectFrom('hold_dialer_master_data')
    .select('id')
    .where('oli_id', '=', oliId)
    .execute()
  return rows.length
}

// The spec's "Push rules (Mode B only)" table, one test per row, with CALLBACK_MODE=pinned.
forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: 'pinned' } })
  const db = database.handle.kysely

  const addEmployee = async (name: string, extension: string | null) => {
    await db.insertInto('dialer_employee').values({ name, extension, email: null }).execute()
    const row = await db
      .selectFrom('dialer_employee')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
    return Number(row.id)
  }
  const agent = await addEmployee('Agent With Desk', '1001')
  const noExtension = await addEmployee('Agent Without Desk', null)
  const blankExtension = await addEmployee('Agent With Blank Desk', '')
  const spacesExtension = await addEmployee('Agent With Spaces For A Desk', ' \t ')
  const inactive = await addEmployee('Agent Who Left', '1009')
  await db.updateTable('dialer_employee').set({ is_active: 0 }).where('id', '=', inactive).execute()
  const unknownAgent = agent + noExtension + blankExtension + spacesExtension + inactive + 1000

  t.test('callback time with agent_id on priority 1, 2 and 3: stored as Callback, pinned', async (t) => {
    for (const priority of [1, 2, 3]) {
      const oliId = `PIN-CB-${priority}`
      const res = await fx.push(
        lead({
          oli_id: oliId,
          priority_id: priority,
          agent_id: agent,
          callback_scheduled_at: '2026-11-24 10:15:00',
        }),
      )
      t.equal(res.statusCode, 201, `priority ${priority}`)
      t.strictSame(res.json(), {
        ok: true,
        leads: [{ oli_id: oliId, status: 'inserted', callback_scheduled_at: '2026-11-24 10:15:00' }],
      })
      t.match(await masterRow(fx, oliId), {
        priority_id: priority,
        agent_id: agent,
        dial_status: 'Callback',
        callback_scheduled_at: '2026-11-24 04:45:00.000',
        next_retry_at: null,
        call_count: 0,
        isReserved: 0,
      })
    }
  })

  t.test('callback time without agent_id: 400 that agent_id is required, nothing written', async (t) => {
    for (const [priority, agentId] of [
      [1, undefined],
      [2, undefined],
      [3, null],
    ] as const) {
      const oliId = `PIN-NOAGENT-${priority}`
      const body = lead({
        oli_id: oliId,
        priority_id: priority,
        callback_scheduled_at: '2026-11-24 10:15:00',
      })
      if (agentId === null) body.agent_id = null
      const res = await fx.push(body)
      t.equal(res.statusCode, 400, `priority ${priority}, agent_id ${agentId}`)
      t.equal(res.json().error, 'validation_failed')
      t.ok(
        res
          .json()
          .details.some((d: Detail) => d.field === 'agent_id' && /agent_id is required/.test(d.message)),
        'agent_id is required',
      )
      t.equal(await countRows(fx, oliId), 0)
    }
    // In a batch the field path names the lead.
    const res = await fx.push({
      leads: [
        lead({ agent_id: agent }),
        lead({ priority_id: 2, callback_scheduled_at: '2026-11-24 10:15:00' }),
      ],
    })
    t.equal(res.statusCode, 400)
    t.ok(
      res
        .json()
        .details.some(
          (d: Detail) => d.field === 'leads[1].agent_id' && /agent_id is required/.test(d.message),
        ),
    )
  })

  t.test('agent_id without callback time: Pending, pinned, any priority (8 too)', async (t) => {
    for (const priority of [1, 2, 3, 8]) {
      const oliId = `PIN-PENDING-${priority}`
      const res = await fx.push(lead({ oli_id: oliId, priority_id: priority, agent_id: agent }))
      t.equal(res.statusCode, 201, `priority ${priority}`)
      t.strictSame(res.json().leads, [{ oli_id: oliId, status: 'inserted', callback_scheduled_at: null }])
      t.match(await masterRow(fx, oliId), {
        priority_id: priority,
        agent_id: agent,
        dial_status: 'Pending',
        callback_scheduled_at: null,
      })
    }
  })

  t.test(
    'unknown agent_id, an inactive employee, or one without an extension: 400 on agent_id',
    async (t) => {
      for (const [name, agentId] of [
        ['unknown', unknownAgent],
        ['no extension', noExtension],
        ['empty extension', blankExtension],
        ['white-space extension', spacesExtension],
        ['inactive employee', inactive],
      ] as const) {
        for (const withTime of [false, true]) {
          const oliId = `PIN-BADAGENT-${agentId}-${withTime}`
          const res = await fx.push(
            lead({
              oli_id: oliId,
              priority_id: 1,
              agent_id: agentId,
              ...(withTime ? { callback_scheduled_at: '2026-11-24 10:15:00' } : {}),
            }),
          )
          t.equal(res.statusCode, 400, `${name}, with time ${withTime}`)
          t.equal(res.json().error, 'validation_failed')
          t.ok(
            res
              .json()
              .details.some(
                (d: Detail) =>
                  d.field === 'agent_id' &&
                  d.message === 'unknown agent_id, or the employee is inactive or has no extension',
              ),
            `${name}: reported on agent_id as an unknown one`,
          )
          t.equal(await countRows(fx, oliId), 0, 'nothing written')
        }
      }
    },
  )

  t.test('an unknown agent_id does not let an existing row change', async (t) => {
    await fx.push(lead({ oli_id: 'PIN-KEEP', agent_id: agent }))
    const before = await masterRow(fx, 'PIN-KEEP')
    const res = await fx.push(lead({ oli_id: 'PIN-KEEP', agent_id: unknownAgent }))
    t.equal(res.statusCode, 400)
    t.strictSame(await masterRow(fx, 'PIN-KEEP'), before)
  })

  t.test('callback time on any other priority (8): 400, even with agent_id', async (t) => {
    const res = await fx.push(
      lead({
        oli_id: 'PIN-P8-CB',
        priority_id: 8,
        agent_id: agent,
        callback_scheduled_at: '2026-11-24 10:15:00',
      }),
    )
    t.equal(res.statusCode, 400)
    t.equal(res.json().error, 'validation_failed')
    t.ok(
      res
        .json()
        .details.some(
          (d: Detail) =>
            d.field === 'callback_scheduled_at' &&
            d.message === 'callback_scheduled_at only allowed for callback priorities',
        ),
    )
    t.equal(await countRows(fx, 'PIN-P8-CB'), 0)
  })

  t.test('send-callback-request keeps the pin', async (t) => {
    await fx.push(lead({ oli_id: 'PIN-CR', priority_id: 1, agent_id: agent }))
    const res = await fx.call({
      method: 'POST',
      url: '/api/send-callback-request',
      payload: { oliId: 'PIN-CR', scheduledAt: '2026-11-24 12:00:00' },
    })
    t.equal(res.statusCode, 200)
    t.match(await masterRow(fx, 'PIN-CR'), {
      agent_id: agent,
      priority_id: 1,
      dial_status: 'Callback',
      callback_scheduled_at: '2026-11-24 06:30:00.000',
    })
  })

  t.test('ticket Callback Schedule keeps the pin; Close archives it with the pin', async (t) => {
    await fx.push(lead({ oli_id: 'PIN-TICKET', priority_id: 8, agent_id: agent }))
    const res = await fx.call({
      method: 'PUT',
      url: '/api/escalated-tickets',
      payload: { oliId: 'PIN-TICKET', status: 'Callback Schedule', scheduledAt: '2026-11-24 12:00:00' },
    })
    t.equal(res.statusCode, 200)
    t.match(await masterRow(fx, 'PIN-TICKET'), {
      agent_id: agent,
      priority_id: 8,
      dial_status: 'Callback',
      callback_scheduled_at: '2026-11-24 06:30:00.000',
    })
    const closed = await fx.call({
      method: 'PUT',
      url: '/api/escalated-tickets',
      payload: { oliId: 'PIN-TICKET', status: 'Close' },
    })
    t.equal(closed.statusCode, 200)
    const archived = await db
      .selectFrom('hold_dialer_disposed')
      .selectAll()
      .where('oli_id', '=', 'PIN-TICKET')
      .execute()
    t.equal(archived.length, 1)
    t.equal(archived[0]?.agent_id, agent)
  })

  t.test('pool mode on the same database: agent_id is an extra key, and rows carry no pin', async (t) => {
    const pool = await apiFixture(t, database)
    const res = await pool.push(lead({ oli_id: 'POOL-AGENT', agent_id: agent }))
    t.equal(res.statusCode, 400)
    t.ok(
      res.json().details.some((d: Detail) => d.field === 'agent_id' && d.message === 'extra field rejected'),
    )
    t.equal(await countRows(fx, 'POOL-AGENT'), 0)

    const batch = await pool.push({ leads: [lead(), lead({ oli_id: 'POOL-AGENT', agent_id: null })] })
    t.equal(batch.statusCode, 400, 'even agent_id null is an unknown key')
    t.ok(batch.json().details.some((d: Detail) => d.field === 'leads[1].agent_id'))

    const ok = await pool.push(lead({ oli_id: 'POOL-AGENT' }))
    t.equal(ok.statusCode, 201)
    t.equal((await masterRow(fx, 'POOL-AGENT'))?.agent_id, null)

    // A pool-mode push over a row pinned earlier clears the pin: pool mode has no pins.
    const repush = await pool.push(lead({ oli_id: 'PIN-PENDING-1', priority_id: 1 }))
    t.equal(repush.json().leads[0].status, 'updated')
    t.equal((await masterRow(fx, 'PIN-PENDING-1'))?.agent_id, null)
  })
})
