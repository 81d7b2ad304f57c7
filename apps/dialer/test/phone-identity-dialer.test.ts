import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { harness, lead, listPerson } from './harness.js'

// One identity per number with the whole dialer on pbx-sim: leads pushed through the API in a US
// centre (DEFAULT_COUNTRY=US), dialed in progressive and predictive mode, pool and pinned callbacks.
// A listed person written another way is never dialed; a Budapest lead is dialed as Budapest, in the
// configured form; one person's two leads are never rung at once.

const MODES = [
  ['progressive', {}],
  ['predictive', { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '3' }],
] as const

const US = { DEFAULT_COUNTRY: 'US' }

forEachDialect(t, async (t, database) => {
  const { kysely: db } = database.handle
  const listed = (raw: string) => listPerson(db, raw)

  MODES.forEach(([mode, env], m) => {
    const ext = (n: number) => String(8300 + m * 10 + n)
    /** The last four digits of a New York number of this mode (the list is shared by the file). */
    const ny = (n: number) => String(100 + m * 50 + n).padStart(4, '0')

    t.test(
      `${mode}, pool: a listed person written another way is never dialed; Budapest is dialed as Budapest`,
      async (t) => {
        const h = await harness(t, database, { env: { ...env, ...US } })
        await h.addAgent(ext(1))
        await listed(`+1 (212) 555-${ny(1)}`)
        await listed(`212555${ny(2)}`)
        await h.push([
          lead(`PI-${mode}-listed-1`, `212-555-${ny(1)}`),
          lead(`PI-${mode}-listed-2`, `+1 212 555 ${ny(2)}`),
          lead(`PI-${mode}-budapest`, '+36 1 234 5201'),
        ])
        await h.until(
          'Budapest called',
          async () => (await h.lead(`PI-${mode}-budapest`))?.dial_status === 'Received',
        )
        for (const n of [1, 2]) {
          await h.until(
            `listed ${n} archived`,
            async () => (await h.lead(`PI-${mode}-listed-${n}`)) === undefined,
          )
          t.same(await h.attempts(`PI-${mode}-listed-${n}`), [], `listed ${n}: no call`)
        }
        t.same(
          h.sim.calls.filter(
            (c) => c.number?.endsWith(`212555${ny(1)}`) || c.number?.endsWith(`212555${ny(2)}`),
          ),
          [],
          'no listed person was rung',
        )
        const call = h.sim.calls.find((c) => c.variables.HD_OLI_ID === `PI-${mode}-budapest`)
        if (mode === 'progressive')
          t.equal(call?.exten, '+3612345201', 'the Originate extension is the E.164 form')
        else
          t.equal(call?.originateChannel, 'PJSIP/+3612345201@trunk', 'the customer channel is the E.164 form')
        t.match(await h.attempts(`PI-${mode}-budapest`), [
          { phone_number: '3612345201', phone_e164: '+3612345201' },
        ])
      },
    )

    t.test(`${mode}, pinned: a listed person written another way ends Disposed, never dialed`, async (t) => {
      const h = await harness(t, database, { env: { ...env, ...US, CALLBACK_MODE: 'pinned' } })
      const a = await h.addAgent(ext(2))
      await listed(`(212) 555-${ny(11)}`)
      await h.push([
        lead(`PIP-${mode}-listed`, `001 212 555 ${ny(11)}`, { agent_id: a }),
        lead(`PIP-${mode}-free`, `212 555 ${ny(12)}`, { agent_id: a }),
      ])
      await h.until('Disposed', async () => (await h.lead(`PIP-${mode}-listed`))?.dial_status === 'Disposed')
      await h.until(
        'the other called',
        async () => (await h.lead(`PIP-${mode}-free`))?.dial_status === 'Received',
      )
      t.match(await h.lead(`PIP-${mode}-listed`), {
        last_dial_result: 'DNC',
        call_count: 0,
        phone_e164: `+1212555${ny(11)}`,
      })
      t.equal(h.sim.calls.filter((c) => c.number?.endsWith(`212555${ny(11)}`)).length, 0, 'never rung')
    })

    t.test(`${mode}: one person pushed twice, written two ways, is never rung twice at once`, async (t) => {
      const h = await harness(t, database, {
        env: { ...env, ...US, MIN_SECONDS_BETWEEN_CALLS_TO_NUMBER: '1' },
        defaultOutcome: { kind: 'answer', ringSeconds: 2, talkSeconds: 30 },
      })
      await h.addAgent(ext(3))
      await h.addAgent(ext(4))
      await h.push([lead(`PC-${mode}-1`, `+1 212 555 ${ny(22)}`), lead(`PC-${mode}-2`, `212-555-${ny(22)}`)])
      await h.until('both called', async () => {
        const [a, b] = [await h.lead(`PC-${mode}-1`), await h.lead(`PC-${mode}-2`)]
        return a?.dial_status === 'Received' && b?.dial_status === 'Received'
      })
      const calls = h.sim.calls
        .filter((c) => c.number === `1212555${ny(22)}`)
        .sort((a, b) => a.startedAt - b.startedAt)
      t.equal(calls.length, 2, 'two calls, one per lead')
      t.ok(calls[1]!.startedAt >= calls[0]!.endedAt!, 'the second started after the first ended')
    })

    t.test(
      `${mode}: DIAL_NUMBER_FORMAT and the template's placeholders give the trunk its form`,
      async (t) => {
        const h = await harness(t, database, {
          env: {
            ...env,
            ...US,
            DIAL_NUMBER_FORMAT: 'international',
            CUSTOMER_CHANNEL_TEMPLATE: 'PJSIP/{number}@trunk/{national}',
          },
        })
        await h.addAgent(ext(5))
        await h.push(lead(`PF-${mode}`, '+44 20 7946 0303'))
        await h.until('called', async () => (await h.lead(`PF-${mode}`))?.dial_status === 'Received')
        const call = h.sim.calls.find((c) => c.variables.HD_OLI_ID === `PF-${mode}`)
        if (mode === 'progressive') t.equal(call?.exten, '442079460303', 'country code, no +')
        else
          t.equal(call?.originateChannel, 'PJSIP/442079460303@trunk/02079460303', 'each placeholder its form')
      },
    )
  })

  t.test('an unreadable number is accepted by the API and never dialed', async (t) => {
    const h = await harness(t, database, { env: US })
    await h.addAgent('8391')
    await h.push([lead('PU-1', '123456789012345'), lead('PU-2', '(212) 555-0301')])
    await h.until('the readable one called', async () => (await h.lead('PU-2'))?.dial_status === 'Received')
    await h.until('the unreadable one archived', async () => (await h.lead('PU-1')) === undefined)
    const [archived] = await db
      .selectFrom('hold_dialer_disposed')
      .selectAll()
      .where('oli_id', '=', 'PU-1')
      .execute()
    t.match(archived, {
      disposed_reason: 'unreadable_number',
      last_dial_result: 'UNREADABLE_NUMBER',
      phone_e164: '',
    })
    t.equal(h.sim.calls.filter((c) => c.number === '123456789012345').length, 0)
  })
})
