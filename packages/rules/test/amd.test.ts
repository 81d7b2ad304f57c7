// Answering machine detection in the governor's window, and which verdicts reach an agent.
import t from 'tap'
import { amdGoesToAgent, governedWindow, pacing } from '../src/index.js'

t.test(
  'machines hung up are left out of the window but their share, as answered and abandoned',
  async (t) => {
    t.same(governedWindow({ answered: 100, abandoned: 2, machines: 50 }, 0.2), {
      answered: 110,
      abandoned: 12,
    })
    t.same(
      governedWindow({ answered: 100, abandoned: 2, machines: 50 }, 0),
      { answered: 100, abandoned: 2 },
      'share 0: only the people who answered count',
    )
    t.same(
      governedWindow({ answered: 0, abandoned: 0, machines: 10 }, 1),
      { answered: 10, abandoned: 10 },
      'share 1: every machine hung up is an abandoned call',
    )
    t.same(governedWindow({ answered: 40, abandoned: 1, machines: 0 }, 0.2), { answered: 40, abandoned: 1 })
  },
)

t.test('the share of machines uses up the abandon budget: fewer lines are dialed', async (t) => {
  const input = (window: { answered: number; abandoned: number }) =>
    pacing({
      readyAgents: 5,
      idleAgents: 5,
      waiting: 0,
      inFlight: 0,
      answerRate: 0.3,
      window,
      abandonRateMax: 0.03,
      maxDialLevel: 3,
    })
  const clean = input(governedWindow({ answered: 1000, abandoned: 10, machines: 200 }, 0))
  const counted = input(governedWindow({ answered: 1000, abandoned: 10, machines: 200 }, 0.2))
  t.ok(clean.budget > counted.budget, `budget ${clean.budget} > ${counted.budget}`)
  t.ok(clean.lines >= counted.lines, `lines ${clean.lines} >= ${counted.lines}`)
})

t.test(
  'HUMAN, NOTSURE and a failed detection go to an agent; MACHINE only in record-only mode',
  async (t) => {
    t.equal(amdGoesToAgent('HUMAN', false), true)
    t.equal(amdGoesToAgent('NOTSURE', false), true, 'NOTSURE is taken as a person')
    t.equal(amdGoesToAgent('', false), true, 'AMD could not run')
    t.equal(amdGoesToAgent('MACHINE', false), false)
    t.equal(amdGoesToAgent('MACHINE', true), true, 'record-only: the machine goes to an agent too')
  },
)
