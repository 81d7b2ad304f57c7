import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { lead, rig } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, settled, startAsterisk } from './testbed.js'

// Asterisk stopped (`core stop now`) or killed (SIGKILL) in the middle of calls, then started again:
// the dialer reconnects, settles what it knew, and leaves no lead reserved.
const asterisk = await startAsterisk(t)

const stops = [
  { how: 'core stop now', stop: () => asterisk.coreStopNow() },
  { how: 'kill -9', stop: () => asterisk.kill() },
]

forEachDialect(t, async (t, database) => {
  for (const { how, stop } of stops) {
    t.test(`${how} while the customer rings: settled Not Connected once Asterisk is back`, async (t) => {
      const r = await asteriskRig(t, database, asterisk, { env: { RING_TIMEOUT_SECONDS: '60' } })
      await agent(r, '1001')
      const oli = `F-RING-${how}`
      const from = asterisk.events.length
      await r.push(lead(oli, '5550004031'))
      await r.until(
        'the customer rings',
        () =>
          asterisk.events
            .slice(from)
            .some(
              (e) =>
                e.event === 'Newstate' &&
                String(e.channel).startsWith('Local/+5550004031@customers') &&
                e.channelstatedesc === 'Ringing',
            ),
        30_000,
      )
      await stop()
      await asterisk.restart()
      const row = await settled(r, oli)
      t.match(row, { dial_status: 'Not Connected', call_count: 1, isReserved: 0, reserved_by: null })
      t.equal(
        (
          await r.database.handle.kysely
            .selectFrom('dialer_employee')
            .select('on_call_by')
            .where('extension', '=', '1001')
            .executeTakeFirst()
        )?.on_call_by,
        null,
        'agent released',
      )
    })

    t.test(`${how} while talking: settled Received once Asterisk is back`, async (t) => {
      const r = await asteriskRig(t, database, asterisk)
      await agent(r, '1001')
      const oli = `F-TALK-${how}`
      const from = asterisk.events.length
      await r.push(lead(oli, '5550009031'))
      await r.until(
        'talking',
        () =>
          asterisk.events
            .slice(from)
            .some(
              (e) => e.event === 'BridgeEnter' && String(e.channel).startsWith('Local/+5550009031@customers'),
            ),
        30_000,
      )
      await stop()
      await asterisk.restart()
      t.match(await settled(r, oli), { dial_status: 'Received', call_count: 1, isReserved: 0 })
    })
  }

  t.test(
    'predictive, kill -9 while a customer is on hold: settled once Asterisk is back, nothing reserved',
    async (t) => {
      const r = await asteriskRig(t, database, asterisk, {
        env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '60' },
      })
      await agent(r, '2001')
      const from = asterisk.events.length
      await r.push(lead('F-HOLD', '5550009032'))
      await r.until(
        'answered',
        () =>
          asterisk.events
            .slice(from)
            .some((e) => e.event === 'DialBegin' && String(e.destchannel).startsWith('Local/2001@agents')),
        30_000,
      )
      await asterisk.kill()
      await asterisk.restart()
      t.match(await settled(r, 'F-HOLD'), { dial_status: 'Abandoned', call_count: 1, isReserved: 0 })
    },
  )

  t.test("a wrong AMI secret is logged once with Asterisk's message, not at every retry", async (t) => {
    const { logger, lines } = memoryLogger()
    const r = await rig(
      t,
      database,
      { port: asterisk.port, username: asterisk.dialerUser.username, secret: 'not-the-secret' },
      { logger, startDialer: false },
    )
    let downs = 0
    r.ami.on('state', (s: string) => {
      if (s === 'down') downs += 1
    })
    void r.startDialer()
    await r.until('three failed logins', () => downs >= 3)
    const failures = lines.filter((l) => l.msg === 'AMI unavailable; reconnecting')
    t.equal(failures.length, 1, 'one line for three failed logins')
    t.match(failures[0], { reason: /Authentication failed/ })
    t.notOk(JSON.stringify(lines).includes('not-the-secret'), 'the secret is never logged')
  })
})
