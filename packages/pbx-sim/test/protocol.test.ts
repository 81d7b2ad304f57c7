import { createHash } from 'node:crypto'
import t from 'tap'
import { startPbxSim } from '../src/index.js'
import { delay, loggedIn, TestClient } from './helpers/client.js'

t.test('greeting, login, FullyBooted, ping and logoff', async (t) => {
  const sim = await startPbxSim({ amiVersion: '11.0.0', users: { dialer: 's3cret' } })
  t.teardown(() => sim.close())
  const c = await TestClient.connect(sim.port)
  t.equal(c.greeting, 'Asterisk Call Manager/11.0.0')
  const res = await c.login('dialer', 's3cret')
  t.same(res.fields, [
    ['Response', 'Success'],
    ['ActionID', 't1'],
    ['Message', 'Authentication accepted'],
  ])
  const booted = await c.waitForEvent('FullyBooted')
  t.same(
    booted.fields.map(([k]) => k),
    ['Event', 'Privilege', 'Uptime', 'LastReload', 'Status'],
  )
  t.equal(booted.get('Privilege'), 'system,all')
  t.equal(booted.get('Status'), 'Fully Booted')

  const again = await c.login('dialer', 's3cret')
  t.equal(again.get('Message'), 'Already authenticated')

  const pong = await c.action([['Action', 'Ping']])
  t.same(
    pong.fields.map(([k]) => k),
    ['Response', 'ActionID', 'Ping', 'Timestamp'],
  )
  t.equal(pong.get('Ping'), 'Pong')
  t.match(pong.get('Timestamp'), /^\d{10}\.\d{6}$/)

  const bye = await c.action([['Action', 'Logoff']])
  t.same(bye.fields, [
    ['Response', 'Goodbye'],
    ['ActionID', 't4'],
    ['Message', 'Thanks for all the fish.'],
  ])
  await c.closed
})

t.test('a wrong secret is refused after the delay and the connection closes', async (t) => {
  const sim = await startPbxSim({ authFailureDelayMs: 50 })
  t.teardown(() => sim.close())
  const c = await TestClient.connect(sim.port)
  const started = Date.now()
  const res = await c.login('admin', 'wrong')
  t.ok(Date.now() - started >= 45, 'answered after the pause')
  t.equal(res.get('Response'), 'Error')
  t.equal(res.get('Message'), 'Authentication failed')
  await c.closed
  const unknownUser = await TestClient.connect(sim.port)
  t.equal((await unknownUser.login('nobody', 'x')).get('Message'), 'Authentication failed')
  await unknownUser.closed
  const noUser = await TestClient.connect(sim.port)
  const r = await noUser.action([
    ['Action', 'Login'],
    ['Secret', 'x'],
  ])
  t.equal(r.get('Response'), 'Error')
  await noUser.closed
})

t.test('actions before login are denied; unknown and missing actions are errors', async (t) => {
  const sim = await startPbxSim()
  t.teardown(() => sim.close())
  const c = await TestClient.connect(sim.port)
  const denied = await c.action([['Action', 'Ping']])
  t.same(denied.fields, [
    ['Response', 'Error'],
    ['ActionID', 't1'],
    ['Message', 'Permission denied'],
  ])
  await c.login()
  const unknown = await c.action([['Action', 'Frobnicate']])
  t.equal(unknown.get('Response'), 'Error')
  t.match(unknown.get('Message'), /^Invalid\/unknown command: Frobnicate\./)
  const missing = await c.action([['Foo', 'bar']])
  t.equal(missing.get('Message'), 'Missing action in request')
  await c.close()
})

t.test('framing: split writes, several messages per write, any header case, Action not first', async (t) => {
  const sim = await startPbxSim()
  t.teardown(() => sim.close())
  const c = await TestClient.connect(sim.port)
  const login = 'actionid: L1\r\nsecret: admin\r\nUSERNAME: admin\r\nACTION: login\r\n\r\n'
  for (const ch of login) c.write(ch)
  await c.waitFor((m) => m.get('ActionID') === 'L1')
  c.write(
    'ActionID: P1\r\nAction: Ping\r\n\r\nActionID: P2\nAction: PING\n\nActionID: P3\r\naction: ping\r\n\r\n',
  )
  for (const id of ['P1', 'P2', 'P3']) {
    const r = await c.waitFor((m) => m.get('ActionID') === id)
    t.equal(r.get('Ping'), 'Pong', id)
  }
  t.same(
    c.messages.filter((m) => m.get('Ping')).map((m) => m.get('ActionID')),
    ['P1', 'P2', 'P3'],
    'replies in request order',
  )
  await c.close()
})

t.test('MD5 challenge login', async (t) => {
  const sim = await startPbxSim({ users: { mgr: 'pw' }, authFailureDelayMs: 10 })
  t.teardown(() => sim.close())
  const c = await TestClient.connect(sim.port)
  const bad = await c.action([
    ['Action', 'Challenge'],
    ['AuthType', 'plain'],
  ])
  t.equal(bad.get('Message'), 'Must specify AuthType')
  const ch = await c.action([
    ['Action', 'Challenge'],
    ['AuthType', 'MD5'],
  ])
  const challenge = ch.get('Challenge') ?? ''
  t.match(challenge, /^\d+$/)
  const key = createHash('md5').update(`${challenge}pw`).digest('hex')
  const ok = await c.action([
    ['Action', 'Login'],
    ['AuthType', 'MD5'],
    ['Username', 'mgr'],
    ['Key', key],
  ])
  t.equal(ok.get('Message'), 'Authentication accepted')
  await c.close()

  const d = await TestClient.connect(sim.port)
  const noChallenge = await d.action([
    ['Action', 'Login'],
    ['AuthType', 'MD5'],
    ['Username', 'mgr'],
    ['Key', key],
  ])
  t.equal(noChallenge.get('Response'), 'Error')
})

t.test('Events: off sends no events; the Events action switches them', async (t) => {
  const sim = await startPbxSim({ agentExtensions: ['1001'] })
  t.teardown(() => sim.close())
  const quiet = await loggedIn(sim.port, 'off')
  const loud = await loggedIn(sim.port, 'on')
  const callOnly = await loggedIn(sim.port, 'call')
  sim.setAgentDevice('1001', 'busy')
  await loud.waitForEvent('DeviceStateChange', { State: 'BUSY' })
  await callOnly.waitForEvent('DeviceStateChange', { State: 'BUSY' })
  t.equal(callOnly.events('FullyBooted').length, 0, 'no system events for a call-only mask')
  t.equal(quiet.events().length, 0)
  const on = await quiet.action([
    ['Action', 'Events'],
    ['EventMask', 'on'],
  ])
  t.equal(on.get('Events'), 'On')
  sim.setAgentDevice('1001', 'idle')
  await quiet.waitForEvent('DeviceStateChange', { State: 'NOT_INUSE' })
  const off = await quiet.action([
    ['Action', 'Events'],
    ['EventMask', 'off'],
  ])
  t.equal(off.get('Events'), 'Off')
  await Promise.all([quiet.close(), loud.close(), callOnly.close()])
})

t.test('login delay and paused replies', async (t) => {
  const sim = await startPbxSim()
  t.teardown(() => sim.close())
  sim.setLoginDelayMs(60)
  const c = await TestClient.connect(sim.port)
  const started = Date.now()
  await c.login()
  t.ok(Date.now() - started >= 55, 'login reply delayed')
  sim.setLoginDelayMs(0)

  sim.pauseReplies()
  const ping = c.action([['Action', 'Ping']])
  let answered = false
  void ping.then(() => {
    answered = true
  })
  await delay(50)
  t.notOk(answered, 'no reply while paused')
  sim.resumeReplies()
  t.equal((await ping).get('Ping'), 'Pong')
  await c.close()
})

t.test('a client that leaves during a delayed login gets nothing', async (t) => {
  const sim = await startPbxSim()
  t.teardown(() => sim.close())
  sim.setLoginDelayMs(40)
  const c = await TestClient.connect(sim.port)
  c.send([
    ['Action', 'Login'],
    ['Username', 'admin'],
    ['Secret', 'admin'],
  ])
  await c.close()
  // The server sees the close when its socket does: waited for, however slow the machine.
  const deadline = Date.now() + 300_000
  while (sim.connectionCount() > 0 && Date.now() < deadline) await delay(10)
  t.equal(sim.connectionCount(), 0)
})
