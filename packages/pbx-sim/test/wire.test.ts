import t from 'tap'
import { parseCallerId, parseVariables } from '../src/ami/actions/originate.js'
import { causeText } from '../src/causes.js'
import { SimClock } from '../src/clock.js'
import { resolvePlan } from '../src/model/customerPlan.js'
import { normalizeNumber, parseDialString } from '../src/model/dialstring.js'
import { Rng } from '../src/rng.js'
import { formatMessage } from '../src/wire/format.js'
import { AmiMessage } from '../src/wire/message.js'
import { AmiParser, parseLine } from '../src/wire/parser.js'

t.test('parser frames messages across arbitrary chunk boundaries', async (t) => {
  const wire = 'Action: Ping\r\nActionID: 1\r\n\r\nAction: Login\r\nUsername: a\r\n\r\n'
  for (const size of [1, 2, 3, 7, wire.length]) {
    const parser = new AmiParser()
    const got: AmiMessage[] = []
    for (let i = 0; i < wire.length; i += size) got.push(...parser.push(wire.slice(i, i + size)))
    t.equal(got.length, 2, `chunk size ${size}`)
    t.equal(got[0]?.get('action'), 'Ping')
    t.equal(got[1]?.get('USERNAME'), 'a')
  }
})

t.test('parser accepts bare LF, skips blank lines between messages, keeps colons in values', async (t) => {
  const parser = new AmiParser()
  const got = parser.push('\r\n\nAction: Setvar\nValue: a: b:c\nJunkLine\n\n')
  t.equal(got.length, 1)
  t.equal(got[0]?.get('Value'), 'a: b:c')
  t.equal(got[0]?.get('JunkLine'), '')
  t.same(parseLine('Key:value'), ['Key', 'value'])
  t.same(parseLine('  Key :   spaced'), ['Key', 'spaced'])
})

t.test('parser drops an absurdly long unterminated line', async (t) => {
  const parser = new AmiParser()
  t.same(parser.push('x'.repeat(70_000)), [])
  t.equal(parser.push('Action: Ping\r\n\r\n').length, 1)
})

t.test('AmiMessage lookups are case-insensitive and keep repeats', async (t) => {
  const msg = new AmiMessage([
    ['Action', ''],
    ['action', 'Originate'],
    ['Variable', 'a=1'],
    ['VARIABLE', 'b=2'],
  ])
  t.equal(msg.get('ACTION'), '')
  t.equal(msg.getNonEmpty('Action'), 'Originate')
  t.equal(msg.getNonEmpty('Missing'), undefined)
  t.same(msg.getAll('variable'), ['a=1', 'b=2'])
  t.same(msg.toObject(), { Action: '', action: 'Originate', Variable: 'a=1', VARIABLE: 'b=2' })
  t.same(parseVariables(msg), { a: '1', b: '2' })
  t.same(parseVariables(new AmiMessage([['Variable', 'x=1,y=a=b,=bad,noeq']])), { x: '1', y: 'a=b' })
})

t.test('formatMessage writes CRLF lines and a blank line', async (t) => {
  t.equal(
    formatMessage([
      ['Response', 'Success'],
      ['Ping', 'Pong'],
    ]),
    'Response: Success\r\nPing: Pong\r\n\r\n',
  )
})

t.test('dial strings', async (t) => {
  t.match(parseDialString('PJSIP/1001'), {
    tech: 'PJSIP',
    user: '1001',
    channelBase: 'PJSIP/1001',
    isLocal: false,
  })
  t.match(parseDialString('PJSIP/5551234567@trunk'), { user: '5551234567', channelBase: 'PJSIP/trunk' })
  t.match(parseDialString('PJSIP/trunk/sip:5551234567@10.0.0.1'), {
    user: '5551234567',
    channelBase: 'PJSIP/trunk',
  })
  t.match(parseDialString('SIP/trunk/5551234567'), { user: '5551234567', channelBase: 'SIP/trunk' })
  t.match(parseDialString('Local/1001@from-internal/n'), {
    user: '1001',
    channelBase: 'Local/1001@from-internal',
    isLocal: true,
  })
  t.match(parseDialString('Local/1001'), { channelBase: 'Local/1001@default' })
  t.equal(parseDialString('nodata'), null)
  t.equal(parseDialString('PJSIP/'), null)
  t.equal(normalizeNumber('+1 (555) 123-4567'), '15551234567')
  t.equal(normalizeNumber('s'), 's')
})

t.test('caller id parsing', async (t) => {
  t.same(parseCallerId('"Dialer" <5550000>'), { name: 'Dialer', num: '5550000' })
  t.same(parseCallerId('Sales Line <5550001>'), { name: 'Sales Line', num: '5550001' })
  t.same(parseCallerId('<5550002>'), { name: '', num: '5550002' })
  t.same(parseCallerId('(555) 000-0003'), { name: '', num: '5550000003' })
  t.same(parseCallerId('Only Name'), { name: 'Only Name', num: '' })
  t.same(parseCallerId(undefined), { name: '', num: '' })
})

t.test('rng is reproducible and exponential has roughly the mean', async (t) => {
  const a = new Rng(42)
  const b = new Rng(42)
  t.same([a.next(), a.next(), a.next()], [b.next(), b.next(), b.next()])
  const r = new Rng(7)
  let sum = 0
  for (let i = 0; i < 20_000; i++) sum += r.exponential(10)
  t.ok(Math.abs(sum / 20_000 - 10) < 0.5)
  t.match(new Rng(1).uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/)
})

t.test('scripts resolve to plans', async (t) => {
  const rng = new Rng(1)
  t.match(resolvePlan({ kind: 'answer', ringSeconds: 2, talkSeconds: 9 }, rng), {
    result: 'answer',
    ringSeconds: 2,
    talkSeconds: 9,
    patienceSeconds: null,
    endedBy: 'customer',
  })
  t.match(resolvePlan({ kind: 'noanswer' }, rng), {
    result: 'noanswer',
    ringSeconds: Number.POSITIVE_INFINITY,
  })
  t.match(resolvePlan({ kind: 'reject' }, rng), { result: 'reject', ringSeconds: 0 })
  t.match(resolvePlan({ kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 4 }, rng), {
    result: 'answer',
    patienceSeconds: 4,
  })
  const random = {
    kind: 'random',
    answerProbability: 0.5,
    busyProbability: 0.2,
    ringSeconds: { mean: 5 },
    talkSeconds: { mean: 60 },
    patienceSeconds: { mean: 8 },
  } as const
  const counts: Record<string, number> = {}
  for (let i = 0; i < 2000; i++) {
    const plan = resolvePlan(random, rng)
    counts[plan.result] = (counts[plan.result] ?? 0) + 1
  }
  t.ok((counts.answer ?? 0) > 900 && (counts.answer ?? 0) < 1100)
  t.ok((counts.busy ?? 0) > 300 && (counts.busy ?? 0) < 500)
  t.ok((counts.noanswer ?? 0) > 500)
})

t.test('clock and causes', async (t) => {
  t.throws(() => new SimClock(0, 0), /timeScale/)
  const clock = new SimClock(1000, 5_000)
  t.ok(clock.now() >= 5_000)
  t.equal(clock.realMs(2), 2)
  let fired = false
  const timer = clock.after(1000, () => {
    fired = true
  })
  t.equal(clock.pending(), 1)
  timer.cancel()
  t.equal(clock.pending(), 0)
  t.notOk(fired)
  t.equal(causeText(16), 'Normal Clearing')
  t.equal(causeText(0), 'Unknown')
})
