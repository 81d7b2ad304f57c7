import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { memoryLogger } from '../asterisk-test/testbed.js'
import { dialerHealth } from '../src/http/routes.js'
import { type Harness, harness, lead } from './harness.js'

// The trunk breaker on pbx-sim, both dial modes: customer channels that cannot be created
// (sim.setTrunkDown: no channel at all) stop the dialing after TRUNK_BREAKER_FAILURES in a row,
// instead of ringing every agent for calls that go nowhere; one try every
// TRUNK_BREAKER_PROBE_SECONDS; the first customer channel created resumes the dialing. The dialer's
// clock is fixed and moved by the test, so the probe period is exact.
const START = Date.parse('2026-03-02T10:00:00.000Z')

/** Moves the dialer's clock to `ms` after START (the agents' panels seen then). */
function at(h: Harness, ms: number): Promise<void> {
  return h.setClock(new Date(START + ms).toISOString())
}

forEachDialect(t, async (t, database) => {
  for (const mode of ['progressive', 'predictive'] as const) {
    t.test(
      `${mode}: 3 legs not created stop the dialing; one try every 30 s; resumed once one gets through`,
      async (t) => {
        const { logger, lines } = memoryLogger()
        const h = await harness(t, database, {
          now: new Date(START).toISOString(),
          logger,
          env: { DIAL_MODE: mode, TRUNK_BREAKER_FAILURES: '3', TRUNK_BREAKER_PROBE_SECONDS: '30' },
        })
        const ext = mode === 'progressive' ? 41 : 42
        await h.addAgent(`${ext}01`)
        await h.addAgent(`${ext}02`)
        h.sim.setTrunkDown()
        // Predictive dials several lines a round, all under way before the first fails: more leads.
        const olis = Array.from({ length: mode === 'predictive' ? 16 : 8 }, (_, i) => `TB-${mode}-${i + 1}`)
        for (const [i, oli] of olis.entries())
          await h.push(lead(oli, `5554${ext}00${String(i + 1).padStart(2, '0')}`))
        const placed = () => h.sim.calls.length

        // A predictive call whose Originate failed with no channel waits 500 ms on the dialer's
        // clock for a late channel event: the fixed clock is moved on while such calls end.
        let offset = 0
        const step = async () => {
          if (mode === 'predictive') {
            offset += 600
            await at(h, offset)
          }
          return false
        }
        await h.until('breaker open', async () => h.dialer.trunk().state === 'open' || step())
        const since = h.dialer.trunk().since ?? 0
        // A round that began before it opened dials what it claimed: let it end first.
        await h.dialer.claimRounds(2)
        await h.until('calls under way ended', async () => h.dialer.activeCalls === 0 || step())
        const atOpen = placed()
        t.ok(
          atOpen >= 3 && atOpen < olis.length,
          `3 failures opened it (${atOpen} calls placed, with those under way when it opened)`,
        )
        await h.dialer.claimRounds(3)
        t.equal(placed(), atOpen, 'no call placed while open: no agent rung in a loop')
        t.match(h.dialer.trunk(), { state: 'open', since, nextProbeAt: since + 30_000, trying: false })
        t.match(dialerHealth(h.dialer, h.ami).trunk, { state: 'open' }, '/healthz says so')
        t.match(h.dialer.liveState().trunk, { state: 'open' }, 'the console says so')
        const metrics = await h.dialer.metrics.text()
        t.match(metrics, /hold_dialer_dialer_trunk_breaker_open 1/)
        t.match(metrics, /hold_dialer_dialer_trunk_breaker_trips_total 1/)
        t.match(
          metrics,
          new RegExp(`hold_dialer_dialer_customer_legs_not_created_total\\{mode="${mode}"\\} ${atOpen}\\b`),
        )
        const opened = lines.filter((l) => String(l.msg).startsWith('trunk breaker open'))
        t.equal(opened.length, 1, 'one error logged')
        t.equal(opened[0]?.level, 50)
        for (const oli of olis) {
          const row = await h.lead(oli)
          t.match(row, { call_count: 0, dial_status: 'Pending' }, `${oli}: nothing counted`)
        }

        // 29 s later: still nothing. 30 s: one try, which fails: the next one 30 s after it.
        await at(h, since - START + 29_000)
        await h.dialer.claimRounds(2)
        t.equal(placed(), atOpen, 'no try before the probe period')
        offset = since - START + 30_000
        await at(h, offset)
        await h.until('one try', () => placed() === atOpen + 1)
        await h.until(
          'the try ended',
          async () => (h.dialer.trunk().nextProbeAt ?? 0) >= since + 60_000 || step(),
        )
        const nextTry = h.dialer.trunk().nextProbeAt ?? 0
        t.equal(nextTry, START + offset + 30_000, 'the next try 30 s after the failed one ended')
        await h.dialer.claimRounds(2)
        t.equal(placed(), atOpen + 1, 'one try only')
        t.match(h.dialer.trunk(), { state: 'open', trying: false })

        // The trunk is back: the next try gets through, the dialing resumes, every lead is dialed.
        h.sim.setTrunkDown(false)
        await at(h, nextTry - START)
        await h.until('breaker closed', () => h.dialer.trunk().state === 'closed')
        t.equal(lines.filter((l) => String(l.msg).startsWith('trunk breaker closed')).length, 1)
        t.match(await h.dialer.metrics.text(), /hold_dialer_dialer_trunk_breaker_open 0/)
        // The leads of failed calls wait 60 s before they are claimed again (a call never placed). The
        // others are dialed first: moved on by 61 s, the clock would time out a call still waiting for
        // its OriginateResponse (never placed, 60 s), and its lead would wait 60 s more.
        await h.until('nothing more to dial until the cool-down ends', async () => {
          await h.dialer.claimRounds(2)
          return h.dialer.activeCalls === 0
        })
        await at(h, nextTry - START + 61_000)
        await h.until('every lead received', async () => {
          for (const oli of olis) if ((await h.lead(oli))?.dial_status !== 'Received') return false
          return true
        })
        for (const oli of olis)
          t.equal((await h.attempts(oli)).length, 1, `${oli}: one attempt, the one that got through`)
      },
    )
  }

  t.test('TRUNK_BREAKER_FAILURES=0: never opens', async (t) => {
    const h = await harness(t, database, { env: { TRUNK_BREAKER_FAILURES: '0' } })
    await h.addAgent('4301')
    h.sim.setTrunkDown()
    await h.push(lead('TB-OFF-1', '5554100101'))
    await h.push(lead('TB-OFF-2', '5554100102'))
    await h.until('both tried', () => h.sim.calls.length >= 2)
    t.equal(h.dialer.trunk().state, 'closed')
  })
})
