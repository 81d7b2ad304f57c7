import type { AddressInfo } from 'node:net'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { type ApiFixture, AUTH, apiFixture, lead, masterRow } from './fixture.js'

// Single-lead pushes that arrive together are written in one transaction (group commit). These check
// that sharing a transaction changes no lead's answer.

async function listen(fx: ApiFixture): Promise<string> {
  await fx.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = fx.app.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

async function post(base: string, body: unknown): Promise<{ status: number; leads: { status: string }[] }> {
  const res = await fetch(`${base}/api/leads`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as { leads?: { status: string }[] }
  return { status: res.status, leads: json.leads ?? [] }
}

forEachDialect(t, async (t, database) => {
  t.test(
    'concurrent single-lead pushes: each new lead inserted, an existing one updated, a live one skipped',
    async (t) => {
      const fx = await apiFixture(t, database)
      const base = await listen(fx)
      await fx.push(lead({ oli_id: 'G-OLD' }))
      await fx.push(lead({ oli_id: 'G-LIVE' }))
      await database.handle.kysely
        .updateTable('hold_dialer_master_data')
        .set({ dial_status: 'Calling', isReserved: 1, reserved_by: 'dialer-a', previous_status: 'Pending' })
        .where('oli_id', '=', 'G-LIVE')
        .execute()
      const live = await masterRow(fx, 'G-LIVE')
      const bodies = [
        ...Array.from({ length: 30 }, (_, i) => lead({ oli_id: `G-NEW-${i}` })),
        lead({ oli_id: 'G-OLD', client_name: 'changed' }),
        lead({ oli_id: 'G-LIVE', client_name: 'changed' }),
      ]
      const answers = await Promise.all(bodies.map((b) => post(base, b)))
      t.same(
        answers.map((a) => a.status),
        Array(bodies.length).fill(201),
      )
      t.same(
        answers.slice(0, 30).map((a) => a.leads[0]?.status),
        Array(30).fill('inserted'),
      )
      t.equal(answers[30]?.leads[0]?.status, 'updated')
      t.equal(answers[31]?.leads[0]?.status, 'skipped_in_flight')
      t.match(await masterRow(fx, 'G-OLD'), { client_name: 'changed' })
      t.strictSame(await masterRow(fx, 'G-LIVE'), live, 'the live lead is untouched')
    },
  )

  t.test('one oli_id pushed by 20 clients at once: exactly one inserted, the rest updated', async (t) => {
    const fx = await apiFixture(t, database)
    const base = await listen(fx)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(base, lead({ oli_id: 'G-SAME', client_name: `client ${i}` })),
      ),
    )
    const statuses = answers.map((a) => a.leads[0]?.status)
    t.equal(statuses.filter((s) => s === 'inserted').length, 1, 'one inserted')
    t.equal(statuses.filter((s) => s === 'updated').length, 19, 'the others updated')
    const rows = await database.handle.kysely
      .selectFrom('hold_dialer_master_data')
      .select('client_name')
      .where('oli_id', '=', 'G-SAME')
      .execute()
    t.equal(rows.length, 1, 'one row')
  })
})
