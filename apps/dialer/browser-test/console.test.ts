// The supervisor console end to end: a real dialer (predictive) against pbx-sim with calls in flight,
// its listener serving the console, and Debian's Chromium driven by playwright-core. Run by
// scripts/test.mjs when a Chromium is there (CHROMIUM_BIN, default /usr/bin/chromium); CI requires it.
// SCREENSHOTS=1 writes docs/console/*.png (the README's pictures).
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { NewCallAttempt } from '@hold-dialer/db'
import { forEachDialect, withoutFakeClock } from '@hold-dialer/db/testing'
import { toDbTime } from '@hold-dialer/rules'
import pino from 'pino'
import { chromium } from 'playwright-core'
import t from 'tap'
import { consoleRoutes } from '../src/http/console/plugin.js'
import { dialerHealth } from '../src/http/routes.js'
import { buildDialerHttp } from '../src/http/server.js'
import { harness, lead } from '../test/harness.js'

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const HTTP_SECRET = 'console-browser-secret'
const DOCS = fileURLToPath(new URL('../../../docs/console/', import.meta.url))
const screenshots = process.env.SCREENSHOTS === '1'

/** Finished calls of the last hours, so the outcomes table and the abandon chart have a history. */
function history(now: Date): NewCallAttempt[] {
  const rows: NewCallAttempt[] = []
  for (let i = 0; i < 36; i++) {
    const ended = new Date(now.getTime() - (i * 10 + 3) * 60_000)
    // A deterministic spread: a few calls per bucket, now and then an abandon or an unanswered one.
    for (let k = 0; k < 2 + (i % 4); k++) {
      const outcome = (i * 3 + k) % 29 === 0 ? 'Abandoned' : (i * k) % 5 === 3 ? 'Not Connected' : 'Received'
      const answered = outcome !== 'Not Connected'
      rows.push({
        master_id: 100_000 + i * 10 + k,
        oli_id: `H-${i}-${k}`,
        attempt_no: 1,
        dialer_id: 'dialer-test',
        dial_mode: 'predictive',
        agent_id: null,
        agent_extension: null,
        phone_number: '5550000000',
        action_id: null,
        uniqueid: null,
        linkedid: null,
        outcome,
        ami_dial_status: answered ? 'ANSWER' : 'NOANSWER',
        originate_reason: null,
        hangup_cause: 16,
        hangup_cause_txt: null,
        hangup_by: 'customer',
        started_at: toDbTime(new Date(ended.getTime() - 90_000)),
        answered_at: answered ? toDbTime(new Date(ended.getTime() - 80_000)) : null,
        ended_at: toDbTime(ended),
        talk_seconds: outcome === 'Received' ? 60 + ((i * 37 + k * 13) % 240) : null,
      })
    }
  }
  return rows
}

// Predicates run in the page: Playwright sends each function's source there (the page's policy
// refuses strings to evaluate), so each is self-contained and its `document` is the page's.
type PageGlobal = { document: { querySelector(s: string): { textContent: string | null } | null } }

function textDiffers([selector, before]: readonly [string, string | null]): boolean {
  return (globalThis as unknown as PageGlobal).document.querySelector(selector)?.textContent !== before
}

function numberIs([selector, want]: readonly [string, number]): boolean {
  return Number((globalThis as unknown as PageGlobal).document.querySelector(selector)?.textContent) === want
}

t.test('Chromium is there', async (t) => {
  t.ok(existsSync(CHROMIUM), `a Chromium at ${CHROMIUM} (set CHROMIUM_BIN)`)
})

forEachDialect(t, async (t, database) => {
  const h = await harness(t, database, {
    env: { DIAL_MODE: 'predictive', HOLD_TIMEOUT_SECONDS: '30', WRAP_SECONDS: '120' },
  })
  const db = database.handle.kysely
  const asha = await h.addAgent('1001', { name: 'Asha Rao' })
  const ben = await h.addAgent('1002', { name: 'Ben Okafor' })
  const chen = await h.addAgent('1003', { name: 'Chen Li' })
  const dara = await h.addAgent('1004', { name: 'Dara Walsh', presence: 'paused' })
  await db.insertInto('hold_dialer_call_attempts').values(history(new Date())).execute()
  // Leads that wait: a callback for tonight, a retry later, and a lead of a priority never dialed.
  const later = new Date(Date.now() + 3 * 3600_000)
  await h.push([
    lead('CB-1', '5551000001', { callback_scheduled_at: later.toISOString(), priority_id: 2 }),
    lead('FD-1', '5551000002', { priority_id: 3 }),
  ])

  // Two customers who stay on the line until the test hangs one up.
  const hold = { kind: 'answer', ringSeconds: 1, talkSeconds: 100_000 } as const
  h.sim.setOutcome('5552000001', hold)
  h.sim.setOutcome('5552000002', hold)
  await h.push([lead('LIVE-1', '5552000001'), lead('LIVE-2', '5552000002')])
  await h.until('both calls connected to an agent', () => {
    const calls = h.dialer.liveState().calls
    return calls.length === 2 && calls.every((c) => c.phase === 'connected')
  })
  const calls = h.dialer.liveState().calls
  const leadId = async (oli: string) => Number((await h.lead(oli))?.id)
  const live1 = await leadId('LIVE-1')
  const live2 = await leadId('LIVE-2')
  const agentOf = (id: number) => calls.find((c) => c.leadId === id)?.agentId
  const busy = [agentOf(live1), agentOf(live2)]
  t.equal(new Set(busy).size, 2, 'two agents on the two calls')
  const idle = [asha, ben, chen].find((a) => !busy.includes(a))!

  // The listener as main.ts builds it (port 0 here is "any free port", not "off").
  const app = await buildDialerHttp({
    host: '127.0.0.1',
    port: 0,
    secret: HTTP_SECRET,
    logger: pino({ level: 'silent' }),
    health: () => dialerHealth(h.dialer, h.ami),
    ownAuth: [
      consoleRoutes({
        db,
        live: () => h.dialer.liveState(),
        // The rig's zone (middayZone): "today" holds the six hours of history whatever the hour.
        timezone: h.config.timezone,
        logger: pino({ level: 'silent' }),
        timing: { centerPollMs: 500 },
      }),
    ],
  })
  t.teardown(() => app.close())
  const url = await app.listen({ host: '127.0.0.1', port: 0 })

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // CI runs as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox'],
    // Chromium does not run under libfaketime (scripts/fake-clock.sh): its renderers die, even at a zero
    // offset. It is started on the real clock, and the page is given this process's clock below.
    env: withoutFakeClock(),
  })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
  // The page reads the dialer's clock (faked or not) and it flows from there: durations count up from
  // the dialer's times as they do when browser and dialer keep the same time.
  await page.clock.install({ time: Date.now() })
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(String(err)))
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text())
  })

  await page.goto(`${url}/console`)
  t.equal(await page.locator('form[action="/console/login"]').count(), 1, 'the login form first')
  if (screenshots) {
    mkdirSync(DOCS, { recursive: true })
    await page.screenshot({ path: `${DOCS}login.png` })
  }
  await page.fill('#secret', 'not-the-secret')
  await page.click('button[type=submit]')
  await page.waitForSelector('.problem')
  t.equal(await page.locator('#agents').count(), 0, 'a wrong secret shows no console')
  // The browser reports that 401 as a console error; only what follows the sign-in counts below.
  problems.splice(0)
  await page.fill('#secret', HTTP_SECRET)
  await page.click('button[type=submit]')
  await page.waitForSelector('#stream[data-state="live"]')
  const cookies = await page.context().cookies()
  t.match(cookies, [{ name: 'hd_console', httpOnly: true, sameSite: 'Strict' }])
  t.notOk(
    cookies.some((c) => c.value.includes(HTTP_SECRET)),
    'the cookie is not the secret',
  )

  // The agents and calls the test created.
  for (const id of busy) await page.waitForSelector(`#agents tr[data-agent-id="${id}"][data-state="talking"]`)
  await page.waitForSelector(`#agents tr[data-agent-id="${idle}"][data-state="idle"]`)
  await page.waitForSelector(`#agents tr[data-agent-id="${dara}"][data-state="paused"]`)
  t.match(await page.textContent(`#agents tr[data-agent-id="${dara}"]`), /Dara Walsh/)
  t.match(
    await page.textContent(`#agents tr[data-agent-id="${dara}"] .why`),
    /^paused on the agent panel$/,
    'why the dialer offers the agent no call',
  )
  for (const [id, oli] of [
    [live1, 'LIVE-1'],
    [live2, 'LIVE-2'],
  ] as const) {
    const row = page.locator(`#calls tr[data-lead-id="${id}"][data-phase="connected"]`)
    await row.waitFor()
    t.match(await row.textContent(), new RegExp(oli))
  }
  t.equal(await page.textContent('#t-calls'), '2')
  t.match(await page.textContent('#ami'), /connected/)
  await page.waitForSelector('#dialers tr[data-dialer="dialer-test"]')
  await page.waitForSelector('#outcomes tr[data-outcome="Abandoned"]')
  t.ok(await page.locator('#abandon-chart polyline.rate').count(), 'the abandon chart is drawn')
  t.ok(await page.locator('#abandon-chart line.cap').count(), 'with its cap')
  t.ok(await page.locator('#level-chart polyline.level').count(), 'the dial-level chart is drawn')
  await page.waitForSelector('#queue tr[data-priority="2"]')
  const receivedBefore = Number(await page.textContent('#outcomes tr[data-outcome="Received"] td.num'))
  // Durations tick in the page: the call's time moves on without a message from the server.
  const ticking = page.locator(`#calls tr[data-lead-id="${live1}"] [data-since]`).first()
  const shown = await ticking.textContent()
  await page.waitForFunction(textDiffers, [`#calls tr[data-lead-id="${live1}"] [data-since]`, shown] as const)
  if (screenshots) await page.screenshot({ path: `${DOCS}console.png`, fullPage: true })

  // A call ends: the customer hangs up. The page follows without a reload.
  const customer = h.sim.channels().find((c) => c.role === 'customer' && c.number === '5552000001')
  t.ok(customer, 'the customer channel of LIVE-1')
  h.sim.hangupChannel(customer!.name)
  await page.waitForSelector(`#calls tr[data-lead-id="${live1}"]`, { state: 'detached' })
  await page.waitForSelector(`#agents tr[data-agent-id="${agentOf(live1)}"][data-state="wrap-up"]`)
  await page.waitForSelector(`#calls tr[data-lead-id="${live2}"][data-phase="connected"]`)
  await page.waitForFunction(numberIs, [
    '#outcomes tr[data-outcome="Received"] td.num',
    receivedBefore + 1,
  ] as const)
  t.equal(await page.textContent('#t-calls'), '1')
  if (screenshots) await page.screenshot({ path: `${DOCS}console-after-hangup.png`, fullPage: true })
  t.same(problems, [], 'no script error in the page')

  // Signing out ends the session: the console asks for the secret again.
  await page.click('header form button')
  await page.waitForSelector('form[action="/console/login"]')
})
