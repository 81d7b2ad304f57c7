// The reference agent panel end to end: a real dialer (progressive) against pbx-sim, its listener
// serving the agent interface, and Debian's Chromium driven by playwright-core. Run by scripts/test.mjs
// when a Chromium is there (CHROMIUM_BIN, default /usr/bin/chromium); CI requires it.
import { existsSync } from 'node:fs'
import { forEachDialect, withoutFakeClock } from '@hold-dialer/db/testing'
import pino from 'pino'
import { chromium } from 'playwright-core'
import t from 'tap'
import { runAgentsCli } from '../src/cli/agents.js'
import { agentRoutes } from '../src/http/agent/plugin.js'
import { dialerHealth } from '../src/http/routes.js'
import { buildDialerHttp } from '../src/http/server.js'
import { harness, lead } from '../test/harness.js'

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const PIN = '4821'

t.test('Chromium is there', async (t) => {
  t.ok(existsSync(CHROMIUM), `a Chromium at ${CHROMIUM} (set CHROMIUM_BIN)`)
})

forEachDialect(t, async (t, database) => {
  // The customer answers after 0.5 s and talks for 2 s (pbx-sim at 50 times real time).
  const h = await harness(t, database, {
    env: { WRAP_SECONDS: '120' },
    defaultOutcome: { kind: 'answer', ringSeconds: 25, talkSeconds: 100 },
  })
  await h.addAgent('1001', { name: 'Asha Rao', presence: 'paused', pause_reason: 'break' })
  const code = await runAgentsCli(['set-pin', '1001'], database.url, {
    out: () => {},
    err: (s) => t.fail(s),
    readPin: async () => PIN,
  })
  t.equal(code, 0, 'PIN set')

  // The listener as main.ts builds it, without DIALER_HTTP_SECRET: the agent interface needs none.
  const app = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: undefined,
    logger: pino({ level: 'silent' }),
    health: () => dialerHealth(h.dialer, h.ami),
    open: [
      agentRoutes({
        db: database.handle.kysely,
        live: () => h.dialer.liveState(),
        pauseReasons: h.config.agentPauseReasons,
        callbackMode: h.config.callbackMode,
        timezone: h.config.timezone,
        logger: pino({ level: 'silent' }),
        timing: { pollMs: 100 },
      }),
    ],
  })
  t.teardown(() => app.close())
  const url = await app.listen({ host: '127.0.0.1', port: 0 })

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // CI runs as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox'],
    env: withoutFakeClock(),
  })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(String(err)))

  await page.goto(`${url}/agent`)
  await page.waitForSelector('#sign-in:not([hidden])')
  await page.fill('#extension', '1001')
  await page.fill('#pin', '0000')
  await page.click('#sign-in button[type=submit]')
  await page.waitForSelector('#sign-in-problem:not([hidden])')
  t.match(
    await page.textContent('#sign-in-problem'),
    /wrong extension or PIN/,
    'a wrong PIN is said to be wrong',
  )
  t.ok(await page.isHidden('#panel'), 'and shows no panel')

  await page.fill('#pin', PIN)
  await page.click('#sign-in button[type=submit]')
  await page.waitForSelector('#state[data-state="paused"]')
  t.match(await page.textContent('#agent-name'), /Asha Rao/, 'signed in: the agent by name')
  t.match(await page.textContent('#state'), /paused \(break\)/, 'paused, with the reason')
  await page.waitForSelector('#why:not([hidden])')
  t.equal(
    await page.textContent('#why'),
    'No call: paused on the agent panel',
    "and the dialer's reason for no call",
  )
  const cookies = await page.context().cookies()
  t.match(cookies, [{ name: 'hd_agent', httpOnly: true, sameSite: 'Strict' }], 'an HttpOnly session cookie')
  t.same(
    await page.locator('#reason option').allTextContents(),
    ['break', 'lunch', 'training'],
    'the configured pause reasons are offered',
  )

  await page.selectOption('#reason', 'lunch')
  await page.click('#pause')
  await page.waitForFunction(() => {
    const el = (
      globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }
    ).document
    return el.getElementById('state').textContent === 'paused (lunch)'
  })
  t.pass('a pause with another reason shows on the page')

  await page.click('#ready')
  await page.waitForSelector('#state[data-state="ready"]')
  await h.push(
    lead('PANEL-1', '5554000001', { client_name: 'Ravi Kumar', form_type: 'renewal', priority_id: 2 }),
  )
  await page.waitForSelector('#call:not([hidden])')
  await page.waitForSelector('#pop dd[data-field="oliId"]:text("PANEL-1")')
  t.equal(await page.textContent('#pop dd[data-field="name"]'), 'Ravi Kumar', 'the screen pop: the name')
  t.equal(await page.textContent('#pop dd[data-field="formType"]'), 'renewal', 'the form type')
  t.equal(await page.textContent('#pop dd[data-field="priority"]'), '2', 'the priority')
  t.match(await page.textContent('#pop dd[data-field="number"]'), /5554000001/, 'the number')

  await page.waitForSelector('#state[data-state="wrap-up"]')
  t.ok(await page.isVisible('#wrap'), 'wrap-up shows its end')
  t.match(await page.textContent('#attempts tbody'), /Received/, "the call's own outcome among the attempts")
  await page.fill('#callback-at', '2030-01-02T15:30')
  await page.click('#callback button[type=submit]')
  await page.waitForSelector('#callback-result[data-ok="true"]')
  t.match(await page.textContent('#callback-result'), /Callback at 2030-01-02 15:30:00 for PANEL-1/)
  t.match(await h.lead('PANEL-1'), { dial_status: 'Callback' }, 'the lead waits for its callback')

  await page.click('#ready-now')
  await page.waitForSelector('#state[data-state="ready"]')
  t.ok(await page.isHidden('#call'), 'ready now: the wrap-up and its call are gone')
  const width = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  )
  t.ok(width <= 390, `the panel fits a 390 px phone (${width} px)`)

  await page.click('#sign-out')
  await page.waitForSelector('#sign-in:not([hidden])')
  t.match(await h.lead('PANEL-1'), { dial_status: 'Callback' })
  const row = await database.handle.kysely
    .selectFrom('dialer_employee')
    .select('presence')
    .where('extension', '=', '1001')
    .executeTakeFirstOrThrow()
  t.equal(row.presence, 'offline', 'signing out sets presence offline')
  t.same(problems, [], 'no script error in the page')
})
