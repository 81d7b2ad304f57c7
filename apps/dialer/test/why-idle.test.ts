import { forEachDialect, middayZone } from '@hold-dialer/db/testing'
import pino from 'pino'
import t from 'tap'
import { harness, lead } from './harness.js'

// "Why is nothing dialed?" with the whole dialer on pbx-sim: each reason said once in the log at
// info, and shown in the dialer's idle snapshot (/healthz) and live state (the console).

/** A fixed-offset zone where it is 03:00-03:59 now: outside any calling window of 08:00-21:00. */
function zoneAtThreeAm(now: Date): string {
  let offset = (((3 - now.getUTCHours()) % 24) + 24) % 24
  if (offset > 14) offset -= 24
  // Etc/GMT's sign is POSIX's: Etc/GMT-5 is UTC+5.
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`
}

forEachDialect(t, async (t, database) => {
  t.test('no agent, then a lead outside its customer hours, then a call: each said once', async (t) => {
    const lines: Array<Record<string, unknown>> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const h = await harness(t, database, { env: { CALLING_HOURS: '08:00-21:00' }, logger })
    const said = (prefix: string) => lines.filter((l) => String(l.msg).startsWith(prefix))
    const codes = () => h.dialer.idle()?.reasons.map((r) => r.code) ?? []

    await h.until('no agent said', () => codes().includes('no-agent-ready'))
    t.match(h.dialer.idle()?.reasons[0]?.text, /the roster is empty \(pnpm agents add\)/)
    // Said once each time the reasons change (the PBX link comes up first, at start).
    const roster = said('nothing dialed').filter((l) => /the roster is empty/.test(String(l.msg)))
    t.match(roster, [{ msg: /no agent can take a call: the roster is empty/, level: 30 }])
    const before = said('nothing dialed').length
    t.equal(h.dialer.liveState().idle?.reasons[0]?.code, 'no-agent-ready', 'the console is told too')

    await h.addAgent('8401')
    const zone = zoneAtThreeAm(new Date())
    await h.push(lead('WHY-1', '5558400001'))
    await database.handle.kysely
      .updateTable('hold_dialer_master_data')
      .set({ customer_tz: zone })
      .where('oli_id', '=', 'WHY-1')
      .execute()
    await h.until('the waiting lead said', () => codes().includes('leads-outside-customer-hours'))
    const waiting = h.dialer.idle()!.reasons.find((r) => r.code === 'leads-outside-customer-hours')!
    t.equal(waiting.leads, 1)
    // 08:00 in a zone where it is 03:xx now: between 4 and 5 hours away.
    const hoursAway = (Date.parse(waiting.nextAt!) - Date.now()) / 3_600_000
    t.ok(hoursAway > 4 && hoursAway <= 5, `the first call ${hoursAway.toFixed(2)} h away`)
    t.equal(h.sim.calls.length, 0, 'not dialed')
    // Said once for the new reason. Between the roster's change and the lead's push the dialer may
    // also have said "no lead is due", depending on when its rounds fell on a loaded machine.
    const waitingLines = said('nothing dialed').filter((l) => /wait for their customers/.test(String(l.msg)))
    t.equal(waitingLines.length, 1, 'said once, for the new reason')
    t.ok(said('nothing dialed').length > before, 'said after the roster line')
    const messages = said('nothing dialed').map((l) => l.msg)
    t.ok(
      messages.every((m, i) => i === 0 || m !== messages[i - 1]),
      'never the same reasons twice in a row',
    )
    t.equal(h.dialer.liveState().agents[0]?.why, null, 'the agent could take a call')

    await database.handle.kysely
      .updateTable('hold_dialer_master_data')
      // A zone where it is midday now, whatever the hour the suite runs at.
      .set({ customer_tz: middayZone(new Date()) })
      .where('oli_id', '=', 'WHY-1')
      .execute()
    await h.until('dialed', () => h.sim.calls.length > 0)
    await h.until('dialing again said', () => said('dialing again').length === 1)
    t.equal(h.dialer.idle(), null, 'no reason while it dials')
    t.notOk(
      lines.some((l) => JSON.stringify(l).includes('5558400001')),
      'no phone number in the log',
    )
  })

  t.test("a paused agent: the agent's reason in the log, the snapshot and the live state", async (t) => {
    const lines: Array<Record<string, unknown>> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const h = await harness(t, database, { logger })
    await h.addAgent('8402', { presence: 'paused' })
    await h.until('said', () =>
      Boolean(h.dialer.idle()?.reasons[0]?.agents?.some((a) => a.extension === '8402')),
    )
    // The first test's agent 8401 is on this database's roster too, at a desk this PBX does not know.
    t.same(
      h.dialer.idle()?.reasons[0]?.agents?.find((a) => a.extension === '8402'),
      { extension: '8402', name: 'Agent 8402', why: 'paused on the agent panel' },
    )
    t.equal(h.dialer.liveState().agents.find((a) => a.extension === '8402')?.why, 'paused on the agent panel')
    t.ok(lines.some((l) => /8402 Agent 8402: paused on the agent panel/.test(String(l.msg))))
  })
})
