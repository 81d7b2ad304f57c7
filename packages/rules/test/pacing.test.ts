import fc from 'fast-check'
import t from 'tap'
import {
  abandonRate,
  dialLevel,
  guardAnswerRate,
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
    const mid = dialLevel(0.25, cap * 0.65, cap, 3)
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
      (agents, cap, history, steps) => {
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
