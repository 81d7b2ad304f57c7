import t from 'tap'
import { phase, setProgressWriter, step } from '../src/lib/progress.js'

t.test('a phase says when it starts, what it is doing while it runs, and when it ends', async (t) => {
  const lines: string[] = []
  let ticked: () => void = () => {}
  const aTick = new Promise<void>((resolve) => {
    ticked = resolve
  })
  setProgressWriter((line) => {
    lines.push(line)
    if (line.includes('round 2/5')) ticked()
  })
  t.teardown(() => setProgressWriter((line) => process.stderr.write(`${line}\n`)))
  const result = await phase(
    'sqlite push',
    async () => {
      step('round 2/5, product run')
      await aTick // a progress line was written while the phase ran
      return 42
    },
    5,
  )
  t.equal(result, 42)
  t.equal(lines[0], '[bench] sqlite push: started')
  t.match(lines[1], /^\[bench\] sqlite push: round 2\/5, product run \(\d+ s\)$/)
  t.match(lines.at(-1), /^\[bench\] sqlite push: done in \d+ s$/)
})

t.test('a step given as a function is read at each line; a failed phase says so', async (t) => {
  const lines: string[] = []
  let calls = 0
  let ticked: () => void = () => {}
  const aTick = new Promise<void>((resolve) => {
    ticked = resolve
  })
  setProgressWriter((line) => {
    lines.push(line)
    if (line.includes('calls placed')) ticked()
  })
  t.teardown(() => setProgressWriter((line) => process.stderr.write(`${line}\n`)))
  await t.rejects(
    phase(
      'mysql dialer',
      async () => {
        step(() => `dialing: ${++calls} calls placed`)
        await aTick
        throw new Error('the dialer exited')
      },
      5,
    ),
    /the dialer exited/,
  )
  t.match(lines[1], /^\[bench\] mysql dialer: dialing: 1 calls placed \(\d+ s\)$/)
  t.match(lines.at(-1), /^\[bench\] mysql dialer: failed after \d+ s$/)
})
