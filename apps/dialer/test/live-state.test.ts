// The live state's derived agent states and call phases, from what the dialer holds in memory.
import { toDbTime } from '@hold-dialer/rules'
import t from 'tap'
import type { TrackedCall } from '../src/calls/call-tracker.js'
import { type LiveSources, liveState, SinceClock } from '../src/http/live-state.js'
import type { RosterRow } from '../src/sql/agents.js'

const NOW = new Date('2026-03-02T10:00:00.000Z')
const at = (ms: number) => new Date(NOW.getTime() + ms)

function agent(id: number, fields: Partial<RosterRow> = {}): RosterRow {
  return {
    id,
    name: `Agent ${id}`,
    extension: String(1000 + id),
    email: null,
    is_active: 1,
    presence: 'ready',
    panel_seen_at: toDbTime(at(-1000)),
    wrap_until: null,
    on_call_by: null,
    ...fields,
  }
}

function call(leadId: number, fields: Partial<TrackedCall> = {}): TrackedCall {
  return {
    key: `hd-${leadId}-x`,
    actionId: `a-${leadId}`,
    leadId,
    oliId: `O-${leadId}`,
    phone: '5550000000',
    phoneE164: '+15550000000',
    agent: null,
    startedAt: at(-10_000),
    deadline: at(60_000),
    originateDeadline: at(30_000),
    legs: new Map(),
    hangups: 0,
    hangupRequests: [],
    adopted: false,
    ...fields,
  }
}

function sources(over: Partial<LiveSources> = {}): LiveSources {
  return {
    dialerId: 'd1',
    dialMode: 'progressive',
    now: NOW,
    roster: [],
    deskState: () => 'NOT_INUSE',
    resting: () => false,
    calls: [],
    ami: {
      state: 'connected',
      host: 'pbx',
      port: 5038,
      lastPingMs: null,
      lastPingAt: null,
      lastError: null,
      since: at(-60_000),
    },
    governor: undefined,
    abandonRateMax: 0.03,
    trunk: { state: 'closed', failures: 0, since: null, nextProbeAt: null, trying: false },
    idle: null,
    clock: new SinceClock(),
    ...over,
  }
}

const leg = { uniqueid: 'u', name: 'PJSIP/x', side: undefined, up: false, hungUp: false }

t.test('agent states', async (t) => {
  const desks: Record<string, string> = { '1009': 'RINGING', '1010': 'INUSE', '1011': 'UNAVAILABLE' }
  const s = liveState(
    sources({
      roster: [
        agent(1),
        agent(2, { is_active: 0 }),
        agent(3, { presence: 'offline' }),
        agent(4, { panel_seen_at: toDbTime(at(-60_000)) }),
        agent(5, { presence: 'paused' }),
        agent(6, { on_call_by: 'd2' }),
        agent(7),
        agent(8, { wrap_until: toDbTime(at(5000)) }),
        agent(9),
        agent(10),
        agent(11),
        agent(12, { extension: null }),
      ],
      resting: (id) => id === 7,
      deskState: (ext) => desks[ext] ?? 'NOT_INUSE',
    }),
  )
  t.strictSame(
    s.agents.map((a) => [a.agentId, a.state]),
    [
      [1, 'idle'],
      [2, 'unavailable'],
      [3, 'unavailable'],
      [4, 'unavailable'],
      [5, 'paused'],
      [6, 'talking'],
      [7, 'resting'],
      [8, 'wrap-up'],
      [9, 'ringing'],
      [10, 'talking'],
      [11, 'unavailable'],
    ],
  )
  t.strictSame(
    s.agents.map((a) => [a.agentId, a.why]),
    [
      [1, null],
      [2, 'deactivated'],
      [3, 'offline on the agent panel'],
      [4, 'agent panel not seen for 60 s'],
      [5, 'paused on the agent panel'],
      [6, 'on a call'],
      [7, 'resting after their desk refused a call'],
      [8, 'in wrap-up for 5 s more'],
      [9, 'desk RINGING'],
      [10, 'desk INUSE'],
      [11, 'desk unavailable (its phone is not registered)'],
    ],
    'each agent not offered a call comes with the reason the console shows',
  )
  t.match(s.agents[4], {
    paused: true,
    presence: 'paused',
    active: true,
    deskState: 'NOT_INUSE',
    leadId: null,
  })
  t.equal(s.agents[0]?.since, NOW.getTime(), 'no time of its own: first seen now')
  t.match(s, { dialerId: 'd1', ami: { connected: true, since: at(-60_000).getTime() }, dialLevel: null })
})

t.test('call phases, and the agent on the call', async (t) => {
  const a = { id: 1, name: 'Agent 1', extension: '1001', email: null }
  const s = liveState(
    sources({
      dialMode: 'predictive',
      governor: {
        window: '30d',
        answered: 10,
        abandoned: 1,
        machines: 0,
        rate: 0.1,
        budget: 0,
        dialLevel: 1.5,
        answerRate: null,
        waiting: 1,
        inFlight: 1,
      },
      roster: [agent(1), agent(2)],
      calls: [
        call(1, { mode: 'predictive' }),
        call(2, { mode: 'predictive', legs: new Map([['u', leg]]) }),
        call(3, { mode: 'predictive', answeredAt: at(-3000) }),
        call(4, { mode: 'predictive', answeredAt: at(-3000), redirected: true, agent: a }),
        call(5, { mode: 'predictive', answeredAt: at(-3000), bridgedAt: at(-2000) }),
        call(6, { answeredAt: at(-4000) }),
      ],
    }),
  )
  t.strictSame(
    s.calls.map((c) => [c.leadId, c.mode, c.phase, c.phaseSince - NOW.getTime()]),
    [
      [1, 'predictive', 'dialing', -10_000],
      [2, 'predictive', 'ringing', 0],
      [3, 'predictive', 'on-hold', -3000],
      [4, 'predictive', 'answered', 0],
      [5, 'predictive', 'connected', -2000],
      [6, 'progressive', 'connected', -4000],
    ],
  )
  t.match(s.agents[0], { state: 'ringing', leadId: 4 }, 'the desk rings for a waiting customer')
  t.equal(s.reservedLeads, 6)
  t.match(s, { dialLevel: 1.5, abandonRate: 0.1, abandonRateMax: 0.03 })
})

t.test('since: kept while the state holds, reset when it changes, forgotten when gone', async (t) => {
  const clock = new SinceClock()
  const first = liveState(sources({ clock, roster: [agent(1)] }))
  t.equal(first.agents[0]?.since, NOW.getTime())
  const later = liveState(sources({ clock, roster: [agent(1)], now: at(5000) }))
  t.equal(later.agents[0]?.since, NOW.getTime(), 'still idle since the first sight')
  const paused = liveState(sources({ clock, roster: [agent(1, { presence: 'paused' })], now: at(7000) }))
  t.equal(paused.agents[0]?.since, at(7000).getTime(), 'paused since it was seen paused')
  liveState(sources({ clock, roster: [], now: at(8000) }))
  const back = liveState(sources({ clock, roster: [agent(1, { presence: 'paused' })], now: at(9000) }))
  t.equal(back.agents[0]?.since, at(9000).getTime(), 'an agent gone from the roster is forgotten')
})
