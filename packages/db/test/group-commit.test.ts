import t from 'tap'
import { GroupCommit } from '../src/index.js'

/** A write that records each group and answers each request with its double, after `gate`. */
function recorder(gate: () => Promise<void> = async () => {}) {
  const groups: number[][] = []
  let running = 0
  let mostAtOnce = 0
  const write = async (group: readonly number[]) => {
    groups.push([...group])
    running += 1
    mostAtOnce = Math.max(mostAtOnce, running)
    try {
      await gate()
      if (group.includes(-1)) throw new Error('group failed')
      return group.map((n) => n * 2)
    } finally {
      running -= 1
    }
  }
  return { groups, write, mostAtOnce: () => mostAtOnce }
}

/** A gate that holds the first write until `release()` and lets every later one through. */
function firstWriteHeld() {
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let calls = 0
  return { release, gate: () => (calls++ === 0 ? held : Promise.resolve()) }
}

/** Lets the event loop turn twice: a group is formed, and its write begun. */
async function turns(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
  await new Promise<void>((resolve) => setImmediate(resolve))
}

t.test('requests made together share one write, each answered with its own result', async (t) => {
  const r = recorder()
  const g = new GroupCommit({ write: r.write, maxWriters: 1, maxGroup: 10 })
  t.same(await Promise.all([1, 2, 3].map((n) => g.submit(n))), [2, 4, 6])
  t.same(r.groups, [[1, 2, 3]])
})

t.test('requests that arrive during a write wait for the next group, in arrival order', async (t) => {
  const held = firstWriteHeld()
  const r = recorder(held.gate)
  const g = new GroupCommit({ write: r.write, maxWriters: 1, maxGroup: 10 })
  const a = g.submit(1)
  await turns()
  const later = [2, 3, 4].map((n) => g.submit(n))
  held.release()
  t.same(await Promise.all([a, ...later]), [2, 4, 6, 8])
  t.same(r.groups, [[1], [2, 3, 4]])
  t.equal(r.mostAtOnce(), 1, 'one writer at a time')
})

t.test('maxGroup caps a group; fits keeps a request out of a group it does not fit', async (t) => {
  const r = recorder()
  const g = new GroupCommit({
    write: r.write,
    maxWriters: 1,
    maxGroup: 3,
    // An even number never joins a group that already holds one.
    fits: (n: number, group: readonly number[]) => n % 2 === 1 || !group.some((m) => m % 2 === 0),
  })
  await Promise.all([1, 2, 4, 3, 5, 7, 9].map((n) => g.submit(n)))
  t.same(r.groups, [[1, 2, 3], [4, 5, 7], [9]])
})

t.test('a failed write fails every request of its group and no other', async (t) => {
  const held = firstWriteHeld()
  const r = recorder(held.gate)
  const g = new GroupCommit({ write: r.write, maxWriters: 1, maxGroup: 10 })
  const failing = [g.submit(1), g.submit(-1)]
  await turns()
  const next = g.submit(5)
  held.release()
  await t.rejects(failing[0]!, /group failed/)
  await t.rejects(failing[1]!, /group failed/)
  t.equal(await next, 10)
})

t.test('maxWriters groups are written at once, never more', async (t) => {
  const r = recorder(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))
  const g = new GroupCommit({ write: r.write, maxWriters: 2, maxGroup: 1 })
  const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => g.submit(n)))
  t.same(answers, [2, 4, 6, 8, 10])
  t.equal(r.mostAtOnce(), 2)
  t.equal(r.groups.length, 5)
})
