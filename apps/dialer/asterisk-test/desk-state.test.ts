import { header } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import t, { type Test } from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, settled, startAsterisk } from './testbed.js'

// Agent readiness from Asterisk's own device states: a desk Asterisk never listed, a custom device
// state, and a hint (AGENT_DEVICE_TEMPLATE).
const asterisk = await startAsterisk(t)

/**
 * Asserts that the desk's channel was created only after Asterisk announced the desk idle: both are
 * events on the one recording connection, in Asterisk's own order.
 */
function dialedOnlyAfterIdle(t: Test, from: number, extension: string, device: string) {
  const events = asterisk.events.slice(from)
  const idle = events.findIndex(
    (e) => e.event === 'DeviceStateChange' && e.device === device && e.state === 'NOT_INUSE',
  )
  const dialed = events.findIndex(
    (e) => e.event === 'Newchannel' && String(e.channel).startsWith(`Local/${extension}@agents`),
  )
  t.ok(idle >= 0 && dialed > idle, `the desk was rung only after ${device} became NOT_INUSE`)
}

forEachDialect(t, async (t, database) => {
  t.test(
    'a Local desk that never changed state since Asterisk started is asked for, and dialed',
    async (t) => {
      const listed = await asterisk.admin.listAction({ action: 'DeviceStateList' })
      t.notOk(
        listed.some((d) => header(d, 'device') === 'Local/1011@agents'),
        'Asterisk does not list the desk',
      )
      const r = await asteriskRig(t, database, asterisk)
      await agent(r, '1011')
      await r.push(lead('S-LOCAL', '5550001041'))
      t.match(await settled(r, 'S-LOCAL'), { dial_status: 'Received' })
    },
  )

  t.test('Custom:desk{extension}: dialed only once the custom state says NOT_INUSE', async (t) => {
    await asterisk.setCustomDeviceState('desk1012', 'INUSE')
    const r = await asteriskRig(t, database, asterisk, {
      env: { AGENT_DEVICE_TEMPLATE: 'Custom:desk{extension}' },
    })
    await agent(r, '1012')
    const from = asterisk.events.length
    await r.push(lead('S-CUSTOM', '5550001042'))
    // Whole claim rounds with the desk in use (each one saw the lead and the desk) before freeing it.
    await r.dialer.claimRounds(3)
    t.equal(r.dialer.stats.claims, 0, 'nothing claimed while the desk was in use')
    await asterisk.setCustomDeviceState('desk1012', 'NOT_INUSE')
    t.match(await settled(r, 'S-CUSTOM'), { dial_status: 'Received' })
    dialedOnlyAfterIdle(t, from, '1012', 'Custom:desk1012')
  })

  t.test('a desk Asterisk knows nothing about: one warning, not dialed until it has a state', async (t) => {
    // Its own desk per database: the state set below stays in Asterisk for the next dialect's run.
    const ext = database.dialect === 'sqlite' ? '1013' : '1014'
    const { logger, lines } = memoryLogger()
    const r = await asteriskRig(t, database, asterisk, {
      env: { AGENT_DEVICE_TEMPLATE: 'Custom:desk{extension}' },
      logger,
    })
    await agent(r, ext)
    const from = asterisk.events.length
    await r.push(lead('S-UNKNOWN', '5550001043'))
    const warning = 'Asterisk does not know this desk'
    await r.until('the warning', () => lines.some((l) => String(l.msg).startsWith(warning)))
    await r.dialer.claimRounds(3)
    const warned = lines.filter((l) => String(l.msg).startsWith(warning))
    t.match(warned, [{ extension: ext, desk: `Custom:desk${ext}`, state: 'UNKNOWN' }])
    t.equal(r.dialer.stats.claims, 0, 'nothing claimed for a desk in an unknown state')
    await asterisk.setCustomDeviceState(`desk${ext}`, 'NOT_INUSE')
    t.match(await settled(r, 'S-UNKNOWN'), { dial_status: 'Received' })
    dialedOnlyAfterIdle(t, from, ext, `Custom:desk${ext}`)
  })

  t.test("hint:{extension}@desks: the hint's state decides (ExtensionStatus)", async (t) => {
    await asterisk.setCustomDeviceState('desk1009', 'BUSY')
    const r = await asteriskRig(t, database, asterisk, {
      env: { AGENT_DEVICE_TEMPLATE: 'hint:{extension}@desks' },
    })
    await agent(r, '1009')
    const from = asterisk.events.length
    await r.push(lead('S-HINT', '5550001044'))
    await r.dialer.claimRounds(3)
    t.equal(r.dialer.stats.claims, 0, 'nothing claimed while the hint said busy')
    await asterisk.setCustomDeviceState('desk1009', 'NOT_INUSE')
    t.match(await settled(r, 'S-HINT'), { dial_status: 'Received' })
    dialedOnlyAfterIdle(t, from, '1009', 'Custom:desk1009')
  })
})
