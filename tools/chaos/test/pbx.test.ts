import { AmiClient } from '@hold-dialer/ami'
import t, { type Test } from 'tap'
import { HeldCheck, leadIdsOf } from '../src/held.js'
import { ChaosPbx, dialerOfActionId } from '../src/pbx.js'

// The PBX side of the checks, each shown to catch what it is there for: two calls at once to one
// customer or on one desk, and the calls placed, followed across a restart.

const TALKS = { kind: 'answer', ringSeconds: 1, talkSeconds: 600 } as const

async function setup(t: Test) {
  const originated: string[] = []
  const pbx = new ChaosPbx({
    agents: 3,
    timeScale: 10,
    seed: 1,
    outcomes: { '15550000001': TALKS, '15550000002': TALKS },
    onOriginate: (d) => originated.push(d),
  })
  await pbx.start()
  t.teardown(() => pbx.close())
  const ami = new AmiClient({
    host: '127.0.0.1',
    port: pbx.port,
    username: 'dialer',
    secret: 'dialer-pass',
    events: true,
    actionIdPrefix: 'chaos-7-4242',
    reconnectBaseMs: 20,
    reconnectMaxMs: 200,
  })
  await ami.start()
  t.teardown(() => ami.close())
  // As the dialer's progressive Originate: the desk rings first, then the customer from the dialplan.
  const call = (desk: string, number: string, key: string) =>
    ami.action({
      action: 'Originate',
      channel: `PJSIP/${desk}`,
      context: 'dialer-outbound',
      exten: `+${number}`,
      priority: 1,
      async: 'true',
      timeout: 30_000,
      channelid: key,
    })
  return { pbx, ami, call, originated }
}

async function until(what: string, check: () => boolean, ms = 300_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

t.test(
  'one customer rung by two calls at once is caught, and so is a desk rung while on a call',
  async (t) => {
    const { pbx, call, originated } = await setup(t)
    await call('6001', '15550000001', 'hd-1-aaaaaaaa')
    await until('the first customer rung', () => pbx.placed.has('hd-1-aaaaaaaa'))
    t.equal(pbx.numberOverlaps.size, 0)
    t.equal(pbx.agentOverlaps.size, 0)
    await call('6002', '15550000001', 'hd-1-bbbbbbbb')
    await until('the second call to the same customer', () => pbx.numberOverlaps.size > 0)
    t.match(
      [...pbx.numberOverlaps.values()][0],
      /^number 15550000001: calls hd-1-aaaaaaaa \(chaos-7\), hd-1-bbbbbbbb \(chaos-7\) live at once/,
    )
    await call('6001', '15550000002', 'hd-2-cccccccc')
    await until('the desk rung again', () => pbx.agentOverlaps.size > 0)
    t.match(
      [...pbx.agentOverlaps.values()][0],
      /^agent 6001: calls hd-1-aaaaaaaa \(chaos-7\), hd-2-cccccccc \(chaos-7\) live at once/,
    )
    t.same(originated, ['chaos-7', 'chaos-7', 'chaos-7'], "each Originate's dialer, from its ActionID")
    t.match(pbx.placed.get('hd-1-aaaaaaaa'), {
      number: '15550000001',
      generation: 1,
      dialerId: 'chaos-7',
      endedAt: null,
    })
    pbx.check()
    pbx.checkLogs()
    t.equal(pbx.numberOverlaps.size, 1, 'one overlap, counted once however often it is seen')
  },
)

t.test(
  'a restart drops the live calls, which count as cut, and the PBX comes back on its port',
  async (t) => {
    const { pbx, ami, call } = await setup(t)
    await call('6001', '15550000001', 'hd-1-aaaaaaaa')
    await until('rung', () => pbx.liveCallKeys().keys.has('hd-1-aaaaaaaa') && pbx.placed.has('hd-1-aaaaaaaa'))
    const port = pbx.port
    await pbx.restart(50)
    t.equal(pbx.port, port)
    t.equal(pbx.generation, 2)
    t.equal(pbx.restarts, 1)
    t.same(pbx.liveCallKeys(), { generation: 2, keys: new Set() })
    t.match(pbx.placed.get('hd-1-aaaaaaaa'), { cut: true, endedAt: Number })
    await until('the AMI client back', () => ami.state === 'connected')
    await call('6001', '15550000002', 'hd-2-bbbbbbbb')
    await until('rung on the new PBX', () => pbx.placed.get('hd-2-bbbbbbbb')?.generation === 2)
  },
)

t.test("an Originate's dialer is read from the ActionID the dialer's AMI client makes", async (t) => {
  t.equal(dialerOfActionId('chaos-2-31337-mx1a2b3c-17'), 'chaos-2')
  t.equal(dialerOfActionId('hd-12-lx9-1'), 'hd')
  t.equal(dialerOfActionId('odd'), null)
  t.equal(dialerOfActionId(null), null)
})

t.test('a live call whose lead is not held under its claim fails once the mismatch lasts', async (t) => {
  const check = new HeldCheck(1000)
  const live = new Set(['hd-1-aaaaaaaa', 'hd-2-bbbbbbbb', 'hd-3-cccccccc'])
  t.same(leadIdsOf(live), [1, 2, 3])
  const claims = new Map([
    [1, { live: true, token: 'aaaaaaaa' }],
    [2, { live: true, token: 'ffffffff' }],
    [3, { live: false, token: 'cccccccc' }],
  ])
  check.judge(live, live, claims, 0)
  t.equal(check.failures.size, 0, 'not at first sight: a settle and a hangup can cross')
  check.judge(live, new Set(['hd-1-aaaaaaaa', 'hd-2-bbbbbbbb']), claims, 1500)
  t.same([...check.failures.keys()], ['hd-2-bbbbbbbb'], 'lead 2 claimed again under its live call')
  t.match(check.failures.get('hd-2-bbbbbbbb'), /held under claim ffffffff/)
  check.judge(live, live, claims, 1600)
  check.judge(live, live, claims, 2700)
  t.same(
    [...check.failures.keys()],
    ['hd-2-bbbbbbbb', 'hd-3-cccccccc'],
    "lead 3's call ended in between: judged again from then",
  )
  check.judge(live, live, new Map(), 4000)
  t.match(check.failures.get('hd-1-aaaaaaaa'), undefined, 'a lead gone counts from when it is first seen so')
  check.judge(live, live, new Map(), 5000)
  t.match(check.failures.get('hd-1-aaaaaaaa'), /lead is gone/)
})
