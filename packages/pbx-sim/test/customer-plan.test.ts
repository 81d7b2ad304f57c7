import t from 'tap'
import { resolvePlan } from '../src/model/customerPlan.js'
import { Rng } from '../src/rng.js'

t.test('random patience: never below its minimum, exponential above it, mean kept', async (t) => {
  const rng = new Rng(7)
  const script = {
    kind: 'random' as const,
    answerProbability: 1,
    ringSeconds: { mean: 5 },
    talkSeconds: { mean: 60 },
    patienceSeconds: { mean: 20, min: 3 },
  }
  const values = Array.from({ length: 4000 }, () => resolvePlan(script, rng).patienceSeconds ?? -1)
  t.ok(Math.min(...values) >= 3, `min ${Math.min(...values)}`)
  const mean = values.reduce((a, b) => a + b, 0) / values.length
  t.ok(mean > 18 && mean < 22, `mean ${mean}`)
  const plain = resolvePlan({ ...script, patienceSeconds: { mean: 20 } }, new Rng(7)).patienceSeconds
  t.ok(plain !== null && plain >= 0, 'no minimum: plain exponential')
})
