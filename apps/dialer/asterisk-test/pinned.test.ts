import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// Pinned callbacks (Mode B) on a real Asterisk 22, progressive and predictive: every row of the
// spec's Mode B table that a call decides.
const PINNED = { CALLBACK_MODE: 'pinned', RETRY_SECONDS: '0', RETRY_PATTERN: '[2]', MAX_TRIES: '2' }
const asterisk = await startAsterisk(t)

for (const dialMode of ['progressive', 'predictive'] as const) {
  const env = { ...PINNED, DIAL_MODE: dialMode }
  const tag = dialMode === 'progressive' ? 'G' : 'V'
  forEachDialect(t, async (t, database) => {
    t.test(`${dialMode}: ANSWER: Received by the pinned agent only, pin kept`, async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env })
      await agent(r, '1001')
      const pinned = await agent(r, '1002')
      await r.push(lead(`${tag}-ANS`, '5550008021', { agent_id: pinned }))
      t.match(await settled(r, `${tag}-ANS`), { dial_status: 'Received', agent_id: pinned })
      t.match((await r.attempts(`${tag}-ANS`))[0], { agent_extension: '1002', agent_id: pinned })
    })

    t.test(
      `${dialMode}: busy: Not Connected, RNR mail queued once, then Disposed at max_tries, pin kept`,
      async (t) => {
        const r = await asteriskRig(t, database, asterisk, { env })
        const pinned = await agent(r, '1003')
        await r.push(lead(`${tag}-NC`, '5550002021', { agent_id: pinned }))
        await r.until('Disposed', async () => (await r.lead(`${tag}-NC`))?.dial_status === 'Disposed', 60_000)
        t.match(await r.lead(`${tag}-NC`), { call_count: 2, isRnrSent: 1, agent_id: pinned, isReserved: 0 })
        const mails = await database.handle.kysely
          .selectFrom('hold_dialer_rnr_outbox')
          .selectAll()
          .where('oli_id', '=', `${tag}-NC`)
          .execute()
        t.equal(mails.length, 1, 'one RNR mail for the first Not Connected')
        const archived = await database.handle.kysely
          .selectFrom('hold_dialer_disposed')
          .select('id')
          .where('oli_id', '=', `${tag}-NC`)
          .execute()
        t.equal(archived.length, 0, 'not moved to hold_dialer_disposed')
      },
    )

    t.test(
      `${dialMode}: the pinned agent is paused: the lead waits for them, no one else dials it`,
      async (t) => {
        const r = await asteriskRig(t, database, asterisk, { env })
        await agent(r, '1001')
        const pinned = await agent(r, '1004', { presence: 'paused' })
        const oli = `${tag}-PAUSE`
        await r.push(lead(oli, '5550001024', { agent_id: pinned }))
        await r.dialer.claimRounds(3)
        t.match(await r.lead(oli), { dial_status: 'Pending', call_count: 0, isReserved: 0 })
        await database.handle.kysely
          .updateTable('dialer_employee')
          .set({ presence: 'ready' })
          .where('id', '=', pinned)
          .execute()
        t.match(await settled(r, oli), { dial_status: 'Received', agent_id: pinned })
        t.match((await r.attempts(oli))[0], { agent_extension: '1004' })
      },
    )

    t.test(
      `${dialMode}: the originate fails (a channel that cannot be created): restored, pin kept`,
      async (t) => {
        const r = await asteriskRig(t, database, asterisk, {
          env: {
            ...env,
            // Progressive dials the desk first: its channel is the one that cannot be created.
            ...(dialMode === 'predictive'
              ? { CUSTOMER_CHANNEL_TEMPLATE: 'NoSuchTech/{number}' }
              : {
                  AGENT_CHANNEL_TEMPLATE: 'NoSuchTech/{extension}',
                  AGENT_DEVICE_TEMPLATE: 'Custom:desk{extension}',
                }),
          },
        })
        await asterisk.setCustomDeviceState('desk1025', 'NOT_INUSE')
        const pinned = await agent(r, '1025')
        const oli = `${tag}-FAIL`
        await r.push(lead(oli, '5550001025', { agent_id: pinned }))
        await r.until('restored', () => r.dialer.stats.restored > 0, 30_000)
        t.match(await r.lead(oli), {
          dial_status: 'Pending',
          call_count: 0,
          isReserved: 0,
          isRnrSent: 0,
          agent_id: pinned,
        })
      },
    )

    t.test(`${dialMode}: reject: Rejected, pin kept`, async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env })
      const pinned = await agent(r, '1004')
      await r.push(lead(`${tag}-REJ`, '5550005021', { agent_id: pinned }))
      t.match(await settled(r, `${tag}-REJ`), { dial_status: 'Rejected', agent_id: pinned })
    })
  })
}

forEachDialect(t, async (t, database) => {
  t.test(
    "progressive: the pinned agent's desk does not answer: restored with its pin, no RNR mail",
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: { ...PINNED, DIAL_MODE: 'progressive' } })
      const pinned = await agent(r, '2002')
      await r.push(lead('G-AGF', '5550002022', { agent_id: pinned }))
      await r.until('restored', () => r.dialer.stats.restored > 0, 30_000)
      t.match(await r.lead('G-AGF'), {
        dial_status: 'Pending',
        call_count: 0,
        isRnrSent: 0,
        isReserved: 0,
        agent_id: pinned,
      })
    },
  )

  t.test(
    'predictive: the pinned agent is busy after the answer: Abandoned at the hold timeout, retried by the Not Connected schedule, pin kept',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: {
          ...PINNED,
          DIAL_MODE: 'predictive',
          RETRY_SECONDS: '600',
          RETRY_PATTERN: '[3]',
          MAX_TRIES: '3',
        },
      })
      const pinned = await agent(r, '3002')
      await r.push(lead('V-AB', '5550009022', { agent_id: pinned }))
      const row = await settled(r, 'V-AB', 60_000)
      t.match(row, { dial_status: 'Abandoned', call_count: 1, agent_id: pinned })
      const wait = new Date(`${row.next_retry_at}Z`).getTime() - new Date(`${row.last_attempt_at}Z`).getTime()
      t.ok(wait >= 600_000, `next attempt RETRY_SECONDS later, not the pool's 5 minutes (${wait} ms)`)
    },
  )

  t.test(
    'predictive: the pinned agent is busy after the answer, then frees up: held until free, Received',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: {
          ...PINNED,
          DIAL_MODE: 'predictive',
          AGENT_DEVICE_TEMPLATE: 'Custom:desk{extension}',
          RING_TIMEOUT_SECONDS: '20',
          HOLD_TIMEOUT_SECONDS: '60',
        },
      })
      await asterisk.setCustomDeviceState('desk1026', 'NOT_INUSE')
      const pinned = await agent(r, '1026')
      const from = asterisk.events.length
      // The customer rings 10 s; meanwhile the agent takes another call.
      await r.push(lead('V-HOLD', '5550010026', { agent_id: pinned }))
      await asterisk.waitForEvent(
        (e) => e.event === 'Newchannel' && String(e.channel).startsWith('Local/+5550010026@customers'),
        30_000,
        from,
      )
      await asterisk.setCustomDeviceState('desk1026', 'INUSE')
      await asterisk.waitForEvent(
        (e) =>
          e.event === 'Newstate' &&
          e.channelstatedesc === 'Up' &&
          String(e.channel).startsWith('Local/+5550010026@customers'),
        30_000,
        from,
      )
      await r.dialer.claimRounds(2)
      t.notOk(
        asterisk.events
          .slice(from)
          .some((e) => e.event === 'DialBegin' && String(e.destchannel).startsWith('Local/1026@agents')),
        'not sent to the busy desk',
      )
      await asterisk.setCustomDeviceState('desk1026', 'NOT_INUSE')
      t.match(await settled(r, 'V-HOLD'), { dial_status: 'Received', agent_id: pinned })
      t.match((await r.attempts('V-HOLD'))[0], { outcome: 'Received', agent_extension: '1026' })
    },
  )
})
