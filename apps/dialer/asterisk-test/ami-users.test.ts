import { AmiClient } from '@hold-dialer/ami'
import { amiHealthConnection } from '@hold-dialer/api'
import { parseConfig } from '@hold-dialer/rules'
import t from 'tap'
import { startAsterisk } from './testbed.js'

// The AMI users of deploy/asterisk/manager.conf, as shipped: each can do its job and no more.
const asterisk = await startAsterisk(t)

function client(user: { username: string; secret: string }, events: boolean) {
  const c = new AmiClient({
    host: '127.0.0.1',
    port: asterisk.port,
    ...user,
    events,
    actionIdPrefix: 'users',
  })
  t.teardown(() => c.close())
  return c
}

t.test(
  "the API's health user logs in and answers Ping through the API's own health connection",
  async (t) => {
    const config = parseConfig(
      {
        WS_SECRET: 'x',
        AMI_HOST: '127.0.0.1',
        AMI_PORT: String(asterisk.port),
        AMI_USERNAME: asterisk.healthUser.username,
        AMI_SECRET: asterisk.healthUser.secret,
      },
      { hostZone: 'UTC' },
    )
    const health = amiHealthConnection(config)
    t.teardown(() => health.close())
    const end = Date.now() + 30_000
    while (!health.status().connected && Date.now() < end) await new Promise((r) => setTimeout(r, 25))
    t.match(health.status(), { connected: true, lastError: null })
    t.ok(health.status().lastPingMs !== null, 'a Ping was answered')
  },
)

t.test('the health user cannot originate, hang up or run CLI commands', async (t) => {
  const c = client(asterisk.healthUser, false)
  await c.start()
  t.equal(c.state, 'connected')
  for (const action of [
    {
      action: 'Originate',
      channel: 'Local/1001@agents',
      context: 'dialer-outbound',
      exten: '5550001001',
      priority: 1,
    },
    { action: 'Hangup', channel: 'Local/1001@agents-00000000;1' },
    { action: 'Command', command: 'core show version' },
  ]) {
    await t.rejects(c.action(action), { message: /Permission denied/ }, `${action.action} refused`)
  }
})

t.test("the dialer's user can do what the dialer does, and not run CLI commands", async (t) => {
  const c = client(asterisk.dialerUser, true)
  await c.start()
  t.equal(c.state, 'connected')
  t.ok(Array.isArray(await c.listAction({ action: 'DeviceStateList' })), 'DeviceStateList')
  t.ok(Array.isArray(await c.listAction({ action: 'ExtensionStateList' })), 'ExtensionStateList')
  t.ok(Array.isArray(await c.listAction({ action: 'CoreShowChannels' })), 'CoreShowChannels')
  t.ok(await c.action({ action: 'Getvar', variable: 'DEVICE_STATE(Local/1001@agents)' }), 'Getvar')
  t.ok(await c.action({ action: 'ExtensionState', exten: '1001', context: 'desks' }), 'ExtensionState')
  await t.rejects(c.action({ action: 'Command', command: 'core show version' }), {
    message: /Permission denied/,
  })
})
