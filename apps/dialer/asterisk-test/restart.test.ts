import type { AmiMessage } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead, type Rig } from '../test/harness.js'
import { agent, asteriskRig, settled, startAsterisk } from './testbed.js'

// The dialer dropped in the middle of calls (a crash, a restart by systemd) while Asterisk carries on:
// the new process adopts its calls from CoreShowChannels and settles each one by what happened.
const asterisk = await startAsterisk(t)

const named = (prefix: string) => (e: AmiMessage) => String(e.channel ?? '').startsWith(prefix)
const up = (prefix: string) => (e: AmiMessage) =>
  e.event === 'Newstate' && e.channelstatedesc === 'Up' && named(prefix)(e)

/**
 * The customer (an hour-long call) hangs up, once the new dialer has run a claim round, so after it
 * has adopted the call: the far half of the customer's Local pair, as a phone hanging up would.
 */
async function customerHangsUp(r: Rig, number: string, from: number): Promise<void> {
  await r.dialer.claimRounds()
  const far = asterisk.events
    .slice(from)
    .find(
      (e) =>
        e.event === 'Newchannel' && named(`Local/+${number}@customers`)(e) && /;2$/.test(String(e.channel)),
    )
  await asterisk.admin.action({ action: 'Hangup', channel: String(far?.channel), cause: 16 })
}

forEachDialect(t, async (t, database) => {
  t.test('progressive, talking: adopted, settled Received with its agent', async (t) => {
    const r = await asteriskRig(t, database, asterisk)
    const agentId = await agent(r, '1001')
    const from = asterisk.events.length
    await r.push(lead('R-P', '5550009041'))
    await asterisk.waitForEvent(up('Local/+5550009041@customers'), 30_000, from)
    await r.restartDialer()
    await customerHangsUp(r, '5550009041', from)
    const row = await settled(r, 'R-P')
    t.match(row, { dial_status: 'Received', call_count: 1, hangup_by: 'customer' })
    t.match((await r.attempts('R-P'))[0], { outcome: 'Received', agent_id: agentId })
  })

  t.test(
    'progressive, a desk context dialing the phone: the phone is the agent, not the customer',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: { AGENT_CHANNEL_TEMPLATE: 'Local/{extension}@fpbx-desk' },
      })
      const agentId = await agent(r, '1041')
      const from = asterisk.events.length
      await r.push(lead('R-F', '5550009042'))
      await asterisk.waitForEvent(up('Local/+5550009042@customers'), 30_000, from)
      await r.restartDialer()
      await r.dialer.claimRounds()
      // The agent hangs up: the phone's far half, behind the desk context's own Local pair.
      const phone = asterisk.events
        .slice(from)
        .find(
          (e) => e.event === 'Newchannel' && named('Local/1041@agents')(e) && /;2$/.test(String(e.channel)),
        )
      await asterisk.admin.action({ action: 'Hangup', channel: String(phone?.channel), cause: 16 })
      const row = await settled(r, 'R-F')
      t.match(row, { dial_status: 'Received', call_count: 1, hangup_by: 'agent' })
      t.match((await r.attempts('R-F'))[0], { outcome: 'Received', agent_id: agentId })
    },
  )

  const PREDICTIVE = { DIAL_MODE: 'predictive' }

  t.test('predictive, talking to an agent: adopted, settled Received, not Abandoned', async (t) => {
    const r = await asteriskRig(t, database, asterisk, { env: PREDICTIVE })
    const agentId = await agent(r, '1001')
    const from = asterisk.events.length
    await r.push(lead('R-D', '5550009043'))
    await asterisk.waitForEvent(
      (e) =>
        e.event === 'DialEnd' &&
        e.dialstatus === 'ANSWER' &&
        String(e.destchannel ?? '').startsWith('Local/1001@agents'),
      30_000,
      from,
    )
    await r.restartDialer()
    await customerHangsUp(r, '5550009043', from)
    const row = await settled(r, 'R-D')
    t.match(row, { dial_status: 'Received', call_count: 1 })
    t.match((await r.attempts('R-D'))[0], { outcome: 'Received', agent_id: agentId })
  })

  t.test('predictive, on hold: adopted, queued again and connected to an agent who frees up', async (t) => {
    const r = await asteriskRig(t, database, asterisk, {
      env: { ...PREDICTIVE, HOLD_TIMEOUT_SECONDS: '120' },
    })
    // The only agent's desk is busy: the answered customer is sent there, refused, and held.
    const busyDesk = await agent(r, '3041')
    const from = asterisk.events.length
    await r.push(lead('R-H', '5550009044'))
    await asterisk.waitForEvent(
      (e) =>
        e.event === 'DialEnd' &&
        e.dialstatus === 'BUSY' &&
        String(e.destchannel ?? '').startsWith('Local/3041@agents'),
      30_000,
      from,
    )
    await r.restartDialer()
    await database.handle.kysely
      .updateTable('dialer_employee')
      .set({ is_active: 0 })
      .where('id', '=', busyDesk)
      .execute()
    const free = await agent(r, '1044')
    await asterisk.waitForEvent(
      (e) =>
        e.event === 'DialEnd' &&
        e.dialstatus === 'ANSWER' &&
        String(e.destchannel ?? '').startsWith('Local/1044@agents'),
      30_000,
      from,
    )
    await customerHangsUp(r, '5550009044', from)
    const row = await settled(r, 'R-H')
    t.match(row, { dial_status: 'Received', call_count: 1 })
    t.match((await r.attempts('R-H'))[0], { outcome: 'Received', agent_id: free })
  })
})
