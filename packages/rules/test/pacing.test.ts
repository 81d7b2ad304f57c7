import fc from 'fast-check'
import t from 'tap'
import {
  abandonRate,
  dialLevel,
  type Forecast,
  forecastLines,
  guardAnswerRate,
  MARGIN_AGENTS,
  type PacingInput,
  pacing,
  THROTTLE_FROM,
  THROTTLE_FULL,
} from '../src/index.js'

const base: PacingInput = {
  readyAgents: 10,
  idleAgents: 10,
  waiting: 0,
  inFlight: 0,
  answerRate: 0.25,
  window: { answered: 10_000, abandoned: 0 },
  abandonRateMax: 0.03,
  maxDialLevel: 3,
}

t.test('never dials when no agent is logged in and ready', async (t) => {
  t.equal(pacing({ ...base, readyAgents: 0, idleAgents: 0 }).lines, 0)
  t.equal(pacing({ ...base, readyAgents: 0, idleAgents: 5 }).lines, 0)
})

t.test('never more than MAX_DIAL_LEVEL lines per ready agent', async (t) => {
  const d = pacing({ ...base, answerRate: 0.01, maxDialLevel: 3 })
  t.equal(d.dialLevel, 3)
  t.equal(d.lines, 30)
  t.equal(pacing({ ...base, answerRate: 0.01, inFlight: 25 }).lines, 5)
  t.equal(
    pacing({ ...base, answerRate: 0.01, readyAgents: 12, idleAgents: 2, inFlight: 0 }).lines,
    6,
    'level x idle',
  )
})

t.test('dial level follows the answer rate: 1 / rate, at least 1', async (t) => {
  t.equal(dialLevel(0.5, 0, 0.03, 3), 2)
  t.equal(dialLevel(1, 0, 0.03, 3), 1)
  t.equal(dialLevel(null, 0, 0.03, 3), 1, 'unknown rate: no overdial')
  t.equal(dialLevel(0, 0, 0.03, 3), 1)
  t.equal(pacing({ ...base, answerRate: 0.5 }).lines, 20)
})

t.test(
  'the dial level falls to 1 as the abandon rate nears the cap, and recovers as the rate falls',
  async (t) => {
    const cap = 0.03
    t.equal(dialLevel(0.25, cap * THROTTLE_FULL, cap, 3), 1)
    t.equal(dialLevel(0.25, cap * 0.95, cap, 3), 1)
    t.equal(dialLevel(0.25, cap * THROTTLE_FROM, cap, 3), 3)
    const mid = dialLevel(0.25, (cap * (THROTTLE_FROM + THROTTLE_FULL)) / 2, cap, 3)
    t.ok(mid > 1 && mid < 3, `between: ${mid}`)
    t.equal(dialLevel(0.25, 0.01, 0, 3), 1, 'a zero cap allows no overdial')
  },
)

t.test('a bad recent stretch throttles the dial level even under a clean long window', async (t) => {
  const clean = pacing({ ...base, window: { answered: 100_000, abandoned: 100 } })
  t.equal(clean.dialLevel, 3)
  const bad = pacing({
    ...base,
    window: { answered: 100_000, abandoned: 100 },
    recent: { answered: 200, abandoned: 6 },
  })
  t.equal(bad.dialLevel, 1)
  const few = pacing({
    ...base,
    window: { answered: 100_000, abandoned: 100 },
    recent: { answered: 10, abandoned: 5 },
  })
  t.equal(few.dialLevel, 3, 'too few recent calls to judge')
})

t.test('agents about to be free add lines, paid from the budget', async (t) => {
  const now = pacing({ ...base, idleAgents: 2, soonFree: 3, window: { answered: 10_000, abandoned: 0 } })
  t.equal(now.lines, 15, '(2 + 3) x 3')
  const noBudget = pacing({ ...base, idleAgents: 2, soonFree: 3, window: { answered: 0, abandoned: 0 } })
  t.equal(noBudget.lines, 2, 'only the idle agents without budget')
})

t.test('monotonic: more idle agents or a lower answer rate never dial fewer lines', async () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 0, max: 30 }),
      fc.double({ min: 0.05, max: 1, noNaN: true }),
      (idle, extra, inFlight, answer) => {
        const a = pacing({ ...base, readyAgents: 100, idleAgents: idle, inFlight, answerRate: answer })
        const b = pacing({
          ...base,
          readyAgents: 100,
          idleAgents: idle + extra,
          inFlight,
          answerRate: answer,
        })
        const c = pacing({ ...base, readyAgents: 100, idleAgents: idle, inFlight, answerRate: answer / 2 })
        return b.lines >= a.lines && c.lines >= a.lines
      },
    ),
  )
})

t.test('with no budget only lines that every find an agent are dialed', async (t) => {
  const d = pacing({ ...base, window: { answered: 0, abandoned: 0 } })
  t.equal(d.budget, 0)
  t.equal(d.lines, 10, 'one per idle agent')
  t.equal(
    pacing({ ...base, answerRate: null, window: { answered: 100, abandoned: 3 }, inFlight: 4 }).lines,
    6,
  )
  t.equal(pacing({ ...base, idleAgents: 2, waiting: 3, window: { answered: 100, abandoned: 3 } }).lines, 0)
  t.equal(abandonRate({ answered: 0, abandoned: 0 }), 0)
})

t.test('the guard answer rate is double the measured one, within bounds', async (t) => {
  t.equal(guardAnswerRate(null), 1)
  t.equal(guardAnswerRate(0.25), 0.5)
  t.equal(guardAnswerRate(0.02), 0.02 + 0.1)
  t.equal(guardAnswerRate(0.7), 1)
})

t.test('property: in a scripted worst case the abandon rate never exceeds the cap', async () => {
  // Each step the answer rate is the guard rate (the measured rate doubled, or 1 while unmeasured):
  // that share of the lines in flight answers at once (counted as a fraction, the expected value);
  // idle agents take what they can, the rest are abandoned (never connected within the compliance
  // time). Agents free up only as the script says. The window starts anywhere at or under the cap.
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.double({ min: 0.005, max: 0.2, noNaN: true }),
      fc.integer({ min: 0, max: 5000 }),
      fc.array(
        fc.record({
          freed: fc.integer({ min: 0, max: 10 }),
          answer: fc.double({ min: 0.01, max: 1, noNaN: true }),
        }),
        {
          minLength: 1,
          maxLength: 60,
        },
      ),
      fc.boolean(),
      (agents, cap, history, steps, withForecast) => {
        const window = { answered: history, abandoned: Math.floor(cap * history) }
        let idle = agents
        let inFlight = 0
        for (const step of steps) {
          idle = Math.min(agents, idle + step.freed)
          const d = pacing({
            readyAgents: agents,
            idleAgents: idle,
            // Agents said to be free soon, who in this worst case never are.
            soonFree: step.freed,
            waiting: 0,
            inFlight,
            answerRate: step.answer,
            window,
            abandonRateMax: cap,
            maxDialLevel: 3,
            // The forecast may only lower what the guards allow: the worst case holds with it too.
            ...(withForecast
              ? { forecast: { ...fresh, wrapRemainingSeconds: Array(step.freed).fill(1) } }
              : {}),
          })
          inFlight += d.lines
          const answered = guardAnswerRate(step.answer) * inFlight
          const connected = Math.min(idle, answered)
          window.answered += answered
          window.abandoned += answered - connected
          idle -= Math.ceil(connected)
          inFlight = 0
          if (window.abandoned > cap * window.answered + 1e-9) return false
        }
        return true
      },
    ),
    { numRuns: 500 },
  )
})

const fresh: Forecast = {
  ringingSeconds: [],
  wrapRemainingSeconds: [],
  answerDelayMean: 12,
  ringTimeoutSeconds: 30,
  complianceSeconds: 2,
}

t.test('forecast: lines until the expected surplus of agents meets the margin', async (t) => {
  // 10 free agents, answer rate 0.25: n lines are added while 10 - 0.25 n >= 0.5 + 2 sqrt(n 0.1875).
  const n = forecastLines(fresh, 10, 0.25, 100)
  const holds = (k: number) => 10 - 0.25 * k >= MARGIN_AGENTS + 2 * Math.sqrt(k * 0.25 * 0.75)
  t.ok(n > 0 && holds(n) && !holds(n + 1), `${n} lines`)
  t.equal(forecastLines(fresh, 10, 0.25, 3), 3, 'never more than the limit')
  t.equal(forecastLines(fresh, 0, 0.25, 100), 0, 'no free agent: nothing')
  t.equal(forecastLines(fresh, 10, 0, 7), 7, 'nobody answered lately: the caps decide')
  t.equal(forecastLines(fresh, 10, 1, 100), 9, 'every line answers: one per free agent, less the margin')
})

t.test('forecast: lines ringing long count less than fresh ones', async (t) => {
  const young = forecastLines({ ...fresh, ringingSeconds: Array(8).fill(1) }, 8, 0.25, 100)
  const old = forecastLines({ ...fresh, ringingSeconds: Array(8).fill(25) }, 8, 0.25, 100)
  const none = forecastLines(fresh, 8, 0.25, 100)
  t.ok(young < old && old <= none, `young ${young} < old ${old} <= none ${none}`)
  const unmeasured = forecastLines(
    { ...fresh, answerDelayMean: null, ringingSeconds: Array(8).fill(25) },
    8,
    0.25,
    100,
  )
  t.ok(unmeasured <= young, 'while the delay is unmeasured, every line in flight counts as fresh')
})

t.test('forecast: agents in wrap-up count by how soon they are free', async (t) => {
  const soon = forecastLines({ ...fresh, wrapRemainingSeconds: [1, 1, 1, 1] }, 2, 0.25, 100)
  const later = forecastLines({ ...fresh, wrapRemainingSeconds: [14, 14, 14, 14] }, 2, 0.25, 100)
  const none = forecastLines(fresh, 2, 0.25, 100)
  t.ok(soon > later && later >= none, `soon ${soon} > later ${later} >= none ${none}`)
  t.equal(
    forecastLines({ ...fresh, answerDelayMean: null, wrapRemainingSeconds: [14, 14] }, 2, 0.25, 100),
    none,
    'unmeasured delay: only wrap-ups ending within the compliance time count',
  )
  t.equal(
    forecastLines({ ...fresh, answerDelayMean: null, wrapRemainingSeconds: [1, 2] }, 2, 0.25, 100),
    forecastLines(fresh, 4, 0.25, 100),
  )
})

t.test('forecast: monotonic in free agents and lines in flight', async () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 40 }),
      fc.array(fc.double({ min: 0, max: 40, noNaN: true }), { maxLength: 40 }),
      fc.double({ min: 0.01, max: 1, noNaN: true }),
      (free, ringing, p) => {
        const f = { ...fresh, ringingSeconds: ringing }
        const base = forecastLines(f, free, p, 1000)
        const more = forecastLines(f, free + 1, p, 1000)
        const busier = forecastLines({ ...f, ringingSeconds: [...ringing, 0] }, free, p, 1000)
        return more >= base && busier <= base
      },
    ),
  )
})

t.test('with a forecast, pacing stays within its guards and still serves a lone idle agent', async (t) => {
  const one = pacing({ ...base, readyAgents: 1, idleAgents: 1, forecast: fresh })
  t.equal(one.lines, 1, 'the safe line: it finds the agent even if it answers')
  const calm = pacing({ ...base, forecast: fresh })
  t.equal(calm.lines, forecastLines(fresh, 10, 0.25, 30))
  t.ok(calm.lines > 10 && calm.lines < 30, `${calm.lines}: between one per agent and the level cap`)
  const noBudget = pacing({ ...base, window: { answered: 0, abandoned: 0 }, forecast: fresh })
  t.equal(noBudget.lines, 10, 'no budget: only the lines that every find an agent')
  const unknown = pacing({ ...base, answerRate: null, forecast: fresh })
  t.equal(unknown.lines, 10, 'unknown answer rate: level 1')
})
