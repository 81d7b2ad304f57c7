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
import { chromium, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
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

/** The little of the DOM the page functions below read (the tests are compiled without the DOM's types). */
interface PageElement {
  className: string
  textContent: string | null
  hidden: boolean
  scrollWidth: number
  getAttribute(name: string): string | null
  getBoundingClientRect(): { right: number }
  querySelector(selector: string): PageElement | null
}
interface PageWindow {
  innerWidth: number
  document: {
    documentElement: PageElement
    querySelector(selector: string): PageElement | null
    querySelectorAll(selector: string): Iterable<PageElement>
  }
  getComputedStyle(element: PageElement): Record<string, string>
}

/** What the checks below read of the console page, in one pass (so the numbers are of one moment). */
function measure(dialerId: string) {
  const w = globalThis as unknown as PageWindow
  const d = w.document
  const one = (selector: string) => d.querySelector(selector)
  const all = (selector: string) => [...d.querySelectorAll(selector)]
  const textOf = (selector: string) => one(selector)?.textContent?.trim() ?? null
  const style = (selector: string) => {
    const node = one(selector)
    return node ? w.getComputedStyle(node) : {}
  }
  // The dialer's row, its cells found by their column's heading.
  const self = one(`#dialers tr[data-dialer="${dialerId}"]`)
  const column = (heading: string) =>
    all('#dialers thead th').findIndex((th) => th.textContent?.trim() === heading) + 1
  const cell = (heading: string) => self?.querySelector(`td:nth-child(${column(heading)})`) ?? null
  return {
    width: w.innerWidth,
    scrollWidth: d.documentElement.scrollWidth,
    /** Panels whose box reaches past the window's right edge. */
    panelsPastEdge: all('.panel, .tiles, .top')
      .filter((p) => p.getBoundingClientRect().right > w.innerWidth + 0.5)
      .map((p) => p.querySelector('h2')?.textContent ?? p.className),
    tileCalls: textOf('#t-calls'),
    liveCallRows: all('#calls tbody tr[data-lead-id]').length,
    selfMarked: self?.getAttribute('data-self') ?? null,
    selfCalls: cell('Calls')?.textContent ?? null,
    selfAmi: cell('AMI')?.textContent ?? null,
    selfPbx: cell('PBX')?.textContent ?? null,
    headerAmi: textOf('#ami'),
    legend: all('#abandon-legend li').map((li) => ({
      id: li.getAttribute('id'),
      text: li.textContent?.trim() ?? '',
      hidden: li.hidden,
    })),
    swatch: {
      rate: style('#abandon-legend .swatch.rate').borderTopColor,
      cap: style('#abandon-legend .swatch.cap').borderTopColor,
      capStyle: style('#abandon-legend .swatch.cap').borderTopStyle,
      answered: style('#abandon-legend .swatch.answered').backgroundColor,
    },
    mark: {
      rate: style('#abandon-chart polyline.rate').stroke,
      cap: style('#abandon-chart line.cap').stroke,
      capDash: style('#abandon-chart line.cap').strokeDasharray,
      answered: style('#abandon-chart rect.answered').fill,
    },
    answeredAxis: all('#abandon-chart text.answered-axis').map((l) => ({
      text: l.textContent ?? '',
      y: Number(l.getAttribute('y')),
    })),
    rateAxis: all('#abandon-chart text.y-axis').map((l) => l.textContent ?? ''),
    bars: all('#abandon-chart rect.answered').map((r) => ({
      answered: Number(r.getAttribute('data-answered')),
      height: Number(r.getAttribute('height')),
    })),
    agents: all('#agents tbody tr[data-agent-id]').map((tr) => ({
      name: tr.querySelector('td')?.textContent ?? '',
      state: tr.getAttribute('data-state'),
      why: tr.querySelector('.why')?.textContent ?? null,
      whyColor: tr.querySelector('.why') ? w.getComputedStyle(tr.querySelector('.why')!).color : null,
    })),
    panelBackground: style('.panel').backgroundColor,
  }
}

/** The login page: the message a wrong secret gets, and the page's width. */
function loginView() {
  const w = globalThis as unknown as PageWindow
  return {
    problem: w.document.querySelector('.problem')?.textContent ?? null,
    scrollWidth: w.document.documentElement.scrollWidth,
  }
}

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours as getComputedStyle gives them. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0)
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi! + 0.05) / (lo! + 0.05)
}

function textDiffers([selector, before]: readonly [string, string | null]): boolean {
  return (globalThis as unknown as PageGlobal).document.querySelector(selector)?.textContent !== before
}

function numberIs([selector, want]: readonly [string, number]): boolean {
  return Number((globalThis as unknown as PageGlobal).document.querySelector(selector)?.textContent) === want
}

/**
 * What a first look at the console asked for, checked on one page at its width: the abandon chart's
 * legend and the bars' own scale, one count of this dialer's calls, a reason for every agent offered
 * no call, and a page no wider than its window.
 */
async function checkConsole(t: Test, page: Page, calls: number): Promise<void> {
  const m = await page.evaluate(measure, 'dialer-test')
  const at = `at ${m.width} px`

  // No horizontal scrolling of the page: a table wider than its panel scrolls inside the panel.
  t.ok(m.scrollWidth <= m.width, `${at}: the page is no wider than the window (${m.scrollWidth} px)`)
  t.same(m.panelsPastEdge, [], `${at}: no panel reaches past the window's right edge`)

  // This dialer's calls, counted once: the tile, the live calls table and its row of the dialers table.
  t.same(
    [m.tileCalls, m.liveCallRows, m.selfCalls],
    [String(calls), calls, String(calls)],
    `${at}: the tile, the live calls table and the dialers table agree on ${calls} live calls`,
  )
  t.equal(`AMI ${m.selfAmi}`, m.headerAmi, `${at}: the dialers table and the header agree on the AMI link`)
  t.equal(m.selfMarked, 'true', `${at}: the dialers table marks the row of the dialer serving the page`)
  t.equal(m.selfPbx, 'default', `${at}: the dialers table says which PBX the dialer serves`)

  // The abandon chart: a legend that names each mark, drawn as the chart draws it.
  t.match(
    m.legend,
    [
      { id: 'legend-rate', text: /^abandon rate \(left scale, %\)$/, hidden: false },
      { id: 'legend-cap', text: /^cap \(ABANDON_RATE_MAX\)$/, hidden: false },
      { id: 'legend-answered', text: /^answered calls \(right scale, calls\)$/, hidden: false },
    ],
    `${at}: the abandon chart's legend names the rate, the cap and the bars`,
  )
  t.equal(m.swatch.rate, m.mark.rate, `${at}: the legend's rate sample has the rate line's colour`)
  t.equal(m.swatch.cap, m.mark.cap, `${at}: the legend's cap sample has the cap line's colour`)
  t.equal(m.swatch.capStyle, 'dashed', `${at}: the legend's cap sample is dashed`)
  t.not(m.mark.capDash, 'none', `${at}: as the cap line is`)
  t.equal(m.swatch.answered, m.mark.answered, `${at}: the legend's answered sample has the bars' colour`)
  t.not(m.swatch.rate, m.swatch.cap, `${at}: the rate and the cap are told apart`)
  // The bars on their own scale, in calls; the left scale is the rate's, in percent.
  t.ok(m.rateAxis.length === 3 && m.rateAxis.every((l) => /%$/.test(l)), `${at}: the left scale is in %`)
  const axis = m.answeredAxis.map((l) => l.text)
  t.ok(
    axis.length === 3 && axis.every((l) => /^\d+$/.test(l)),
    `${at}: the right scale counts answered calls (${axis.join(', ')})`,
  )
  const bottom = m.answeredAxis.find((l) => l.text === '0') ?? { text: '0', y: 0 }
  const top = m.answeredAxis.reduce((a, b) => (Number(b.text) > Number(a.text) ? b : a), bottom)
  const perCall = (bottom.y - top.y) / Number(top.text)
  const busiest = Math.max(...m.bars.map((b) => b.answered))
  t.ok(busiest > 0 && busiest <= Number(top.text), `${at}: the busiest bucket (${busiest}) is on the scale`)
  t.same(
    m.bars.filter((b) => Math.abs(b.height - b.answered * perCall) > 0.01),
    [],
    `${at}: each bar is as tall as its answered calls on the right scale`,
  )

  // A reason for every agent the dialer offers no call, readable on the panel.
  const reasonless = m.agents.filter(
    (a) => ['paused', 'resting', 'unavailable', 'offline'].includes(a.state!) && !a.why,
  )
  t.same(reasonless, [], `${at}: every agent paused, resting, unavailable or offline says why`)
  t.match(
    m.agents.filter((a) => ['Dara Walsh', 'Eve Noor', 'Finn Berg'].includes(a.name)),
    [
      { name: 'Dara Walsh', state: 'paused', why: 'paused on the agent panel' },
      { name: 'Eve Noor', state: 'unavailable', why: 'no desk extension' },
      { name: 'Finn Berg', state: 'unavailable', why: 'agent panel never seen' },
    ],
    `${at}: the reason of each agent the dialer follows, and of one it does not (no desk)`,
  )
  t.same(
    m.agents.filter((a) => a.state === 'idle' && a.why !== null),
    [],
    `${at}: an idle agent has no reason`,
  )
  const faint = m.agents.filter((a) => a.whyColor && contrast(a.whyColor, m.panelBackground!) < 4.5)
  t.same(faint, [], `${at}: each reason stands out from the panel (contrast 4.5:1 or more)`)
}

t.test('Chromium is there', async (t) => {
  t.ok(existsSync(CHROMIUM), `a Chromium at ${CHROMIUM} (set CHROMIUM_BIN)`)
})

forEachDialect(t, async (t, database) => {
  const h = await harness(t, database, {
    // Heartbeats an hour apart: the one written at the start (no call yet, AMI still connecting) is the
    // heartbeat row all along, so the page must show this dialer's calls and AMI link from its live
    // state, as the tile and the header do, and cannot agree with them by the luck of a fresh heartbeat.
    env: {
      DIAL_MODE: 'predictive',
      HOLD_TIMEOUT_SECONDS: '30',
      WRAP_SECONDS: '120',
      HEARTBEAT_SECONDS: '3600',
    },
  })
  const db = database.handle.kysely
  const asha = await h.addAgent('1001', { name: 'Asha Rao' })
  const ben = await h.addAgent('1002', { name: 'Ben Okafor' })
  const chen = await h.addAgent('1003', { name: 'Chen Li' })
  const dara = await h.addAgent('1004', { name: 'Dara Walsh', presence: 'paused' })
  // Not offered calls: one without a desk (the dialer does not follow them), one whose panel never opened.
  await h.insertAgent('1005', { name: 'Eve Noor', extension: null })
  await h.addAgent('1006', { name: 'Finn Berg', panel_seen_at: null })
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
  const problems: string[] = []
  /** A page at this size on the test's clock, its script errors collected in `problems`. */
  const open = async (width: number, height: number) => {
    const page = await browser.newPage({ viewport: { width, height } })
    // The page reads the dialer's clock (faked or not) and it flows from there: durations count up from
    // the dialer's times as they do when browser and dialer keep the same time.
    await page.clock.install({ time: Date.now() })
    page.on('pageerror', (err) => problems.push(String(err)))
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text())
    })
    return page
  }
  /** The login form, and a wrong secret. */
  const wrongSecret = async (page: Page) => {
    const width = page.viewportSize()!.width
    await page.goto(`${url}/console`)
    t.equal(
      await page.locator('form[action="/console/login"]').count(),
      1,
      `at ${width} px: the login form first`,
    )
    if (screenshots && width > 390) {
      mkdirSync(DOCS, { recursive: true })
      await page.screenshot({ path: `${DOCS}login.png` })
    }
    await page.fill('#secret', 'not-the-secret')
    await page.click('button[type=submit]')
    await page.waitForSelector('.problem')
    t.equal(await page.locator('#agents').count(), 0, `at ${width} px: a wrong secret shows no console`)
    const view = await page.evaluate(loginView)
    t.equal(
      view.problem,
      'Wrong secret: not signed in. Check it and try again.',
      `at ${width} px: a wrong secret is called wrong`,
    )
    t.ok(view.scrollWidth <= width, `at ${width} px: the login page fits (${view.scrollWidth} px)`)
  }
  const signIn = async (page: Page) => {
    await page.fill('#secret', HTTP_SECRET)
    await page.click('button[type=submit]')
    await page.waitForSelector('#stream[data-state="live"]')
  }

  const page = await open(1440, 1000)
  // A phone (390 px), signed in beside the desktop: both follow the same dialer.
  const phone = await open(390, 844)
  await wrongSecret(page)
  await wrongSecret(phone)
  // The browser reports those 401s as console errors; only what follows the sign-in counts below.
  problems.splice(0)
  await signIn(page)
  await signIn(phone)
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
  for (const p of [page, phone]) {
    await p.waitForSelector(`#dialers tr[data-dialer="dialer-test"]`)
    await p.waitForSelector(`#agents tr[data-state="unavailable"] .why`)
    await p.waitForFunction(numberIs, ['#t-calls', 2] as const)
    await checkConsole(t, p, 2)
  }
  if (screenshots) {
    await page.screenshot({ path: `${DOCS}console.png`, fullPage: true })
    await phone.screenshot({ path: `${DOCS}console-phone.png`, fullPage: true })
  }

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
  for (const p of [page, phone]) {
    await p.waitForFunction(numberIs, ['#t-calls', 1] as const)
    await checkConsole(t, p, 1)
  }
  if (screenshots) await page.screenshot({ path: `${DOCS}console-after-hangup.png`, fullPage: true })
  t.same(problems, [], 'no script error in the page')

  // Signing out ends the session: the console asks for the secret again.
  await page.click('header form button')
  await page.waitForSelector('form[action="/console/login"]')
})
