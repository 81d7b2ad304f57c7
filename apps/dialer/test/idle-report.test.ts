import t from 'tap'
import { agentWhy } from '../src/agents/agent-why.js'
import { type IdleInputs, IdleReport, idleReasons } from '../src/idle/idle-report.js'
import type { RosterRow } from '../src/sql/agents.js'

const NOW = new Date('2026-03-10T15:00:00Z')
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString().replace('T', ' ').slice(0, 23)

function row(over: Partial<RosterRow> = {}): RosterRow {
  return {
    id: 1,
    name: 'Asha',
    extension: '1001',
    email: null,
    is_active: 1,
    presence: 'ready',
    panel_seen_at: at(-5_000),
    wrap_until: null,
    on_call_by: null,
    ...over,
  } as RosterRow
}

const sources = (desk: string | null = 'NOT_INUSE', resting = false, busy: number[] = []) => ({
  now: NOW,
  busyHere: new Set(busy),
  deskState: () => desk ?? undefined,
  resting: () => resting,
})

t.test('agentWhy: undefined for an agent who can take a call, else the first reason in words', async (t) => {
  t.equal(agentWhy(row(), sources()), undefined)
  const cases: [Partial<RosterRow>, ReturnType<typeof sources>, string][] = [
    [{ extension: null }, sources(), 'no desk extension'],
    [{ is_active: 0 }, sources(), 'deactivated'],
    [{ presence: 'paused' }, sources(), 'paused on the agent panel'],
    [{ presence: 'offline' }, sources(), 'offline on the agent panel'],
    [{ panel_seen_at: null }, sources(), 'agent panel never seen'],
    [{ panel_seen_at: at(-45_000) }, sources(), 'agent panel not seen for 45 s'],
    [{ on_call_by: 'dialer-b' }, sources(), 'on a call'],
    [{}, sources('NOT_INUSE', false, [1]), 'on a call'],
    [{}, sources('NOT_INUSE', true), 'resting after their desk refused a call'],
    [{ wrap_until: at(12_300) }, sources(), 'in wrap-up for 13 s more'],
    [{}, sources(null), 'desk state not reported by Asterisk yet'],
    [{}, sources('INVALID'), 'Asterisk does not know this desk (check AGENT_DEVICE_TEMPLATE)'],
    [{}, sources('UNKNOWN'), 'Asterisk does not know this desk (check AGENT_DEVICE_TEMPLATE)'],
    [{}, sources('UNAVAILABLE'), 'desk unavailable (its phone is not registered)'],
    [{}, sources('INUSE'), 'desk INUSE'],
  ]
  for (const [over, s, why] of cases) t.equal(agentWhy(row(over), s), why, why)
})

const base: IdleInputs = {
  amiConnected: true,
  databaseAvailable: true,
  synced: true,
  trunkOpen: false,
  inHours: true,
  hours: '08:00-20:00 America/New_York',
  unavailableAgents: [],
  anyAgentAvailable: true,
}

t.test('idleReasons: the most basic reasons first, each in words', async (t) => {
  t.same(
    idleReasons({ ...base, amiConnected: false, databaseAvailable: false }).map((r) => r.code),
    ['ami-down', 'database-down'],
    'with the PBX or the database away, nothing else is worked out',
  )
  t.same(
    idleReasons({ ...base, synced: false }).map((r) => r.code),
    ['syncing'],
  )
  const agents = Array.from({ length: 7 }, (_, i) => ({
    extension: String(1001 + i),
    name: `A${i}`,
    why: 'paused on the agent panel',
  }))
  const none = idleReasons({ ...base, trunkOpen: true, anyAgentAvailable: false, unavailableAgents: agents })
  t.same(
    none.map((r) => r.code),
    ['trunk-open', 'no-agent-ready'],
  )
  t.equal(
    none[1]?.text,
    'no agent can take a call (1001 A0: paused on the agent panel; 1002 A1: paused on the agent panel; ' +
      '1003 A2: paused on the agent panel; 1004 A3: paused on the agent panel; 1005 A4: paused on the agent panel; 2 more)',
  )
  t.equal(none[1]?.agents?.length, 7, 'every agent in the details')
  t.match(
    idleReasons({ ...base, anyAgentAvailable: false })[0]?.text,
    /the roster is empty \(pnpm agents add\)/,
  )
  t.same(idleReasons({ ...base, inHours: false }), [
    {
      code: 'outside-working-hours',
      text: 'outside working hours (08:00-20:00 America/New_York): only callbacks whose time has come are dialed',
    },
  ])
  t.same(idleReasons(base), [], 'agents ready, leads not read: nothing to say yet')
  t.same(idleReasons({ ...base, due: { callable: 0, waiting: 0, nextAt: null } }), [
    { code: 'no-lead-due', text: 'no lead is due' },
  ])
  const next = new Date('2026-03-10T13:00:00Z')
  const waiting = idleReasons({ ...base, due: { callable: 2, waiting: 3, nextAt: next } })
  t.same(
    waiting.map((r) => [r.code, r.leads]),
    [
      ['leads-outside-customer-hours', 3],
      ['leads-held-back', 2],
    ],
  )
  t.equal(
    waiting[0]?.text,
    "3 lead(s) due wait for their customers' calling hours (CALLING_HOURS): the first at 2026-03-10T13:00:00.000Z",
  )
  t.equal(waiting[0]?.nextAt, '2026-03-10T13:00:00.000Z')
  t.match(
    idleReasons({ ...base, due: { callable: 0, waiting: 1, nextAt: null } })[0]?.text,
    /none can be called at any hour/,
  )
})

t.test(
  'IdleReport: logs once per change, not when only a number moves; says when dialing resumes',
  async (t) => {
    const lines: string[] = []
    const report = new IdleReport({ info: (_fields, message) => void lines.push(message) })
    const paused = (seconds: number) =>
      idleReasons({
        ...base,
        anyAgentAvailable: false,
        unavailableAgents: [
          { extension: '1001', name: 'Asha', why: `agent panel not seen for ${seconds} s` },
        ],
      })
    t.equal(report.snapshot(), null)
    report.working()
    t.same(lines, [], 'working while working: nothing said')
    report.idle(NOW, paused(31))
    report.idle(new Date(NOW.getTime() + 1000), paused(32))
    t.same(lines, ['nothing dialed: no agent can take a call (1001 Asha: agent panel not seen for 31 s)'])
    t.match(report.snapshot(), {
      since: NOW.toISOString(),
      reasons: [{ code: 'no-agent-ready', text: /32 s/ }],
    })
    report.idle(new Date(NOW.getTime() + 2000), idleReasons({ ...base, amiConnected: false }))
    t.equal(lines.length, 2, 'another reason: said')
    t.equal(report.snapshot()?.since, NOW.toISOString(), 'idle since the first round that placed nothing')
    report.working()
    t.same(lines.at(-1), 'dialing again')
    t.equal(report.snapshot(), null)
  },
)
