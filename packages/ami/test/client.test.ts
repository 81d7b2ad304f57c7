import { startPbxSim } from '@hold-dialer/pbx-sim'
import t from 'tap'
import { AmiActionError, AmiClient, type AmiState, header } from '../src/index.js'

function waitForState(client: AmiClient, wanted: AmiState): Promise<void> {
  if (client.state === wanted) return Promise.resolve()
  return new Promise((resolve) => {
    const on = (s: AmiState) => {
      if (s === wanted) {
        client.off('state', on)
        resolve()
      }
    }
    client.on('state', on)
  })
}

t.test('logs in, pings, answers actions with its own ActionIDs, closes', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'secret1' } })
  t.teardown(() => sim.close())
  const client = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    secret: 'secret1',
    events: false,
  })
  await client.start()
  t.equal(client.state, 'connected')
  const s = client.status()
  t.ok(s.lastPingAt instanceof Date, 'a Ping was answered during start')
  t.type(s.lastPingMs, 'number')
  const reply = await client.action({ action: 'Ping', actionid: 'my-id-1' })
  t.equal(header(reply, 'response'), 'Success')
  t.equal(header(reply, 'actionid'), 'my-id-1', 'a caller-supplied ActionID is kept as sent')
  await client.close()
  t.equal(client.state, 'closed')
  await t.rejects(client.action({ action: 'Ping' }), AmiActionError)
})

t.test('an error reply rejects with the message; an unanswered action times out', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'a' } })
  t.teardown(() => sim.close())
  const client = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    secret: 'a',
    events: false,
    actionTimeoutMs: 300,
  })
  t.teardown(() => client.close())
  await client.start()
  await t.rejects(client.action({ action: 'NoSuchAction' }), /Invalid\/unknown command/)
  sim.pauseReplies()
  await t.rejects(client.action({ action: 'Ping' }, 100), /no reply within 100 ms/)
  sim.resumeReplies()
})

t.test('wrong secret: stays down with the reason, keeps retrying, never throws', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'right' } })
  t.teardown(() => sim.close())
  const client = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    secret: 'wrong',
    events: false,
    reconnectBaseMs: 20,
    reconnectMaxMs: 50,
  })
  t.teardown(() => client.close())
  void client.start()
  await waitForState(client, 'down')
  t.match(client.status().lastError, /Authentication failed|login failed/)
  t.notMatch(JSON.stringify(client.status()), /wrong/, 'the secret is not in the status')
})

t.test('reconnects by itself after the connection drops, and events flow when asked for', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'a' } })
  t.teardown(() => sim.close())
  const client = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    secret: 'a',
    events: true,
    reconnectBaseMs: 20,
    reconnectMaxMs: 50,
  })
  t.teardown(() => client.close())
  await client.start()
  const states: AmiState[] = []
  client.on('state', (s: AmiState) => states.push(s))
  sim.dropConnections()
  await waitForState(client, 'down')
  await waitForState(client, 'connected')
  t.same(states.slice(0, 1), ['down'])
  t.equal(client.state, 'connected')
  sim.addAgent('1001')
  const events: string[] = []
  client.on('event', (e) => events.push(String(header(e, 'event'))))
  sim.setAgentDevice('1001', 'busy')
  // Polled until it arrives (a deadline, not a count of short sleeps, so a loaded machine waits longer).
  const deadline = Date.now() + 300_000
  while (!events.includes('DeviceStateChange') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 10))
  t.ok(events.includes('DeviceStateChange'), `events received: ${events.join(',')}`)
})

t.test('server gone: reports down and comes back when it returns on the same port', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'a' } })
  const port = sim.port
  const client = new AmiClient({
    host: '127.0.0.1',
    port,
    username: 'admin',
    secret: 'a',
    events: false,
    reconnectBaseMs: 20,
    reconnectMaxMs: 50,
  })
  t.teardown(() => client.close())
  await client.start()
  await sim.close()
  await waitForState(client, 'down')
  const again = await startPbxSim({ port, users: { admin: 'a' } })
  t.teardown(() => again.close())
  await waitForState(client, 'connected')
  t.equal(client.state, 'connected')
})

t.test('a Ping that goes unanswered drops the link (watchdog)', async (t) => {
  const sim = await startPbxSim({ port: 0, users: { admin: 'a' } })
  t.teardown(() => sim.close())
  const client = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    secret: 'a',
    events: false,
    pingIntervalMs: 50,
    actionTimeoutMs: 50,
    reconnectBaseMs: 1000,
  })
  t.teardown(() => client.close())
  await client.start()
  sim.pauseReplies()
  await waitForState(client, 'down')
  t.match(client.status().lastError, /ping failed|no reply/)
})
