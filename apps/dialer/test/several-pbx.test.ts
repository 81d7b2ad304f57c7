// Several PBXs on one database (PBX_NAME, dialer_employee.pbx): two pbx-sims, each served by its own
// dialer. Every desk exists on both sims, so a dialer that dialed another PBX's agent would ring a
// desk on its own sim and the check below would see it.
import type { TestDatabase } from '@hold-dialer/db/testing'
import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import t, { type Test } from 'tap'
import { type Harness, type HarnessOptions, harness, lead } from './harness.js'

const EAST = { dialerId: 'dialer-east', env: { PBX_NAME: 'east' } }
const WEST = { dialerId: 'dialer-west', env: { PBX_NAME: 'west' } }

async function twoPbxs(
  t: Test,
  database: TestDatabase,
  env: Record<string, string>,
  options: HarnessOptions = {},
): Promise<{ east: Harness; west: Harness }> {
  // A fresh roster: the earlier tests' agents (same database) are not on these sims.
  await database.handle.kysely.deleteFrom('dialer_employee').execute()
  const east = await harness(t, database, { ...options, ...EAST, env: { ...env, ...EAST.env } })
  const west = await harness(t, database, { ...options, ...WEST, env: { ...env, ...WEST.env } })
  return { east, west }
}

/** An agent of `pbx`: its row, and a desk of the same extension on both sims. */
async function agentOn(pbx: Harness, other: Harness, extension: string, name: string, fields = {}) {
  other.sim.addAgent(extension)
  return pbx.addAgent(extension, { pbx: name, ...fields })
}

/** The agents a dialer knows of (its roster) and whether it may offer each a call now. */
const roster = (h: Harness) => h.dialer.liveState().agents.map((a) => a.extension)
const ready = (h: Harness) => h.dialer.liveState().agents.some((a) => a.why === null && a.deskState !== null)

/** The desks each sim rang (progressive: the desk first; predictive: the desk bridged to). */
const desksRung = (h: Harness) =>
  new Set(h.sim.calls.flatMap((c) => (c.agentExtension && c.bridgedAt ? [c.agentExtension] : [])))

forEachDialect(t, async (t, database) => {
  const settled = async (prefix: string) => {
    const rows = await database.handle.kysely
      .selectFrom('hold_dialer_master_data')
      .select('dial_status')
      .where('oli_id', 'like', `${prefix}%`)
      .execute()
    return rows.filter((r) => r.dial_status === 'Received').length
  }
  const attemptsOf = (prefix: string) =>
    database.handle.kysely
      .selectFrom('hold_dialer_call_attempts')
      .select(['oli_id', 'dialer_id', 'agent_extension', 'agent_id'])
      .where('oli_id', 'like', `${prefix}%`)
      .where('outcome', '=', 'Received')
      .execute()

  for (const mode of ['progressive', 'predictive'] as const) {
    t.test(`${mode}: each dialer rings only its own PBX's agents; pool leads are shared`, async (t) => {
      const env: Record<string, string> = { DIAL_MODE: mode, HOLD_TIMEOUT_SECONDS: '10' }
      const { east, west } = await twoPbxs(t, database, env)
      const prefix = `POOL-${mode}-`
      const e = await agentOn(east, west, mode === 'progressive' ? '4001' : '4011', 'east')
      const w = await agentOn(west, east, mode === 'progressive' ? '4002' : '4012', 'west')
      await east.until('both rosters read', () => roster(east).length > 0 && roster(west).length > 0)
      t.same(
        roster(east),
        [mode === 'progressive' ? '4001' : '4011'],
        'the east dialer knows the east agent only',
      )
      t.same(
        roster(west),
        [mode === 'progressive' ? '4002' : '4012'],
        'the west dialer knows the west agent only',
      )
      const n = 12
      await east.push(
        Array.from({ length: n }, (_, i) =>
          lead(`${prefix}${i}`, `55540${mode === 'progressive' ? 1 : 2}${String(i).padStart(4, '0')}`),
        ),
      )
      await east.until(`all ${n} leads answered`, async () => (await settled(prefix)) === n)
      const rows = await attemptsOf(prefix)
      t.equal(rows.length, n, 'one answered attempt per lead')
      const byDialer = (id: string) => rows.filter((r) => r.dialer_id === id)
      t.ok(byDialer('dialer-east').length > 0, 'the east dialer dialed pool leads')
      t.ok(byDialer('dialer-west').length > 0, 'the west dialer dialed pool leads')
      t.same(
        [...new Set(byDialer('dialer-east').map((r) => Number(r.agent_id)))],
        [e],
        "the east dialer's calls went to the east agent only",
      )
      t.same(
        [...new Set(byDialer('dialer-west').map((r) => Number(r.agent_id)))],
        [w],
        "the west dialer's calls went to the west agent only",
      )
      const eastDesk = mode === 'progressive' ? '4001' : '4011'
      const westDesk = mode === 'progressive' ? '4002' : '4012'
      t.same([...desksRung(east)], [eastDesk], 'the east PBX rang no west desk')
      t.same([...desksRung(west)], [westDesk], 'the west PBX rang no east desk')
      t.equal(
        east.sim.calls.filter((c) => c.agentExtension === westDesk).length,
        0,
        'no origination on the east PBX for the west agent',
      )
      t.equal(
        west.sim.calls.filter((c) => c.agentExtension === eastDesk).length,
        0,
        'no origination on the west PBX for the east agent',
      )
    })
  }

  t.test("predictive: pacing and the idle reasons count only the dialer's own PBX's agents", async (t) => {
    const { east, west } = await twoPbxs(t, database, { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '10' })
    await agentOn(east, west, '4501', 'east', { presence: 'paused' })
    for (const ext of ['4502', '4503', '4504']) await agentOn(west, east, ext, 'west')
    const ids = Array.from({ length: 6 }, (_, i) => `PACE-${i}`)
    await west.push(ids.map((id, i) => lead(id, `555450000${i}`)))
    await west.until('all answered on the west PBX', async () => (await settled('PACE-')) === ids.length)
    t.equal(east.sim.originateCount(), 0, 'the east dialer placed no line for the west agents')
    t.ok(west.sim.originateCount() >= ids.length, 'the west dialer paced on its three agents')
    t.same(
      (await attemptsOf('PACE-')).map((r) => r.dialer_id),
      ids.map(() => 'dialer-west'),
      'every lead was dialed on the west PBX',
    )
    await east.until('the east dialer says why it dials nothing', () => east.dialer.idle() !== null)
    const reason = east.dialer.idle()?.reasons[0]
    t.equal(reason?.code, 'no-agent-ready', 'its reason: no agent of its own is ready')
    t.same(
      reason?.agents?.map((a) => a.extension),
      ['4501'],
      'the reason names its own agent only',
    )
    const page = await east.dialer.metrics.text()
    t.match(page, /^hold_dialer_dialer_pbx\{pbx="east"\} 1$/m, 'the metrics name the PBX the dialer serves')
    const agents = [...page.matchAll(/^hold_dialer_dialer_agents\{state="[^"]+"\} (\d+)$/gm)]
    t.equal(
      agents.reduce((n, m) => n + Number(m[1]), 0),
      1,
      "the agents gauge counts the dialer's own PBX's agent only",
    )
  })

  t.test("pinned: a pinned lead is dialed only on its agent's PBX, pool leads by both", async (t) => {
    const env = { CALLBACK_MODE: 'pinned', RETRY_SECONDS: '0', RETRY_PATTERN: '[3]', MAX_TRIES: '3' }
    const { east, west } = await twoPbxs(t, database, env)
    const e = await agentOn(east, west, '4101', 'east')
    const w = await agentOn(west, east, '4102', 'west')
    const leads = []
    for (let i = 0; i < 4; i++) {
      leads.push(lead(`PINE-${i}`, `555410${i}001`, { agent_id: e }))
      leads.push(lead(`PINW-${i}`, `555410${i}002`, { agent_id: w }))
      leads.push(lead(`PINP-${i}`, `555410${i}003`))
    }
    await east.push(leads)
    await east.until(
      'every lead answered',
      async () => (await settled('PINE-')) + (await settled('PINW-')) + (await settled('PINP-')) === 12,
    )
    t.same(
      new Set((await attemptsOf('PINE-')).map((r) => `${r.dialer_id} ${r.agent_extension}`)),
      new Set(['dialer-east 4101']),
      "the east agent's pinned leads were dialed by the east dialer for that agent",
    )
    t.same(
      new Set((await attemptsOf('PINW-')).map((r) => `${r.dialer_id} ${r.agent_extension}`)),
      new Set(['dialer-west 4102']),
      "the west agent's pinned leads were dialed by the west dialer for that agent",
    )
    t.same([...desksRung(east)], ['4101'], 'the east PBX rang the east desk only')
    t.same([...desksRung(west)], ['4102'], 'the west PBX rang the west desk only')
  })

  t.test("pinned fallback: an overdue lead goes to another agent of its agent's PBX only", async (t) => {
    const env = { CALLBACK_MODE: 'pinned', PINNED_FALLBACK_MINUTES: '1' }
    const { east, west } = await twoPbxs(t, database, env, { startDialer: false })
    const away = await agentOn(east, west, '4201', 'east', { presence: 'paused' })
    const colleague = await agentOn(east, west, '4203', 'east')
    await agentOn(west, east, '4202', 'west')
    await east.push(lead('OVERDUE-1', '5554200001', { agent_id: away }))
    // Pushed an hour ago: overdue for its paused agent.
    await database.handle.kysely
      .updateTable('hold_dialer_master_data')
      .set({ push_date: toDbTime(new Date(Date.now() - 3600_000)) })
      .where('oli_id', '=', 'OVERDUE-1')
      .execute()
    await west.startDialer()
    await west.until('the west dialer has its agent', () => ready(west))
    for (let i = 0; i < 5; i++) await west.dialer.claimRounds()
    t.match(
      await west.lead('OVERDUE-1'),
      { dial_status: 'Pending', isReserved: 0, call_count: 0 },
      'the west dialer leaves an overdue lead of an east agent alone',
    )
    t.equal(west.sim.originateCount(), 0, 'no origination on the west PBX')
    await east.startDialer()
    await east.until(
      'dialed by the east colleague',
      async () => (await east.lead('OVERDUE-1'))?.dial_status === 'Received',
    )
    t.match((await east.attempts('OVERDUE-1'))[0], { dialer_id: 'dialer-east', agent_id: colleague })
    t.match(await east.lead('OVERDUE-1'), { agent_id: away }, 'the pin is kept')
  })

  t.test('a PBX that goes down stops its own dialer only; its pinned leads wait', async (t) => {
    const env = { CALLBACK_MODE: 'pinned', RETRY_SECONDS: '0' }
    const { east, west } = await twoPbxs(t, database, env)
    const e = await agentOn(east, west, '4301', 'east')
    const w = await agentOn(west, east, '4302', 'west')
    await east.until('the east dialer is up', () => ready(east))
    await east.sim.close()
    await east.until('the east dialer sees its PBX down', () => east.ami.state !== 'connected')
    await west.push([
      lead('DOWN-E', '5554300001', { agent_id: e }),
      lead('DOWN-W', '5554300002', { agent_id: w }),
      lead('DOWN-P1', '5554300003'),
      lead('DOWN-P2', '5554300004'),
    ])
    await west.until(
      'the west PBX dials its pinned lead and the pool',
      async () => (await settled('DOWN-W')) + (await settled('DOWN-P')) === 3,
    )
    for (const id of ['DOWN-W', 'DOWN-P1', 'DOWN-P2']) {
      t.match(
        (await west.attempts(id))[0],
        { dialer_id: 'dialer-west', agent_id: w },
        `${id} dialed on the west PBX`,
      )
    }
    await west.dialer.claimRounds()
    t.match(
      await west.lead('DOWN-E'),
      { dial_status: 'Pending', isReserved: 0, call_count: 0 },
      "the east agent's pinned lead waits for the east PBX",
    )
    t.equal((await west.attempts('DOWN-E')).length, 0, 'no attempt for it')
    t.same([...desksRung(west)], ['4302'], 'the west PBX rang only its own desk')
    t.equal(east.dialer.idle()?.reasons[0]?.code, 'ami-down', 'the east dialer says its PBX is down')
    // The east PBX comes back: its pinned lead is dialed there.
    await east.sim.listen()
    await east.until(
      'the east PBX dials its lead',
      async () => (await east.lead('DOWN-E'))?.dial_status === 'Received',
    )
    t.match((await east.attempts('DOWN-E'))[0], { dialer_id: 'dialer-east', agent_id: e })
  })

  t.test('expired reservations and agent holds are released within a PBX only', async (t) => {
    await database.handle.kysely.deleteFrom('dialer_employee').execute()
    const east = await harness(t, database, {
      ...EAST,
      env: { ...EAST.env, RESERVATION_TIMEOUT_SECONDS: '60' },
      startDialer: false,
    })
    const db = database.handle.kysely
    const long = '2020-01-01 00:00:00.000'
    for (const [dialer, pbx] of [
      ['dead-east', 'east'],
      ['dead-west', 'west'],
    ] as const) {
      await db
        .insertInto('hold_dialer_heartbeat')
        .values({
          dialer_id: dialer,
          hostname: 'gone',
          pid: 1,
          dial_mode: 'progressive',
          started_at: long,
          seen_at: long,
          ami_state: 'connected',
          active_calls: 1,
          details: null,
          pbx,
        })
        .execute()
    }
    // Priority 3 is never dialed: a released lead stays where the release put it.
    await east.push([
      lead('REL-E', '5554400001', { priority_id: 3 }),
      lead('REL-W', '5554400002', { priority_id: 3 }),
    ])
    for (const [oli, holder] of [
      ['REL-E', 'dead-east'],
      ['REL-W', 'dead-west'],
    ] as const) {
      await db
        .updateTable('hold_dialer_master_data')
        .set({
          dial_status: 'Calling',
          previous_status: 'Pending',
          isReserved: 1,
          reserved_by: holder,
          reserved_at: long,
        })
        .where('oli_id', '=', oli)
        .execute()
    }
    const eastAgent = await east.insertAgent('4401', {
      pbx: 'east',
      on_call_by: 'dead-east',
      on_call_since: long,
    })
    const westAgent = await east.insertAgent('4402', {
      pbx: 'west',
      on_call_by: 'dead-west',
      on_call_since: long,
    })
    const holder = async (id: number) =>
      (
        await db
          .selectFrom('dialer_employee')
          .select('on_call_by')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).on_call_by
    await east.startDialer()
    await east.until(
      'the east reservation and hold released',
      async () => (await east.lead('REL-E'))?.isReserved === 0 && (await holder(eastAgent)) === null,
    )
    t.match(
      await east.lead('REL-E'),
      { dial_status: 'Pending', reserved_by: null },
      "an east dialer's expired reservation is released",
    )
    t.match(
      await east.lead('REL-W'),
      { dial_status: 'Calling', isReserved: 1, reserved_by: 'dead-west' },
      "a west dialer's expired reservation is left to the west PBX",
    )
    t.equal(await holder(westAgent), 'dead-west', "a west agent's expired hold is left to the west PBX")
  })
})
