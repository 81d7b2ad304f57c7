import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

/** White space only, as Unicode knows it: spaces, tabs, line ends, no-break and ideographic spaces. */
const BLANKS = [' ', '   ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\ufeff', ' \t\u00a0 ']

async function count(fx: ApiFixture): Promise<number> {
  const row = await fx.database.handle.kysely
    .selectFrom('hold_dialer_master_data')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

for (const mode of ['pool', 'pinned'] as const) {
  forEachDialect(t, async (t, database) => {
    const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: mode } })

    t.test(`${mode}: oli_id or client_name of white space only is 400 must not be blank`, async (t) => {
      const before = await count(fx)
      for (const blank of BLANKS) {
        for (const field of ['oli_id', 'client_name']) {
          const res = await fx.push(lead({ [field]: blank }))
          t.equal(res.statusCode, 400, `${field} ${JSON.stringify(blank)}`)
          t.strictSame(res.json().details, [{ field, message: 'must not be blank' }])
          const batch = await fx.push({ leads: [lead(), lead({ [field]: blank })] })
          t.strictSame(batch.json().details, [{ field: `leads[1].${field}`, message: 'must not be blank' }])
        }
      }
      t.equal(await count(fx), before, 'nothing written')
    })

    t.test(`${mode}: oliId of white space only is 400 must not be blank on both endpoints`, async (t) => {
      for (const blank of BLANKS) {
        for (const [method, url, extra] of [
          ['PUT', '/api/escalated-tickets', { status: 'Close' }],
          ['POST', '/api/send-callback-request', { scheduledAt: '2026-11-24 10:00:00' }],
        ] as const) {
          const res = await fx.call({ method, url, payload: { oliId: blank, ...extra } })
          t.equal(res.statusCode, 400, `${url} ${JSON.stringify(blank)}`)
          t.strictSame(res.json().details, [{ field: 'oliId', message: 'must not be blank' }])
        }
      }
    })

    t.test(`${mode}: values with white space around text are stored exactly, not trimmed`, async (t) => {
      const body = lead({ oli_id: ` PAD-${mode} `, client_name: '\tAsha ' })
      t.equal((await fx.push(body)).statusCode, 201)
      const row = await masterRow(fx, ` PAD-${mode} `)
      t.equal(row?.client_name, '\tAsha ')
      t.equal(await masterRow(fx, `PAD-${mode}`), undefined, 'a different id from the trimmed one')
    })

    t.test(`${mode}: ISO times with lower-case t and z (RFC 3339) are accepted`, async (t) => {
      // The test zone is Asia/Kolkata (+05:30).
      const pin = mode === 'pinned' ? await agent(fx) : {}
      for (const [sent, utc] of [
        ['2026-11-24t10:00:00z', '2026-11-24 10:00:00.000'],
        ['2026-11-24t10:00:00.250Z', '2026-11-24 10:00:00.250'],
        ['2026-11-24T10:00:00z', '2026-11-24 10:00:00.000'],
        ['2026-11-24t10:00', '2026-11-24 04:30:00.000'],
      ] as const) {
        const body = lead({ priority_id: 2, callback_scheduled_at: sent, ...pin })
        const res = await fx.push(body)
        t.equal(res.statusCode, 201, `${sent}: ${res.body}`)
        t.equal(res.json().leads[0].callback_scheduled_at, sent, 'the push echoes what was sent')
        t.equal((await masterRow(fx, body.oli_id as string))?.callback_scheduled_at, utc, sent)
      }
      await fx.push(lead({ oli_id: `LC-${mode}` }))
      const cb = await fx.call({
        method: 'POST',
        url: '/api/send-callback-request',
        payload: { oliId: `LC-${mode}`, scheduledAt: '2026-11-24t04:30:00z' },
      })
      t.equal(cb.statusCode, 200)
      t.equal(cb.json().lead.callback_scheduled_at, '2026-11-24 10:00:00', 'answered in TIMEZONE')
    })
  })
}

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database, { env: { TIMEZONE: 'America/New_York' } })

  t.test('a naive time in a spring-forward gap moves forward by the gap', async (t) => {
    // 2026-03-08 02:30 does not exist in New York: clocks go from 02:00 EST to 03:00 EDT.
    const body = lead({ priority_id: 2, callback_scheduled_at: '2026-03-08 02:30:00' })
    t.equal((await fx.push(body)).statusCode, 201)
    t.equal((await masterRow(fx, body.oli_id as string))?.callback_scheduled_at, '2026-03-08 07:30:00.000')
    await fx.push(lead({ oli_id: 'DST-GAP' }))
    const res = await fx.call({
      method: 'POST',
      url: '/api/send-callback-request',
      payload: { oliId: 'DST-GAP', scheduledAt: '2026-03-08T02:30' },
    })
    t.equal(res.json().lead.callback_scheduled_at, '2026-03-08 03:30:00', '03:30 EDT')
  })

  t.test('a naive time in a fall-back overlap is the earlier instant', async (t) => {
    // 2026-11-01 01:30 happens twice in New York: first in EDT (05:30 UTC), then in EST (06:30 UTC).
    const body = lead({ priority_id: 2, callback_scheduled_at: '2026-11-01 01:30:00' })
    t.equal((await fx.push(body)).statusCode, 201)
    t.equal((await masterRow(fx, body.oli_id as string))?.callback_scheduled_at, '2026-11-01 05:30:00.000')
    const offset = lead({ priority_id: 2, callback_scheduled_at: '2026-11-01T01:30:00-05:00' })
    t.equal((await fx.push(offset)).statusCode, 201)
    t.equal(
      (await masterRow(fx, offset.oli_id as string))?.callback_scheduled_at,
      '2026-11-01 06:30:00.000',
      'the later one is reached with its offset',
    )
  })
})

let agents = 0
/** An active employee with an extension, as pinned mode's callbacks need one. */
async function agent(fx: ApiFixture): Promise<{ agent_id: number }> {
  agents += 1
  const r = await fx.database.handle.kysely
    .insertInto('dialer_employee')
    .values({ name: `TZ Agent ${agents}`, extension: `20${agents}` })
    .executeTakeFirstOrThrow()
  return { agent_id: Number(r.insertId) }
}
