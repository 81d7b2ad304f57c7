import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import pino from 'pino'
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

  t.test('zones whose calling hours never overlap: one warning for the stored value', async (t) => {
    const lines: Array<Record<string, unknown>> = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    const h = await harness(t, database, {
      env: { CALLING_HOURS: '08:00-21:00' },
      logger,
      timing: { zonesMs: 20 },
    })
    await h.push(lead('NEVER-1', '5558300001'))
    // UTC, UTC+8 and UTC-8: three 13-hour windows 8 hours apart share no moment.
    const never = 'America/Los_Angeles Asia/Shanghai UTC'
    await db
      .updateTable('hold_dialer_master_data')
      .set({ customer_tz: never })
      .where('oli_id', '=', 'NEVER-1')
      .execute()
    const warned = () =>
      lines.filter((l) => String(l.msg).startsWith('leads of these customer zones are never called'))
    await h.until('warned', () => warned().length > 0)
    await h.dialer.claimRounds(3)
    t.equal(warned().length, 1, 'once')
    t.match(warned()[0], { customerTz: never, callingHours: '08:00-21:00' })
    t.notOk(
      lines.some((l) => JSON.stringify(l).includes('5558300001')),
      'no phone number in the log',
    )
  })

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

    t.test(
      `${mode}: duplicate leads of one number wait for the next day past MAX_CALLS_PER_NUMBER_PER_DAY`,
      async (t) => {
        const h = await harness(t, database, {
          env: {
            ...env,
            TIMEZONE: 'UTC',
            MAX_CALLS_PER_NUMBER_PER_DAY: '1',
            RETRY_PATTERN: '[1]',
            MAX_TRIES: '1',
          },
          now: '2026-11-23T22:00:00.000Z',
        })
        await h.addAgent(mode === 'progressive' ? '8109' : '8209')
        const number = mode === 'progressive' ? '5558100006' : '5558200006'
        h.sim.setOutcome(number, { kind: 'busy' })
        await h.push([lead(`DAY-${mode}-1`, number), lead(`DAY-${mode}-2`, number)])
        await h.until('the first is called', async () => (await h.attempts(`DAY-${mode}-1`)).length === 1)
        await h.until('and archived (one try)', async () => (await h.lead(`DAY-${mode}-1`)) === undefined)
        await h.setClock('2026-11-23T23:59:00.000Z')
        await h.dialer.claimRounds()
        t.equal(h.sim.calls.filter((c) => c.number === number).length, 1, 'one call to the number today')
        t.match(await h.lead(`DAY-${mode}-2`), { dial_status: 'Pending', call_count: 0 })
        await h.setClock('2026-11-24T00:00:00.000Z')
        await h.until(
          'the duplicate is dialed the next day',
          async () => (await h.attempts(`DAY-${mode}-2`)).length === 1,
        )
        const [second] = await h.attempts(`DAY-${mode}-2`)
        t.equal(second?.started_at, '2026-11-24 00:00:00.000')
      },
    )

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

    t.test(
      `${mode}: CALLING_HOURS on the customer's clock; a retry moved to 08:00 there, across DST`,
      async (t) => {
        // The centre (UTC) is open all day; the customer is in New York (DEFAULT_COUNTRY US: national digits).
        const h = await harness(t, database, {
          env: { ...env, CALLING_HOURS: '08:00-21:00', DEFAULT_COUNTRY: 'US', RETRY_SECONDS: '3600' },
          // 06:30 EDT on Saturday 2026-10-31.
          now: '2026-10-31T10:30:00.000Z',
        })
        await h.addAgent(mode === 'progressive' ? '8107' : '8207')
        const national = mode === 'progressive' ? '2125550107' : '2125550207'
        // Dialed in its international form (+1...), which pbx-sim scripts by its digits.
        const number = `1${national}`
        h.sim.setOutcome(number, { kind: 'busy' })
        await h.push(lead(`TZ-${mode}`, national))
        t.match(await h.lead(`TZ-${mode}`), { customer_tz: 'America/New_York' }, 'derived at push')
        await h.dialer.claimRounds()
        t.equal(h.sim.calls.filter((c) => c.number === number).length, 0, '06:30 in New York: not called')
        await h.setClock('2026-10-31T11:59:59.999Z')
        await h.dialer.claimRounds()
        t.equal(h.sim.calls.filter((c) => c.number === number).length, 0, '07:59 EDT: not yet')
        await h.setClock('2026-11-01T00:30:00.000Z')
        await h.until('called at 20:30 EDT', async () => (await h.attempts(`TZ-${mode}`)).length === 1)
        await h.until('settled', async () => (await h.lead(`TZ-${mode}`))?.dial_status === 'Not Connected')
        // RETRY_SECONDS would put it at 21:30 EDT; the next 08:00 in New York is after the clocks go back
        // (02:00 EDT on 2026-11-01 becomes 01:00 EST): 08:00 EST, 13:00 UTC, not 12:00.
        t.match(await h.lead(`TZ-${mode}`), { next_retry_at: '2026-11-01 13:00:00.000' })
        await h.setClock('2026-11-01T12:59:59.999Z')
        await h.dialer.claimRounds()
        t.equal((await h.attempts(`TZ-${mode}`)).length, 1, '07:59 EST: not retried')
        await h.setClock('2026-11-01T13:00:00.000Z')
        await h.until('retried at 08:00 EST', async () => (await h.attempts(`TZ-${mode}`)).length === 2)
        t.equal((await h.attempts(`TZ-${mode}`))[1]?.started_at, '2026-11-01 13:00:00.000')
      },
    )
  }
})
