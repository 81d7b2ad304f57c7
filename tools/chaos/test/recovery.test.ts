import t from 'tap'
import type { DialerState } from '../src/dialers.js'
import { Activity, MARGIN_MS, Recoveries } from '../src/recovery.js'

// "Every dialer recovers", on a clock of its own: a sign of work after the fault's end recovers a
// dialer, none by the deadline fails it (unless nothing is left to dial), and time spent stopped or
// dead by another fault does not count against it.

t.test(
  'recovered, failed, excused with no lead left, and held still while the dialer cannot run',
  async (t) => {
    const activity = new Activity()
    const r = new Recoveries(activity, 2000)
    const state = new Map<string, DialerState>([
      ['a', 'running'],
      ['b', 'running'],
      ['c', 'running'],
      ['d', 'stopped'],
    ])
    let leads = true
    const update = () =>
      r.update(
        (id) => state.get(id) ?? 'killed',
        async () => leads,
      )
    const from = Date.now()
    r.expect(1, ['a', 'b', 'c', 'd'], from)
    activity.saw('a', from + 100)
    await update()
    t.equal(r.all[0]?.status, 'pending', 'a sign within the margin may be of a call from before the fault')
    activity.saw('a', from + MARGIN_MS + 300)
    await update()
    t.match(r.all[0], { status: 'recovered', seconds: 0.8 })
    t.ok(r.pending(1))
    for (const x of r.all) x.deadline = Date.now() - 1
    leads = false
    const c = r.all[2]!
    c.deadline = Date.now() + 60_000
    await update()
    t.equal(r.all[1]?.status, 'no leads left', 'nothing to dial: no call owed')
    t.equal(r.all[3]?.status, 'pending', 'stopped meanwhile: its time starts when it runs again')
    t.ok(r.all[3]!.deadline > Date.now())
    leads = true
    c.deadline = Date.now() - 1
    await update()
    t.equal(c.status, 'failed')
    t.ok(r.pending(), 'd still owes a call')
    t.notOk(r.pending(2), 'fault 2 had no dialer')
  },
)
