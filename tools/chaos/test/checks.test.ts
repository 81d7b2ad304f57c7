import { connect, type NewCallAttempt } from '@hold-dialer/db'
import { createTestDatabase } from '@hold-dialer/db/testing'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { ChaosDb, oliId } from '../src/checks.js'

// Each end-of-run check shown to fail on the state it is there to catch, so a run whose checks all say
// 0 means something. MariaDB only, as the run itself.

async function setup(t: Test) {
  const database = await createTestDatabase('mysql')
  t.teardown(() => database.drop())
  const db = connect(database.url, { poolSize: 1 })
  t.teardown(() => db.close())
  const checks = new ChaosDb(db)
  await checks.installFence()
  const pushed = await checks.seed(['6001', '6002'], 3, new Date('2026-11-28T10:00:00Z'))
  const ids = new Map(
    (await db.kysely.selectFrom('hold_dialer_master_data').select(['id', 'oli_id']).execute()).map((r) => [
      r.oli_id,
      Number(r.id),
    ]),
  )
  return { database, db, checks, pushed, id: (i: number) => ids.get(oliId(i))! }
}

const attempt = (masterId: number, key: string, superseded: number, dialer = 'chaos-1'): NewCallAttempt => ({
  master_id: masterId,
  oli_id: `lead ${masterId}`,
  attempt_no: superseded ? 0 : 1,
  superseded,
  dialer_id: dialer,
  dial_mode: 'progressive',
  phone_number: '15550000000',
  linkedid: key,
  outcome: 'Received',
  started_at: '2026-11-28 10:00:00.000',
  ended_at: '2026-11-28 10:00:05.000',
})

t.test('a result written while its lead was held under another claim fails the check at write', async (t) => {
  const { db, checks, id } = await setup(t)
  const k = db.kysely
  const hold = (lead: number, token: string, by = 'chaos-1') =>
    k
      .updateTable('hold_dialer_master_data')
      .set({ dial_status: 'Calling', isReserved: 1, reserved_by: by, claim_token: token })
      .where('id', '=', lead)
      .execute()
  await hold(id(0), 'aaaaaaaa')
  await k
    .insertInto('hold_dialer_call_attempts')
    .values(attempt(id(0), `hd-${id(0)}-aaaaaaaa`, 0))
    .execute()
  t.match(await checks.fenceAtWrite(), { count: 0, superseded: 0, unrecorded: 0 }, 'its own claim: fine')
  await k
    .insertInto('hold_dialer_call_attempts')
    .values(attempt(id(0), `hd-${id(0)}-bbbbbbbb`, 1))
    .execute()
  t.match(
    await checks.fenceAtWrite(),
    { count: 0, superseded: 1 },
    'kept apart as superseded: counted, not failed',
  )
  await k
    .insertInto('hold_dialer_call_attempts')
    .values(attempt(id(0), `hd-${id(0)}-cccccccc`, 0))
    .execute()
  await hold(id(1), 'dddddddd', 'chaos-2')
  await k
    .insertInto('hold_dialer_call_attempts')
    .values(attempt(id(1), `hd-${id(1)}-dddddddd`, 0))
    .execute()
  const wrong = await checks.fenceAtWrite()
  t.equal(wrong.count, 2, 'a newer claim, and another holder')
  t.match(wrong.examples[0], /hd-\d+-cccccccc.*token aaaaaaaa/)
  t.match(wrong.examples[1], /by chaos-1\) got its result while the lead was Calling, reserved 1 by chaos-2/)
})

t.test(
  'a row opened at the claim is judged when it gets its result, and one left open is caught',
  async (t) => {
    const { db, checks, id } = await setup(t)
    const k = db.kysely
    const hold = (lead: number, token: string) =>
      k
        .updateTable('hold_dialer_master_data')
        .set({ dial_status: 'Calling', isReserved: 1, reserved_by: 'chaos-1', claim_token: token })
        .where('id', '=', lead)
        .execute()
    const open = (lead: number, token: string) =>
      k
        .insertInto('hold_dialer_call_attempts')
        .values({ ...attempt(lead, `hd-${lead}-${token}`, 0), outcome: 'Dialing' })
        .execute()
    const complete = (lead: number, token: string, outcome: string, from = 'Dialing') =>
      k
        .updateTable('hold_dialer_call_attempts')
        .set({ outcome })
        .where('linkedid', '=', `hd-${lead}-${token}`)
        .where('outcome', '=', from)
        .execute()
    // Lead 0: opened and completed under its claim; then completed Unknown by a release (still held),
    // and a late result fills it after the lead was claimed again: judged at the completion, fine.
    await hold(id(0), 'aaaaaaaa')
    await open(id(0), 'aaaaaaaa')
    t.equal((await checks.openAttempts()).count, 1, 'a row opened and not completed')
    await complete(id(0), 'aaaaaaaa', 'Received')
    await hold(id(0), 'bbbbbbbb')
    await open(id(0), 'bbbbbbbb')
    await complete(id(0), 'bbbbbbbb', 'Unknown')
    await hold(id(0), 'cccccccc')
    await complete(id(0), 'bbbbbbbb', 'Received', 'Unknown')
    // Lead 1: its row completed, counted, after the lead was claimed again: the failure.
    await hold(id(1), 'dddddddd')
    await open(id(1), 'dddddddd')
    await hold(id(1), 'eeeeeeee')
    await complete(id(1), 'dddddddd', 'Not Connected')
    const wrong = await checks.fenceAtWrite()
    t.match(wrong, { count: 1, unrecorded: 0 })
    t.match(
      wrong.examples[0],
      /hd-\d+-dddddddd.*got its result while the lead was Calling, reserved 1 by chaos-1, token eeeeeeee/,
    )
    t.equal((await checks.openAttempts()).count, 0)
  },
)

t.test("a lead whose latest counted attempt is not its claim's fails the check at the end", async (t) => {
  const { db, checks, id } = await setup(t)
  const k = db.kysely
  await k
    .updateTable('hold_dialer_master_data')
    .set({ dial_status: 'Received', claim_token: 'aaaaaaaa' })
    .where('id', 'in', [id(0), id(1), id(2)])
    .execute()
  await k
    .insertInto('hold_dialer_call_attempts')
    .values([
      // Lead 0: its claim's result, then a late one of an older claim counted over it.
      attempt(id(0), `hd-${id(0)}-aaaaaaaa`, 0),
      attempt(id(0), `hd-${id(0)}-99999999`, 0),
      // Lead 1: the late one kept apart: fine.
      attempt(id(1), `hd-${id(1)}-aaaaaaaa`, 0),
      attempt(id(1), `hd-${id(1)}-99999999`, 1),
      // Lead 2: no row of its last claim (restored, or its row missing): left to the check at write.
      attempt(id(2), `hd-${id(2)}-99999999`, 0),
    ])
    .execute()
  const end = await checks.fenceAtEnd()
  t.equal(end.count, 1)
  t.match(end.examples[0], /^CH-0 .*claim aaaaaaaa, but its latest counted attempt is of claim 99999999/)
})

t.test('lost leads, leads and agents left held, and the attempt keys are read from the tables', async (t) => {
  const { db, checks, pushed, id } = await setup(t)
  const k = db.kysely
  t.same(await checks.lost(pushed), { count: 0, examples: [] })
  await k.deleteFrom('hold_dialer_master_data').where('id', '=', id(2)).execute()
  t.same(await checks.lost(pushed), { count: 1, examples: ['CH-2'] })
  t.equal((await checks.leftReserved()).count, 0)
  await k
    .updateTable('hold_dialer_master_data')
    .set({ dial_status: 'Calling', isReserved: 1, reserved_by: 'chaos-3', claim_token: 'aaaaaaaa' })
    .where('id', '=', id(1))
    .execute()
  t.match(await checks.leftReserved(), { count: 1, examples: [/^CH-1 .*reserved by chaos-3/] })
  t.equal(await checks.reservedCount(), 1)
  await k
    .updateTable('dialer_employee')
    .set({ on_call_by: 'chaos-2' })
    .where('extension', '=', '6002')
    .execute()
  t.match(await checks.agentsLeftOnCall(), { count: 1, examples: [/^agent 6002: held by chaos-2/] })
  t.equal(await checks.claimableLeads(new Date('2026-11-28T10:00:00Z')), 1, 'lead 0 only')
  await checks.pauseAgents()
  t.same(
    (await k.selectFrom('dialer_employee').select('presence').execute()).map((r) => r.presence),
    ['paused', 'paused'],
  )
  await k
    .insertInto('hold_dialer_call_attempts')
    .values(attempt(id(0), `hd-${id(0)}-aaaaaaaa`, 1))
    .execute()
  t.same([...(await checks.attemptKeys())], [`hd-${id(0)}-aaaaaaaa`])
  t.same(await checks.attemptCounts(), { all: 1, superseded: 1, unknown: 0 })
  t.same(await checks.attemptsSince(0), [{ id: await checks.maxAttemptId(), dialerId: 'chaos-1' }])
})

t.test("the KILL ends every other connection to the run's database, not the checker's", async (t) => {
  const { database, db, checks } = await setup(t)
  const other = connect(database.url, { poolSize: 1 })
  t.teardown(() => other.close())
  const id = async (d: typeof db) =>
    Number((await sql<{ id: number }>`SELECT CONNECTION_ID() AS id`.execute(d.kysely)).rows[0]?.id)
  const otherId = await id(other)
  const ownId = await id(db)
  t.ok((await checks.killDialerConnections()) >= 1)
  const alive = async () =>
    (
      await sql<{ ID: number }>`SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE()`.execute(
        db.kysely,
      )
    ).rows.map((r) => Number(r.ID))
  for (let i = 0; i < 50 && (await alive()).includes(otherId); i++)
    await new Promise((r) => setTimeout(r, 100))
  t.notOk((await alive()).includes(otherId), 'the other connection is gone')
  t.equal(await id(db), ownId, 'the checker goes on, on the same connection')
})
