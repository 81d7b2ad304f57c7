// Several PBXs on a real Asterisk 22: two Asterisks, each with its own AMI port and its own dialer
// (PBX_NAME east and west), on one database. Both dialplans have every desk, so a dialer that rang
// another PBX's agent would make a desk channel on its own Asterisk: each Asterisk's own events say
// which desks it rang. Run per dial mode (several-pbx-progressive.test.ts and
// several-pbx-predictive.test.ts), so that the two halves run side by side like the other files.

import { header } from '@hold-dialer/ami'
import type { Asterisk } from '@hold-dialer/asterisk-testbed'
import type { TestDatabase } from '@hold-dialer/db/testing'
import { forEachDialect } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import t, { type Test } from 'tap'
import { lead, type Rig } from '../test/harness.js'
import { agent, asteriskRig, PINNED, settled, startAsterisk } from './testbed.js'

let eastPbx: Asterisk
let westPbx: Asterisk

/** The desks (`Local/<ext>@agents`) this Asterisk made a channel for since event `from`. */
function desksRung(asterisk: Asterisk, from: number): Set<string> {
  const desks = new Set<string>()
  for (const e of asterisk.events.slice(from)) {
    if (header(e, 'event') !== 'Newchannel') continue
    const m = /^Local\/(\d+)@agents-/.exec(header(e, 'channel') ?? '')
    if (m) desks.add(m[1]!)
  }
  return desks
}

interface TwoPbxs {
  east: Rig
  west: Rig
  /** Event counts at the start, so each subtest reads its own calls only. */
  from: { east: number; west: number }
}

async function twoPbxs(t: Test, database: TestDatabase, env: Record<string, string>): Promise<TwoPbxs> {
  const from = { east: eastPbx.events.length, west: westPbx.events.length }
  // The agents' panels, kept alive as the agent panel does: a subtest with a PBX stopped and started
  // again runs past the 30 s an unrefreshed panel counts as present.
  const panels = setInterval(() => {
    void database.handle.kysely
      .updateTable('dialer_employee')
      .set({ panel_seen_at: toDbTime(new Date()) })
      .execute()
  }, 5_000)
  t.teardown(() => clearInterval(panels))
  const east = await asteriskRig(t, database, eastPbx, {
    dialerId: 'dialer-east',
    env: { ...env, PBX_NAME: 'east' },
  })
  const west = await asteriskRig(t, database, westPbx, {
    dialerId: 'dialer-west',
    env: { ...env, PBX_NAME: 'west' },
  })
  return { east, west, from }
}

/** The suite for one dial mode, on its own two Asterisks. */
export async function severalPbxSuite(only: 'progressive' | 'predictive'): Promise<void> {
  eastPbx = await startAsterisk(t)
  westPbx = await startAsterisk(t)
  forEachDialect(t, async (t, database) => {
    const received = (oliIds: string[]) =>
      database.handle.kysely
        .selectFrom('hold_dialer_call_attempts')
        .select(['oli_id', 'dialer_id', 'agent_id', 'agent_extension'])
        .where('oli_id', 'in', oliIds)
        .where('outcome', '=', 'Received')
        .execute()

    for (const mode of [only]) {
      const m = mode === 'progressive' ? 0 : 1
      // One line per free agent in predictive mode: these tests are about which PBX dials, and a second
      // customer answering for the one busy agent would be Abandoned, as the answers' timing decides.
      const modeEnv = { DIAL_MODE: mode, MAX_DIAL_LEVEL: '1' }

      t.test(`${mode}: each Asterisk rings only its own agents; pool leads are shared`, async (t) => {
        const { east, west, from } = await twoPbxs(t, database, modeEnv)
        const [eastDesk, westDesk] = [`11${m}1`, `11${m}2`]
        const e = await agent(east, eastDesk, { pbx: 'east' })
        const w = await agent(west, westDesk, { pbx: 'west' })
        const ids = Array.from({ length: 6 }, (_, i) => `AP-${mode}-${i}`)
        await east.push(ids.map((id, i) => lead(id, `5550001${m}1${i}`)))
        for (const id of ids) t.match(await settled(east, id), { dial_status: 'Received' }, `${id} answered`)
        const rows = await received(ids)
        t.equal(rows.length, ids.length, 'one answered attempt per lead')
        const of = (dialer: string) => rows.filter((r) => r.dialer_id === dialer)
        t.ok(of('dialer-east').length > 0, 'the east dialer dialed pool leads')
        t.ok(of('dialer-west').length > 0, 'the west dialer dialed pool leads')
        t.ok(
          of('dialer-east').every((r) => Number(r.agent_id) === e),
          "the east dialer's calls went to the east agent",
        )
        t.ok(
          of('dialer-west').every((r) => Number(r.agent_id) === w),
          "the west dialer's calls went to the west agent",
        )
        t.same(
          [...desksRung(eastPbx, from.east)],
          [eastDesk],
          'no origination on the east PBX for the west agent',
        )
        t.same(
          [...desksRung(westPbx, from.west)],
          [westDesk],
          'no origination on the west PBX for the east agent',
        )
      })

      t.test(`${mode}: a pinned lead is dialed only on its agent's PBX`, async (t) => {
        const { east, west, from } = await twoPbxs(t, database, { ...modeEnv, ...PINNED })
        const [eastDesk, westDesk] = [`12${m}1`, `12${m}2`]
        const e = await agent(east, eastDesk, { pbx: 'east' })
        const w = await agent(west, westDesk, { pbx: 'west' })
        const pinnedEast = [0, 1, 2].map((i) => `APE-${mode}-${i}`)
        const pinnedWest = [0, 1, 2].map((i) => `APW-${mode}-${i}`)
        const pool = [0, 1].map((i) => `APP-${mode}-${i}`)
        await east.push([
          ...pinnedEast.map((id, i) => lead(id, `5550001${m}2${i}`, { agent_id: e })),
          ...pinnedWest.map((id, i) => lead(id, `5550001${m}3${i}`, { agent_id: w })),
          ...pool.map((id, i) => lead(id, `5550001${m}4${i}`)),
        ])
        for (const id of [...pinnedEast, ...pinnedWest, ...pool])
          t.match(await settled(east, id), { dial_status: 'Received' }, `${id} answered`)
        t.same(
          new Set((await received(pinnedEast)).map((r) => `${r.dialer_id} ${r.agent_extension}`)),
          new Set([`dialer-east ${eastDesk}`]),
          "the east agent's pinned leads were dialed on the east PBX for that agent",
        )
        t.same(
          new Set((await received(pinnedWest)).map((r) => `${r.dialer_id} ${r.agent_extension}`)),
          new Set([`dialer-west ${westDesk}`]),
          "the west agent's pinned leads were dialed on the west PBX for that agent",
        )
        t.same([...desksRung(eastPbx, from.east)], [eastDesk], 'the east PBX rang the east desk only')
        t.same([...desksRung(westPbx, from.west)], [westDesk], 'the west PBX rang the west desk only')
      })

      t.test(`${mode}: one PBX stopped and restarted while the other keeps dialing`, async (t) => {
        const { east, west } = await twoPbxs(t, database, { ...modeEnv, ...PINNED })
        const [eastDesk, westDesk] = [`13${m}1`, `13${m}2`]
        const e = await agent(east, eastDesk, { pbx: 'east' })
        const w = await agent(west, westDesk, { pbx: 'west' })
        await east.until('the east dialer is logged in', () => east.ami.state === 'connected')
        await eastPbx.coreStopNow()
        await east.until('the east dialer sees its PBX down', () => east.ami.state !== 'connected')
        const waiting = `ASE-${mode}`
        const dialed = [`ASW-${mode}`, `ASP-${mode}-0`, `ASP-${mode}-1`]
        await west.push([
          lead(waiting, `5550001${m}50`, { agent_id: e }),
          lead(dialed[0]!, `5550001${m}51`, { agent_id: w }),
          lead(dialed[1]!, `5550001${m}52`),
          lead(dialed[2]!, `5550001${m}53`),
        ])
        // Predictive may ring the three customers at once for the one west agent: one who answers while
        // the agent is on another call is Abandoned, as the timing of the answers decides (a loaded
        // machine did). Each is still dialed on the west PBX by the west dialer.
        let reached = 0
        for (const id of dialed) {
          const row = await settled(west, id)
          const outcomes = mode === 'predictive' ? ['Received', 'Abandoned'] : ['Received']
          t.ok(outcomes.includes(String(row.dial_status)), `${id} dialed on the west PBX: ${row.dial_status}`)
          const attempt = (await west.attempts(id))[0]
          t.match(attempt, { dialer_id: 'dialer-west' }, `${id}: by the west dialer`)
          if (row.dial_status === 'Received') {
            reached += 1
            t.equal(Number(attempt?.agent_id), w, `${id} reached the west agent`)
          }
        }
        t.ok(reached >= 1, 'the west agent took calls while the east PBX was down')
        t.match(
          await west.lead(waiting),
          { dial_status: 'Pending', isReserved: 0, call_count: 0 },
          "the east agent's pinned lead waits while the east PBX is down",
        )
        t.equal((await west.attempts(waiting)).length, 0, 'no attempt for it')
        t.equal(east.dialer.idle()?.reasons[0]?.code, 'ami-down', 'the east dialer says its PBX is down')
        await eastPbx.restart()
        t.match(await settled(east, waiting), { dial_status: 'Received' }, 'dialed once the east PBX is back')
        t.match((await east.attempts(waiting))[0], { dialer_id: 'dialer-east', agent_id: e })
        // The west PBX went on meanwhile and goes on now.
        const after = `ASP-${mode}-after`
        await west.push(lead(after, `5550001${m}54`))
        t.match(await settled(west, after), { dial_status: 'Received' }, 'the pool goes on after the restart')
      })
    }
  })
}
