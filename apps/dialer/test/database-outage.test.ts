import { mysqlOutage, recordDialectResult, sqliteOutage, testDialects } from '@hold-dialer/db/testing'
import pino from 'pino'
import t from 'tap'
import { harness, lead } from './harness.js'

// DECISIONS section 3, "Database unavailable", for the dialer while it runs: the database goes away
// in the middle of a call (SQLite: another connection holds the write lock; MariaDB: the relay to
// it is cut). The dialer keeps the call's result and writes it when the database is back; the
// outage is logged once (a line a minute at most), not by every loop at every tick.

for (const dialect of testDialects()) {
  const result = await t.test(dialect, async (t) => {
    const outage =
      dialect === 'sqlite'
        ? await sqliteOutage(t, { migrate: true })
        : await mysqlOutage(t, { migrate: true })
    await outage.giveBack()
    const lines: Array<Record<string, unknown>> = []
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    const h = await harness(t, outage.database, { logger })
    await h.addAgent('1001')
    h.sim.setOutcome('5556000001', { kind: 'answer', ringSeconds: 1, talkSeconds: 150 })
    await h.push(lead('OUT-1', '5556000001'))
    await h.until('talking', () =>
      h.sim.calls.some((c) => c.number === '5556000001' && c.answeredAt !== null),
    )
    await outage.takeAway()
    await h.until('the call ended while the database was away', () =>
      h.sim.calls.some((c) => c.number === '5556000001' && c.endedAt !== null),
    )
    await h.until('its result failed to be written twice', () => h.dialer.stats.settleErrors >= 2)
    const noisy = lines.filter(
      (l) => Number(l.level) >= 40 && !String(l.msg).startsWith('database unavailable'),
    )
    t.same(
      noisy.map((l) => l.msg),
      [],
      'no warning per loop or per retry',
    )
    t.equal(
      lines.filter((l) => String(l.msg).startsWith('database unavailable')).length,
      1,
      'the outage logged once',
    )
    await outage.giveBack()
    await h.until(
      'settled once the database is back',
      async () => (await h.lead('OUT-1'))?.dial_status === 'Received',
    )
    t.match(await h.lead('OUT-1'), { call_count: 1, isReserved: 0 })
    t.equal((await h.attempts('OUT-1')).length, 1, 'written once')
    // The probe (every 2 s) logs the return; the settle retry may have got through before it.
    await h.until('the return logged', () => lines.some((l) => l.msg === 'database available again'))
    t.pass('the return is logged')
    // Stopped here, before the outage's teardown closes the database under a dialer still polling it.
    await h.stopDialer()
  })
  recordDialectResult(dialect, t.name, result?.ok ?? false)
}
