import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import t from 'tap'
import { harness, lead } from './harness.js'

// The calling rules with the whole dialer against pbx-sim: leads pushed through the API, dialed in
// progressive and predictive mode.

const MODES = [
  ['progressive', {}],
  ['predictive', { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '3' }],
] as const

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const listNumber = (digits: string) =>
    db
      .insertInto('hold_dialer_dnc')
      .values({ digits, source: 'test', added_at: toDbTime(new Date()), expires_at: null })
      .execute()

  for (const [mode, env] of MODES) {
    t.test(`${mode}, pool: a listed number is pushed as usual, never dialed, archived as dnc`, async (t) => {
      const h = await harness(t, database, { env })
      await h.addAgent(mode === 'progressive' ? '8101' : '8201')
      const listed = mode === 'progressive' ? '5558100001' : '5558200001'
      const free = mode === 'progressive' ? '5558100002' : '5558200002'
      await listNumber(listed)
      await h.push([lead(`DNC-${mode}-1`, listed), lead(`DNC-${mode}-2`, free)])
      await h.until(
        'the unlisted lead is called',
        async () => (await h.lead(`DNC-${mode}-2`))?.dial_status === 'Received',
      )
      await h.until('the listed lead is archived', async () => (await h.lead(`DNC-${mode}-1`)) === undefined)
      const archived = await db
        .selectFrom('hold_dialer_disposed')
        .selectAll()
        .where('oli_id', '=', `DNC-${mode}-1`)
        .execute()
      t.match(archived, [{ disposed_reason: 'dnc', last_dial_result: 'DNC', call_count: 0 }])
      t.equal(h.sim.calls.filter((c) => c.number === listed).length, 0, 'never dialed')
      t.same(await h.attempts(`DNC-${mode}-1`), [])
    })

    t.test(`${mode}, pinned: a listed lead ends Disposed on master`, async (t) => {
      const h = await harness(t, database, { env: { ...env, CALLBACK_MODE: 'pinned' } })
      const a = await h.addAgent(mode === 'progressive' ? '8102' : '8202')
      const listed = mode === 'progressive' ? '5558100003' : '5558200003'
      await listNumber(listed)
      await h.push(lead(`DNCP-${mode}`, listed, { agent_id: a }))
      await h.until('Disposed', async () => (await h.lead(`DNCP-${mode}`))?.dial_status === 'Disposed')
      t.match(await h.lead(`DNCP-${mode}`), {
        last_dial_result: 'DNC',
        call_count: 0,
        isReserved: 0,
        agent_id: a,
      })
      t.equal(h.sim.calls.filter((c) => c.number === listed).length, 0)
    })

    t.test(`${mode}: duplicate leads of one number wait MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER`, async (t) => {
      const start = '2026-11-23T12:00:00.000Z'
      const h = await harness(t, database, {
        env: { ...env, MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER: '600', RETRY_PATTERN: '[1]', MAX_TRIES: '1' },
        now: start,
      })
      await h.addAgent(mode === 'progressive' ? '8103' : '8203')
      const number = mode === 'progressive' ? '5558100004' : '5558200004'
      h.sim.setOutcome(number, { kind: 'busy' })
      await h.push([lead(`CAP-${mode}-1`, number), lead(`CAP-${mode}-2`, number)])
      await h.until('the first is called', async () => (await h.attempts(`CAP-${mode}-1`)).length === 1)
      await h.until('and archived (one try)', async () => (await h.lead(`CAP-${mode}-1`)) === undefined)
      await h.dialer.claimRounds()
      t.equal(h.sim.calls.filter((c) => c.number === number).length, 1, 'the duplicate is not dialed at once')
      t.match(await h.lead(`CAP-${mode}-2`), { dial_status: 'Pending', call_count: 0 })
      await h.setClock('2026-11-23T12:10:00.000Z')
      await h.until(
        'the duplicate is dialed 10 minutes later',
        async () => (await h.attempts(`CAP-${mode}-2`)).length === 1,
      )
      const [second] = await h.attempts(`CAP-${mode}-2`)
      t.equal(second?.started_at, '2026-11-23 12:10:00.000')
    })

    t.test(
      `${mode}, pinned: PINNED_FALLBACK_MINUTES lets another agent take a lead its agent left`,
      async (t) => {
        const h = await harness(t, database, {
          env: { ...env, CALLBACK_MODE: 'pinned', PINNED_FALLBACK_MINUTES: '30' },
          now: '2026-11-23T12:00:00.000Z',
        })
        const base = mode === 'progressive' ? '810' : '820'
        const away = await h.addAgent(`${base}5`, { presence: 'paused' })
        await h.addAgent(`${base}6`)
        await h.push(lead(`FB-${mode}`, `555${base}0005`, { agent_id: away }))
        await h.dialer.claimRounds()
        t.match(await h.lead(`FB-${mode}`), { dial_status: 'Pending', call_count: 0 }, 'its agent is away')
        await h.setClock('2026-11-23T12:29:59.999Z')
        await h.dialer.claimRounds()
        t.equal(h.sim.calls.filter((c) => c.number === `555${base}0005`).length, 0, 'not before 30 minutes')
        await h.setClock('2026-11-23T12:30:00.000Z')
        await h.until(
          'dialed by the other agent',
          async () => (await h.lead(`FB-${mode}`))?.dial_status === 'Received',
        )
        t.match(await h.attempts(`FB-${mode}`), [{ agent_extension: `${base}6` }])
        t.match(await h.lead(`FB-${mode}`), { agent_id: away }, 'pin kept')
      },
    )
  }
})
