import { AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import { Asterisk } from '@hold-dialer/asterisk-testbed'
import t from 'tap'
import { type CustomerScript, startPbxSim } from '../src/index.js'

// pbx-sim against the real Asterisk 22: the same Originate (and Redirect) on both, each call's events
// reduced to what the dialer reads, compared party by party.
//
// The test bed plays desks and customers with Local channels (`Local/1001@agents`,
// `Local/5550002001@customers`); pbx-sim plays them as PJSIP channels (`PJSIP/1001`,
// `PJSIP/trunk`), as a production PBX has them, and again as Local routes like the test bed's. Against
// the first, each party's Local pair (`;1` and `;2`) is folded into one leg, the way the dialer reads
// it (apps/dialer/src/calls/call-tracker.ts): its channel states, whether it entered a bridge, and its
// hangup cause taken from the far half. Against the second, each half is compared on its own. States other
// than Ringing and Up are left out: the `Busy` state is set by the test bed's Busy() application on
// the Local half, which a trunk channel does not get. Order is compared within each party, not
// across parties (Asterisk publishes them from different threads).

interface Scenario {
  name: string
  mode: 'progressive' | 'predictive'
  agent: string
  number: string
  sim: CustomerScript
  simAgent?: 'idle' | 'busy'
  /** Predictive: redirect the answered customer to this agent. */
  redirectTo?: string
  /** Predictive: HD_AMD on the Originate, so the shipped dialer-hold runs AMD() first. */
  amd?: 'hangup' | 'record'
  /** With `amd`: the AMDSTATUS Asterisk's AMD() gives the test bed's customer. */
  verdict?: 'HUMAN' | 'MACHINE' | 'NOTSURE'
}

const SCENARIOS: Scenario[] = [
  {
    name: 'progressive, answered and talked',
    mode: 'progressive',
    agent: '1001',
    number: '5550001001',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 2 },
  },
  {
    name: 'progressive, busy',
    mode: 'progressive',
    agent: '1001',
    number: '5550002001',
    sim: { kind: 'busy' },
  },
  {
    name: 'progressive, congestion',
    mode: 'progressive',
    agent: '1001',
    number: '5550003001',
    sim: { kind: 'congestion' },
  },
  {
    name: 'progressive, no answer',
    mode: 'progressive',
    agent: '1001',
    number: '5550004001',
    sim: { kind: 'noanswer', ringSeconds: 60 },
  },
  {
    name: 'progressive, rejected (cause 21)',
    mode: 'progressive',
    agent: '1001',
    number: '5550005001',
    sim: { kind: 'reject', ringSeconds: 0 },
  },
  {
    name: "progressive, the agent's desk busy",
    mode: 'progressive',
    agent: '3001',
    number: '5550001002',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 2 },
    simAgent: 'busy',
  },
  {
    name: 'predictive, customer busy',
    mode: 'predictive',
    agent: '1001',
    number: '5550002002',
    sim: { kind: 'busy' },
  },
  {
    name: 'predictive, customer does not answer',
    mode: 'predictive',
    agent: '1001',
    number: '5550004002',
    sim: { kind: 'noanswer', ringSeconds: 60 },
  },
  {
    name: 'predictive, customer rejects (cause 21)',
    mode: 'predictive',
    agent: '1001',
    number: '5550005002',
    sim: { kind: 'reject', ringSeconds: 0 },
  },
  {
    name: 'predictive, answered, hangs up on hold with no agent',
    mode: 'predictive',
    agent: '1001',
    number: '5550001003',
    sim: { kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 2 },
  },
  {
    name: "predictive, answered, redirected to an agent's busy desk, hangs up on hold",
    mode: 'predictive',
    agent: '3001',
    number: '5550001004',
    sim: { kind: 'hangupWhileWaiting', ringSeconds: 1, patienceSeconds: 2 },
    simAgent: 'busy',
    redirectTo: '3001',
  },
  {
    name: 'predictive, answered, redirected to an agent who answers, talked',
    mode: 'predictive',
    agent: '1001',
    number: '5550008001',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 8 },
    redirectTo: '1001',
  },
  {
    name: 'progressive with AMD, an answering machine: the verdict, DialEnd CONTINUE, both hung up',
    mode: 'progressive',
    agent: '1001',
    number: '5550013005',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 8, amd: { status: 'MACHINE', seconds: 1.5 } },
    amd: 'hangup',
    verdict: 'MACHINE',
  },
  {
    name: 'progressive with AMD, a person: the verdict, then connected to the desk, talked',
    mode: 'progressive',
    agent: '1001',
    number: '5550012005',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 6.2, amd: { status: 'HUMAN', seconds: 1.8 } },
    amd: 'hangup',
    verdict: 'HUMAN',
  },
  {
    name: 'predictive with AMD, an answering machine: the verdict, hung up by the dialplan',
    mode: 'predictive',
    agent: '1001',
    number: '5550013003',
    sim: { kind: 'answer', ringSeconds: 1, talkSeconds: 8, amd: { status: 'MACHINE', seconds: 1.5 } },
    amd: 'hangup',
    verdict: 'MACHINE',
  },
  {
    name: 'predictive with AMD, a person: the verdict, on hold until the customer hangs up',
    mode: 'predictive',
    agent: '1001',
    number: '5550012003',
    sim: {
      kind: 'hangupWhileWaiting',
      ringSeconds: 1,
      patienceSeconds: 8,
      amd: { status: 'HUMAN', seconds: 1.8 },
    },
    amd: 'hangup',
    verdict: 'HUMAN',
  },
  {
    name: 'predictive with AMD, no audio: NOTSURE, on hold until the customer hangs up',
    mode: 'predictive',
    agent: '1001',
    number: '5550014003',
    sim: {
      kind: 'hangupWhileWaiting',
      ringSeconds: 1,
      patienceSeconds: 8,
      amd: { status: 'NOTSURE', seconds: 4.9 },
    },
    amd: 'hangup',
    verdict: 'NOTSURE',
  },
  {
    name: 'predictive with AMD record-only, an answering machine: the verdict, kept on hold',
    mode: 'predictive',
    agent: '1001',
    number: '5550013004',
    sim: {
      kind: 'hangupWhileWaiting',
      ringSeconds: 1,
      patienceSeconds: 8,
      amd: { status: 'MACHINE', seconds: 1.5 },
    },
    amd: 'record',
    verdict: 'MACHINE',
  },
]

/** Which party a channel carries, on either PBX. */
function partyOf(name: string | undefined): 'agent' | 'customer' | undefined {
  if (!name) return undefined
  if (/@agents-|^PJSIP\/\d+-/.test(name)) return 'agent'
  if (/@customers-|^PJSIP\/trunk-/.test(name)) return 'customer'
  return undefined
}

interface Reduced {
  /** Per party (folded) or per Local half (`agent;1`, `customer;2`): what happened to it. */
  legs: Record<string, string[]>
  dials: string[]
  originate: string
}

/**
 * One call's events as the dialer reads them (see the file's comment). `fold`: each party's Local
 * halves as one leg with the far half's cause (the dialer's rule); otherwise each half on its own.
 */
function reduce(events: AmiMessage[], fold: boolean): Reduced {
  const out: Reduced = { legs: {}, dials: [], originate: '' }
  const causes: Record<string, { far?: number; near?: number }> = {}
  const legOf = (name: string | undefined) => {
    const party = partyOf(name)
    if (!party || fold) return party
    const half = name?.match(/;([12])$/)?.[1]
    return half ? `${party};${half}` : party
  }
  const fact = (leg: string | undefined, f: string) => {
    if (!leg) return
    out.legs[leg] ??= []
    if (!out.legs[leg].includes(f)) out.legs[leg].push(f)
  }
  for (const e of events) {
    const name = header(e, 'event')
    const leg = legOf(header(e, 'channel'))
    const state = header(e, 'channelstatedesc')
    switch (name) {
      case 'Newchannel':
        fact(leg, 'created')
        break
      case 'Newstate':
        if (state === 'Ringing' || state === 'Up') fact(leg, state.toLowerCase())
        break
      case 'BridgeEnter':
        fact(leg, 'bridged')
        break
      case 'UserEvent':
        // AMD()'s verdict: the status, and the cause's kind (its numbers are measured times).
        if (header(e, 'userevent') === 'HoldDialerAmd') {
          fact(
            leg,
            `amd ${header(e, 'status')} ${header(e, 'cause')?.split('-')[0]} ${header(e, 'privilege')}`,
          )
        }
        break
      case 'Hangup': {
        if (!leg) break
        fact(leg, 'hung up')
        const cause = Number(header(e, 'cause'))
        const half = header(e, 'channel')?.endsWith(';2') ? 'far' : 'near'
        causes[leg] ??= {}
        causes[leg][half] ??= cause
        break
      }
      case 'DialBegin':
      case 'DialEnd': {
        const from = partyOf(header(e, 'channel')) ?? 'originate'
        const to = partyOf(header(e, 'destchannel'))
        const status = header(e, 'dialstatus')
        const line = `${name} ${from} -> ${to}${status ? ` ${status}` : ''}`
        if (!out.dials.includes(line)) out.dials.push(line)
        break
      }
      case 'OriginateResponse':
        out.originate = `${header(e, 'response')} Reason ${header(e, 'reason')}`
        break
    }
  }
  for (const [leg, c] of Object.entries(causes)) {
    // The far half's cause, unless it says 0 and the near half says more (the dialer's rule).
    const cause = c.far !== undefined && (c.far !== 0 || !c.near) ? c.far : c.near
    out.legs[leg]?.push(`cause ${cause}`)
  }
  out.dials.sort()
  return out
}

/** Runs one scenario on one PBX and returns its events once every channel of the call hung up. */
async function play(
  ami: AmiClient,
  s: Scenario,
  tech: { agent: (ext: string) => string; customer: (n: string) => string },
  key: string,
): Promise<AmiMessage[]> {
  const events: AmiMessage[] = []
  const actionId = `${key}-o`
  const live = new Set<string>()
  let responded = false
  let resolveDone!: () => void
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })
  const onEvent = (e: AmiMessage) => {
    const ours =
      header(e, 'linkedid') === key || header(e, 'destlinkedid') === key || header(e, 'actionid') === actionId
    if (!ours) return
    events.push(e)
    const name = header(e, 'event')
    const uniqueid = header(e, 'uniqueid') ?? ''
    if (name === 'Newchannel') live.add(uniqueid)
    if (name === 'Hangup') live.delete(uniqueid)
    if (name === 'OriginateResponse') responded = true
    if (responded && live.size === 0 && events.some((x) => header(x, 'event') === 'Hangup')) resolveDone()
  }
  ami.on('event', onEvent)
  // Cleared once the call ends: left pending, each play's guard kept the test process alive for a
  // minute after its call (about 50 s after the last test of every run).
  let guard: NodeJS.Timeout | undefined
  try {
    const progressive = s.mode === 'progressive'
    await ami.action({
      action: 'Originate',
      actionid: actionId,
      channel: progressive ? tech.agent(s.agent) : tech.customer(s.number),
      context: progressive ? 'dialer-outbound' : 'dialer-hold',
      exten: progressive ? s.number : 's',
      priority: 1,
      async: 'true',
      timeout: 4000,
      channelid: key,
      variable: { HD_RING_SECONDS: '4', ...(s.amd ? { HD_AMD: s.amd } : {}) },
    })
    if (s.redirectTo) {
      const answered = await waitFor(() =>
        events.find((e) => header(e, 'event') === 'OriginateResponse' && header(e, 'response') === 'Success'),
      )
      await ami.action({
        action: 'Redirect',
        channel: header(answered, 'channel'),
        context: 'dialer-agents',
        exten: s.redirectTo,
        priority: 1,
      })
    }
    await Promise.race([
      done,
      new Promise((_, reject) => {
        guard = setTimeout(() => reject(new Error(`${s.name}: call did not end`)), 60_000)
      }),
    ])
    return events
  } finally {
    clearTimeout(guard)
    ami.off('event', onEvent)
  }
}

async function waitFor<T>(find: () => T | undefined, timeoutMs = 300_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

const asterisk = await Asterisk.start()
t.teardown(() => asterisk.close())
const simOptions = {
  users: { dialer: 'pw' },
  timeScale: 1,
  agentExtensions: ['1001'],
  agentStates: { '3001': 'busy' as const },
  originateResponseOrder: 'seeded' as const,
}
// Desks and trunk as PJSIP channels, as a production PBX has them...
const sim = await startPbxSim(simOptions)
t.teardown(() => sim.close())
// ...and as Local routes, as the test bed dials them (the shipped HD_CUSTOMER_DIAL / HD_DESK_DIAL).
const localSim = await startPbxSim({
  ...simOptions,
  customerDial: 'Local/%s@customers',
  agentDial: 'Local/%s@agents',
})
t.teardown(() => localSim.close())

function client(port: number, username: string, secret: string): AmiClient {
  const c = new AmiClient({ host: '127.0.0.1', port, username, secret, events: true, actionIdPrefix: 'conf' })
  t.teardown(() => c.close())
  return c
}
const real = client(asterisk.port, asterisk.dialerUser.username, asterisk.dialerUser.secret)
const simulated = client(sim.port, 'dialer', 'pw')
const simulatedLocal = client(localSim.port, 'dialer', 'pw')
await Promise.all([real.start(), simulated.start(), simulatedLocal.start()])

let n = 0
for (const s of SCENARIOS) {
  t.test(s.name, async (t) => {
    n += 1
    for (const x of [sim, localSim]) {
      x.setOutcome(s.number, s.sim)
      if (s.simAgent) x.setAgentDevice(s.agent, s.simAgent)
    }
    const local = {
      agent: (x: string) => `Local/${x}@agents`,
      customer: (x: string) => `Local/${x}@customers`,
    }
    const [fromAsterisk, fromSim, fromLocalSim] = await Promise.all([
      play(real, s, local, `conf-real-${n}`),
      play(
        simulated,
        s,
        { agent: (x) => `PJSIP/${x}`, customer: (x) => `PJSIP/${x}@trunk` },
        `conf-sim-${n}`,
      ),
      play(simulatedLocal, s, local, `conf-local-${n}`),
    ])
    const expected = reduce(fromAsterisk, true)
    t.ok(Object.keys(expected.legs).length > 0, 'Asterisk reported the call')
    if (s.amd) {
      t.ok(
        expected.legs.customer?.some((f) => f.startsWith(`amd ${s.verdict} `)),
        "Asterisk sent AMD()'s verdict from the customer's channel",
      )
    }
    t.same(
      reduce(fromSim, true),
      expected,
      'pbx-sim with PJSIP desks and trunk: each party as Asterisk reports it',
    )
    t.same(
      reduce(fromLocalSim, false),
      reduce(fromAsterisk, false),
      'pbx-sim with Local routes: each Local half as Asterisk reports it',
    )
  })
}
