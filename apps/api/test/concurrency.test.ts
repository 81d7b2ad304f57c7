import type { AddressInfo } from 'node:net'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { type ApiFixture, AUTH, apiFixture, lead, masterRow } from './fixture.js'

const BATCHES = 20
const BATCH_SIZE = 500
const STRIDE = 100
/** Batch k covers ids k*STRIDE .. k*STRIDE+BATCH_SIZE-1 of one shared pool, so neighbours overlap by 400. */
const POOL_SIZE = (BATCHES - 1) * STRIDE + BATCH_SIZE

const oliIdOf = (n: number) => `C-${String(n).padStart(5, '0')}`
/** Every field of a lead says which batch sent it, so a row mixing two batches shows. */
const phoneOf = (batch: number) => `98765${String(batch).padStart(5, '0')}`

function batchBody(batch: number): { leads: Record<string, unknown>[] } {
  const leads = []
  for (let n = batch * STRIDE; n < batch * STRIDE + BATCH_SIZE; n++) {
    leads.push({
      oli_id: oliIdOf(n),
      phone_number: phoneOf(batch),
      client_name: `batch ${batch}`,
      form_type: `form-${batch}`,
      priority_id: 1,
    })
  }
  return { leads }
}

interface PushAnswer {
  status: number
  body: { ok?: boolean; leads?: { oli_id: string; status: string }[]; error?: string }
}

async function listen(fx: ApiFixture): Promise<string> {
  await fx.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = fx.app.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

async function post(base: string, body: unknown): Promise<PushAnswer> {
  const res = await fetch(`${base}/api/leads`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as PushAnswer['body'] }
}

forEachDialect(t, async (t, database) => {
  const db = database.handle.kysely

  t.test(
    '20 concurrent overlapping batches: every lead counted once as inserted, no torn rows',
    async (t) => {
      const fx = await apiFixture(t, database)
      const base = await listen(fx)
      const answers = await Promise.all(Array.from({ length: BATCHES }, (_, k) => post(base, batchBody(k))))

      t.same(
        answers.map((a) => a.status),
        Array(BATCHES).fill(201),
        'every batch answered 201',
      )
      const inserted = new Map<string, number[]>()
      const seen = new Map<string, number>()
      answers.forEach((answer, k) => {
        const leads = answer.body.leads ?? []
        const expected = batchBody(k).leads.map((l) => l.oli_id)
        if (leads.length !== BATCH_SIZE || leads.some((l, i) => l.oli_id !== expected[i])) {
          t.fail(`batch ${k}: one result per lead, in request order`)
        }
        for (const l of leads) {
          seen.set(l.oli_id, (seen.get(l.oli_id) ?? 0) + 1)
          if (l.status === 'inserted') inserted.set(l.oli_id, [...(inserted.get(l.oli_id) ?? []), k])
          else if (l.status !== 'updated') t.fail(`batch ${k}: ${l.oli_id} is ${l.status}`)
        }
      })
      t.equal(seen.size, POOL_SIZE, 'every pooled id was answered for')
      const notOnce = [...seen.keys()].filter((id) => inserted.get(id)?.length !== 1)
      t.strictSame(notOnce, [], 'for every oli_id exactly one batch reported inserted')

      const rows = await db
        .selectFrom('hold_dialer_master_data')
        .select(['oli_id', 'client_name', 'form_type', 'phone_number', 'dial_status', 'status', 'call_count'])
        .where('oli_id', 'like', 'C-%')
        .execute()
      t.equal(rows.length, POOL_SIZE, 'one row per distinct oli_id')
      const torn: string[] = []
      const wrongBatch: string[] = []
      for (const row of rows) {
        const batch = Number(/^batch (\d+)$/.exec(row.client_name)?.[1])
        if (row.form_type !== `form-${batch}` || row.phone_number !== phoneOf(batch)) torn.push(row.oli_id)
        const n = Number(row.oli_id.slice(2))
        if (!(batch * STRIDE <= n && n < batch * STRIDE + BATCH_SIZE)) wrongBatch.push(row.oli_id)
        if (row.dial_status !== 'Pending' || row.status !== 1 || row.call_count !== 0) torn.push(row.oli_id)
      }
      t.strictSame(torn, [], 'every row holds the fields of one single batch')
      t.strictSame(wrongBatch, [], 'every row was written by a batch that sent that id')
    },
  )

  // Large batches spend most of their time parsing and validating, so they rarely reach the
  // database at the same instant. Many small batches on a few ids do, which is what drives two
  // transactions to insert the same new oli_id (the loser must re-run and report `updated`).
  t.test(
    'many small concurrent batches on the same few ids: still one inserted each, no torn rows',
    async (t) => {
      const fx = await apiFixture(t, database)
      const base = await listen(fx)
      const ROUNDS = 4
      const REQUESTS = 60
      const IDS = 8
      for (let round = 0; round < ROUNDS; round++) {
        const ids = Array.from({ length: IDS }, (_, i) => `C-SMALL-${round}-${i}`)
        const bodies = Array.from({ length: REQUESTS }, (_, k) => ({
          leads: Array.from({ length: 5 }, (_, i) => ({
            oli_id: ids[(k + i) % IDS],
            phone_number: phoneOf(k),
            client_name: `batch ${k}`,
            form_type: `form-${k}`,
            priority_id: 1,
          })),
        }))
        const answers = await Promise.all(bodies.map((b) => post(base, b)))
        const failed = answers.filter((a) => a.status !== 201)
        t.strictSame(
          failed.map((a) => a.body.error),
          [],
          `round ${round}: every request answered 201`,
        )
        const inserted = new Map<string, number>()
        for (const a of answers) {
          for (const l of a.body.leads ?? []) {
            if (l.status === 'inserted') inserted.set(l.oli_id, (inserted.get(l.oli_id) ?? 0) + 1)
          }
        }
        t.strictSame(
          ids.map((id) => inserted.get(id) ?? 0),
          Array(IDS).fill(1),
          `round ${round}: each id reported inserted exactly once`,
        )
        const rows = await db
          .selectFrom('hold_dialer_master_data')
          .select(['client_name', 'form_type', 'phone_number'])
          .where('oli_id', 'in', ids)
          .execute()
        t.equal(rows.length, IDS, `round ${round}: one row per id`)
        const torn = rows.filter((r) => {
          const k = Number(/^batch (\d+)$/.exec(r.client_name)?.[1])
          return r.form_type !== `form-${k}` || r.phone_number !== phoneOf(k)
        })
        t.strictSame(torn, [], `round ${round}: no torn rows`)
      }
    },
  )

  // Single-lead pushes are written in groups, several groups at once on MySQL: pushes of one oli_id
  // must still be written one after another, each seeing the one before.
  t.test(
    'many concurrent single-lead pushes on a few ids: one inserted each, the rest updated',
    async (t) => {
      const fx = await apiFixture(t, database)
      const base = await listen(fx)
      const IDS = 4
      const REQUESTS = 80
      const ids = Array.from({ length: IDS }, (_, i) => `C-ONE-${i}`)
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, (_, k) =>
          post(base, {
            oli_id: ids[k % IDS],
            phone_number: phoneOf(k),
            client_name: `batch ${k}`,
            form_type: `form-${k}`,
            priority_id: 1,
          }),
        ),
      )
      t.strictSame(
        answers.filter((a) => a.status !== 201).map((a) => a.body.error),
        [],
        'every push answered 201',
      )
      const statuses = new Map<string, string[]>()
      for (const a of answers) {
        for (const l of a.body.leads ?? [])
          statuses.set(l.oli_id, [...(statuses.get(l.oli_id) ?? []), l.status])
      }
      for (const id of ids) {
        const s = statuses.get(id) ?? []
        t.equal(s.length, REQUESTS / IDS, `${id}: every push answered`)
        t.equal(s.filter((x) => x === 'inserted').length, 1, `${id}: inserted exactly once`)
        t.equal(
          s.filter((x) => x === 'updated').length,
          REQUESTS / IDS - 1,
          `${id}: every other push updated`,
        )
      }
      const rows = await db
        .selectFrom('hold_dialer_master_data')
        .select(['client_name', 'form_type', 'phone_number'])
        .where('oli_id', 'in', ids)
        .execute()
      t.equal(rows.length, IDS, 'one row per id')
      const torn = rows.filter((r) => {
        const k = Number(/^batch (\d+)$/.exec(r.client_name)?.[1])
        return r.form_type !== `form-${k}` || r.phone_number !== phoneOf(k)
      })
      t.strictSame(torn, [], 'no torn rows')
    },
  )

  t.test('a live row in concurrent batches is skipped_in_flight by each and left unchanged', async (t) => {
    const fx = await apiFixture(t, database)
    const base = await listen(fx)
    await fx.push(lead({ oli_id: 'C-LIVE' }))
    await db
      .updateTable('hold_dialer_master_data')
      .set({
        dial_status: 'Calling',
        isReserved: 1,
        reserved_by: 'dialer-a',
        reserved_at: '2026-11-23 05:59:00.000',
        previous_status: 'Pending',
        call_count: 1,
        last_attempt_at: '2026-11-23 05:59:00.000',
        first_attempt_at: '2026-11-23 05:59:00.000',
      })
      .where('oli_id', '=', 'C-LIVE')
      .execute()
    const before = await masterRow(fx, 'C-LIVE')
    fx.clock.set('2026-11-23T06:30:00.000Z')

    const batches = Array.from({ length: 5 }, (_, k) => ({
      leads: [
        ...Array.from({ length: 50 }, (_, i) =>
          lead({ oli_id: `C-NEAR-${k * 10 + i}`, client_name: `live batch ${k}` }),
        ),
        lead({ oli_id: 'C-LIVE', client_name: `live batch ${k}`, priority_id: 2 }),
      ],
    }))
    const answers = await Promise.all(batches.map((b) => post(base, b)))
    t.same(
      answers.map((a) => a.status),
      Array(5).fill(201),
    )
    for (const [k, answer] of answers.entries()) {
      const statuses = new Map(answer.body.leads?.map((l) => [l.oli_id, l.status]))
      t.equal(statuses.get('C-LIVE'), 'skipped_in_flight', `batch ${k}`)
      t.equal(statuses.size, 51, `batch ${k}: every lead answered`)
    }
    t.strictSame(await masterRow(fx, 'C-LIVE'), before, 'live row byte-for-byte unchanged')

    const written = await db
      .selectFrom('hold_dialer_master_data')
      .select(['oli_id', 'client_name', 'push_date'])
      .where('oli_id', 'like', 'C-NEAR-%')
      .execute()
    t.equal(written.length, 90, 'the other leads are written (overlapping ids once each)')
    t.ok(
      written.every(
        (r) => /^live batch \d$/.test(r.client_name) && r.push_date === '2026-11-23 06:30:00.000',
      ),
      'with the batch values',
    )
    fx.clock.set('2026-11-23T06:00:00.000Z')
  })
})
