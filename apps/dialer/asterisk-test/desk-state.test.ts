import { header } from '@hold-dialer/ami'
import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import t from 'tap'
import { lead } from '../test/harness.js'
import { agent, asteriskRig, memoryLogger, settled, startAsterisk } from './testbed.js'

// Agent readiness from Asterisk's own device states: a desk Asterisk never listed, a custom device
// state, and a hint (AGENT_DEVICE_TEMPLATE).
const asterisk = await startAsterisk(t)

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
    await r.push(lead('S-CUSTOM', '5550001042'))
    // The claim loop runs every 30 ms; give it many rounds with the desk in use before freeing it.
    await r.until(
      'the dialer ran claim rounds',
      () => r.dialer.stats.claims === 0 && r.ami.state === 'connected',
    )
    const freedAt = toDbTime(new Date())
    await asterisk.setCustomDeviceState('desk1012', 'NOT_INUSE')
    t.match(await settled(r, 'S-CUSTOM'), { dial_status: 'Received' })
    const [attempt] = await r.attempts('S-CUSTOM')
    t.ok(String(attempt?.started_at) >= freedAt, 'not dialed while the desk was in use')
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
    await r.push(lead('S-UNKNOWN', '5550001043'))
    await r.until('the warning', () =>
      lines.some((l) => String(l.msg).startsWith('Asterisk reports no usable state')),
    )
    const warned = lines.filter((l) => String(l.msg).startsWith('Asterisk reports no usable state'))
    t.match(warned, [{ extension: ext, desk: `Custom:desk${ext}` }])
    const freedAt = toDbTime(new Date())
    await asterisk.setCustomDeviceState(`desk${ext}`, 'NOT_INUSE')
    t.match(await settled(r, 'S-UNKNOWN'), { dial_status: 'Received' })
    t.ok(String((await r.attempts('S-UNKNOWN'))[0]?.started_at) >= freedAt, 'dialed only after')
  })

  t.test("hint:{extension}@desks: the hint's state decides (ExtensionStatus)", async (t) => {
    await asterisk.setCustomDeviceState('desk1009', 'BUSY')
    const r = await asteriskRig(t, database, asterisk, {
      env: { AGENT_DEVICE_TEMPLATE: 'hint:{extension}@desks' },
    })
    await agent(r, '1009')
    await r.push(lead('S-HINT', '5550001044'))
    await r.until('connected', () => r.ami.state === 'connected')
    const freedAt = toDbTime(new Date())
    await asterisk.setCustomDeviceState('desk1009', 'NOT_INUSE')
    t.match(await settled(r, 'S-HINT'), { dial_status: 'Received' })
    t.ok(
      String((await r.attempts('S-HINT'))[0]?.started_at) >= freedAt,
      'not dialed while the hint said busy',
    )
  })
})
