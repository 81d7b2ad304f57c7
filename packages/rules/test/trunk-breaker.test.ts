// The trunk breaker's state machine: legs not created in a row open it, a try every probe period,
// the first created leg closes it.
import t, { type Test } from 'tap'
import { TrunkBreaker } from '../src/index.js'

const PROBE_MS = 30_000

function tripped(t: Test, failures = 3, at = 1000): TrunkBreaker {
  const b = new TrunkBreaker({ failures, probeMs: PROBE_MS })
  for (let i = 1; i < failures; i++) t.equal(b.record(`k${i}`, 'not-created', at), null)
  t.equal(b.record(`k${failures}`, 'not-created', at), 'opened')
  return b
}

t.test('closed: every call may be placed; created and neutral legs do not count', async (t) => {
  const b = new TrunkBreaker({ failures: 3, probeMs: PROBE_MS })
  t.equal(b.permits(0), Number.POSITIVE_INFINITY)
  t.notOk(b.open)
  b.placed('a', 0)
  t.equal(b.record('a', 'not-created', 0), null)
  t.equal(b.record('b', 'not-created', 0), null)
  t.equal(b.record('c', 'created', 0), null, 'a created leg starts the count again')
  t.strictSame(b.state, { kind: 'closed', failures: 0 })
  t.equal(b.record('d', 'not-created', 0), null)
  t.equal(b.record('e', 'neutral', 0), null, 'a neutral call neither counts nor resets')
  t.strictSame(b.state, { kind: 'closed', failures: 1 })
})

t.test('N legs not created in a row open it: nothing until the probe time, then one try', async (t) => {
  const b = tripped(t, 3, 1000)
  t.ok(b.open)
  t.match(b.state, { kind: 'open', since: 1000, failures: 3, nextProbeAt: 1000 + PROBE_MS, probe: null })
  t.equal(b.permits(1000), 0)
  t.equal(b.permits(1000 + PROBE_MS - 1), 0)
  t.equal(b.permits(1000 + PROBE_MS), 1)
  b.placed('early', 1000 + PROBE_MS - 1)
  t.match(b.state, { probe: null }, 'a call placed before the try is due is not the try')
  b.placed('try-1', 1000 + PROBE_MS)
  t.equal(b.permits(1000 + PROBE_MS), 0, 'one try at a time')
  b.placed('other', 1000 + PROBE_MS)
  t.match(b.state, { probe: 'try-1' }, 'only the first call placed is the try')
})

t.test('a try that fails sets the next one a probe period later', async (t) => {
  const b = tripped(t)
  b.placed('try-1', 1000 + PROBE_MS)
  t.equal(b.record('try-1', 'not-created', 40_000), null)
  t.match(b.state, { kind: 'open', failures: 4, nextProbeAt: 40_000 + PROBE_MS, probe: null })
  t.equal(b.permits(40_000), 0)
  t.equal(b.permits(40_000 + PROBE_MS), 1)
})

t.test('a try that says nothing of the trunk lets the next go at once', async (t) => {
  const b = tripped(t)
  b.placed('try-1', 1000 + PROBE_MS)
  t.equal(b.record('try-1', 'neutral', 40_000), null)
  t.match(b.state, { kind: 'open', failures: 3, nextProbeAt: 1000 + PROBE_MS, probe: null })
  t.equal(b.permits(40_000), 1)
})

t.test('a try that gets through closes it', async (t) => {
  const b = tripped(t)
  b.placed('try-1', 1000 + PROBE_MS)
  t.equal(b.record('try-1', 'created', 40_000), 'closed')
  t.strictSame(b.state, { kind: 'closed', failures: 0 })
  t.equal(b.permits(40_000), Number.POSITIVE_INFINITY)
})

t.test('calls placed before it opened: a failure changes nothing, a created leg closes it', async (t) => {
  const b = tripped(t)
  b.placed('try-1', 1000 + PROBE_MS)
  t.equal(b.record('late', 'not-created', 2000), null)
  t.match(
    b.state,
    { failures: 4, nextProbeAt: 1000 + PROBE_MS, probe: 'try-1' },
    'the try is still under way',
  )
  t.equal(b.record('late-2', 'neutral', 2000), null)
  t.match(b.state, { probe: 'try-1' })
  t.equal(b.record('late-3', 'created', 2000), 'closed', 'a channel was created: the trunk works')
})

t.test('TRUNK_BREAKER_FAILURES=0: never opens', async (t) => {
  const b = new TrunkBreaker({ failures: 0, probeMs: PROBE_MS })
  for (let i = 0; i < 50; i++) t.equal(b.record(`k${i}`, 'not-created', i), null)
  t.notOk(b.open)
  t.equal(b.permits(0), Number.POSITIVE_INFINITY)
})
