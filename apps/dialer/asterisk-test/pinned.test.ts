import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, PINNED, settled, startAsterisk } from './testbed.js'

// Pinned callbacks (Mode B) on a real Asterisk 22, progressive and predictive: every row of the
// spec's Mode B table that a call decides. The pinned agent's desk not answering or busy is in
// pinned-desk.test.ts (its own Asterisk, so the two files run side by side).
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
        await r.until('Disposed', async () => (await r.lead(`${tag}-NC`))?.dial_status === 'Disposed')
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
        await r.until('restored', () => r.dialer.stats.restored > 0)
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
