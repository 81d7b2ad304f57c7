import { AmiClient } from '@hold-dialer/ami'
import { startPbxSim } from '@hold-dialer/pbx-sim'
import pino from 'pino'
import t, { type Test } from 'tap'
import { type CallResult, CallTracker, type TrackedCall } from '../src/calls/call-tracker.js'
import { CLAIM_RECHECK_MS, originateCall } from '../src/calls/originate-call.js'

// A claim that aged before its call was placed (a paused dialer, a slow database) is checked again:
// another dialer may have released it as stale and dialed the lead meanwhile.

const STARTED = new Date('2026-11-28T10:00:00.000Z')

async function setup(t: Test, nowMs: number) {
  const sim = await startPbxSim({ port: 0, users: { dialer: 'dialer-pass' }, agentExtensions: ['4201'] })
  t.teardown(() => sim.close())
  const ami = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'dialer',
    secret: 'dialer-pass',
    events: true,
  })
  await ami.start()
  t.teardown(() => ami.close())
  const finished: Array<{ call: TrackedCall; result: CallResult }> = []
  const now = () => new Date(nowMs)
  const calls = new CallTracker(now, (call, result) => finished.push({ call, result }))
  ami.on('event', (e) => calls.handle(e))
  const asked: Array<[number, string]> = []
  const place = (held: boolean) =>
    originateCall(
      {
        ami,
        calls,
        logger: pino({ level: 'silent' }),
        fence: {
          now,
          held: async (leadId, token) => {
            asked.push([leadId, token])
            return held
          },
        },
      },
      {
        leadId: 7,
        oliId: 'OC-7',
        phone: '5553200007',
        phoneE164: '+15553200007',
        claimToken: '0badc0de',
        agent: null,
        startedAt: STARTED,
        deadline: new Date(STARTED.getTime() + 60_000),
        originateDeadline: new Date(STARTED.getTime() + 60_000),
      },
      ({ key, actionId }) => ({
        action: 'Originate',
        channel: 'Local/5553200007@customers',
        context: 'dialer-outbound',
        exten: 's',
        priority: 1,
        async: 'true',
        channelid: key,
        actionid: actionId,
      }),
      {},
    )
  return { sim, finished, asked, place }
}

t.test('a claim lost while it aged: not dialed, settled as never placed', async (t) => {
  const s = await setup(t, STARTED.getTime() + CLAIM_RECHECK_MS + 1)
  t.equal(await s.place(false), false)
  t.same(s.asked, [[7, '0badc0de']], 'the lead and the claim token were checked')
  t.equal(s.sim.originateCount(), 0, 'no Originate sent')
  t.equal(s.finished.length, 1)
  t.match(s.finished[0], {
    call: { key: 'hd-7-0badc0de' },
    result: { outcome: 'Failed', why: 'claim lost before the call was placed' },
  })
})

t.test('an aged claim still held: dialed', async (t) => {
  const s = await setup(t, STARTED.getTime() + CLAIM_RECHECK_MS + 1)
  t.equal(await s.place(true), true)
  t.equal(s.asked.length, 1)
  t.equal(s.sim.originateCount(), 1)
})

t.test('a fresh claim: dialed without a check', async (t) => {
  const s = await setup(t, STARTED.getTime() + 10)
  t.equal(await s.place(false), true)
  t.equal(s.asked.length, 0, 'not asked')
  t.equal(s.sim.originateCount(), 1)
})
