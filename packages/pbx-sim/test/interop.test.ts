import { createRequire } from 'node:module'
import t from 'tap'
import { startPbxSim } from '../src/index.js'
import { callEnded } from './helpers/calls.js'

type AmiObject = Record<string, unknown>
interface Manager {
  on(event: string, listener: (e: AmiObject) => void): void
  once(event: string, listener: (e: AmiObject) => void): void
  action(action: AmiObject, callback?: (err: AmiObject | undefined, res: AmiObject) => void): string
  disconnect(): void
  isConnected(): boolean
}
type ManagerFactory = (port: number, host: string, user: string, secret: string, events: boolean) => Manager

/** asterisk-manager 0.2.0 is CommonJS without types; load it the way a CommonJS caller would. */
const AsteriskManager = createRequire(import.meta.url)('asterisk-manager') as ManagerFactory

function act(ami: Manager, action: AmiObject): Promise<AmiObject> {
  return new Promise((resolve, reject) => {
    ami.action(action, (err, res) =>
      err ? reject(Object.assign(new Error('AMI error'), { res: err })) : resolve(res),
    )
  })
}

function waitFor(ami: Manager, event: string, match: (e: AmiObject) => boolean): Promise<AmiObject> {
  return new Promise((resolve) => {
    const listener = (e: AmiObject): void => {
      if (match(e)) resolve(e)
    }
    ami.on(event, listener)
  })
}

t.test('asterisk-manager 0.2.0 drives a progressive call end to end', async (t) => {
  const sim = await startPbxSim({ timeScale: 1000, agentExtensions: ['1001'], users: { dialer: 'pw' } })
  t.teardown(() => sim.close())
  sim.setOutcome('5551234567', { kind: 'answer', ringSeconds: 2, talkSeconds: 10 })
  const ami = AsteriskManager(sim.port, '127.0.0.1', 'dialer', 'pw', true)
  t.teardown(() => ami.disconnect())
  const events: AmiObject[] = []
  ami.on('managerevent', (e) => events.push(e))

  // Actions queued before the login completes go out once it does (keys are sorted on the wire).
  const pong = await act(ami, { action: 'Ping' })
  t.equal(pong.response, 'Success')
  t.equal(pong.ping, 'Pong')

  const response = waitFor(ami, 'originateresponse', (e) => e.actionid === 'lead-42-attempt-1')
  const queued = await act(ami, {
    action: 'Originate',
    actionid: 'lead-42-attempt-1',
    channel: 'PJSIP/1001',
    context: 'dialer-outbound',
    exten: '5551234567',
    priority: 1,
    callerid: 'Dialer <5550000>',
    timeout: 30000,
    async: 'true',
    variable: { LEAD_ID: '42', ATTEMPT: '1' },
  })
  t.equal(queued.message, 'Originate successfully queued')
  t.equal(queued.actionid, 'lead-42-attempt-1')
  const originated = await response
  t.match(originated, { response: 'Success', reason: '4', channel: 'PJSIP/1001-00000000' })

  const record = await callEnded(sim, 'lead-42-attempt-1')
  t.match(record, { outcome: 'answered', variables: { LEAD_ID: '42', ATTEMPT: '1' } })
  const hangup = await waitFor(ami, 'hangup', (e) => e.channel === 'PJSIP/1001-00000000')
  t.equal(hangup['cause-txt'], 'Normal Clearing', 'keys arrive lower-cased')
  t.ok(
    events.some((e) => e.event === 'FullyBooted'),
    'events flow although the library sent Event: not Events:',
  )
  t.ok(events.some((e) => e.event === 'DialEnd' && e.dialstatus === 'ANSWER'))

  const list = await act(ami, { action: 'DeviceStateList' })
  t.equal(list.eventlist, 'start')
  const denied = await act(ami, { action: 'Frobnicate' }).catch((err: { res: AmiObject }) => err.res)
  t.equal(denied.response, 'Error')
})

t.test('asterisk-manager sees the connection close after a failed login', async (t) => {
  const sim = await startPbxSim({ authFailureDelayMs: 10 })
  t.teardown(() => sim.close())
  const ami = AsteriskManager(sim.port, '127.0.0.1', 'admin', 'wrong', false)
  const closed = new Promise<void>((resolve) => ami.once('close', () => resolve()))
  const refused = new Promise<AmiObject>((resolve) => ami.on('response', (e) => resolve(e)))
  t.match(await refused, { response: 'Error', message: 'Authentication failed' })
  await closed
  t.notOk(ami.isConnected())
})
