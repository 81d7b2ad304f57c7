import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, PINNED, settled, startAsterisk } from './testbed.js'

// Pinned callbacks (Mode B) on a real Asterisk 22 when the pinned agent's desk does not answer or is
// busy after the customer answered (the rest of Mode B is in pinned.test.ts).
const asterisk = await startAsterisk(t)

forEachDialect(t, async (t, database) => {
  t.test(
    "progressive: the pinned agent's desk does not answer: restored with its pin, no RNR mail",
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: { ...PINNED, DIAL_MODE: 'progressive' } })
      const pinned = await agent(r, '2002')
      await r.push(lead('G-AGF', '5550002022', { agent_id: pinned }))
      await r.until('restored', () => r.dialer.stats.restored > 0)
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
      const row = await settled(r, 'V-AB')
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
