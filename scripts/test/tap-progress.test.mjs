// pnpm test's progress: a line per test file as tap reports it, the package's counts, a failed file's TAP.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { assertionCounts, followTap, runTap } from '../tap-progress.mjs'

const TAP = `TAP version 14
1..2
# Subtest: test/a.test.ts
    ok 1 - fine
    1..1
ok 1 - test/a.test.ts # time=1200.5ms

# Subtest: test/b.test.ts
    not ok 1 - broken
    1..1
not ok 2 - test/b.test.ts # time=300ms

# { total: 2, pass: 1, fail: 1 }
`

t.test('followTap reports each file as it finishes, with its block when it failed', async (t) => {
  const files = []
  const reader = followTap({ onFile: (f) => files.push(f) })
  // Fed in two pieces: the first file is reported before the second arrives.
  const cut = TAP.indexOf('# Subtest: test/b')
  reader.write(TAP.slice(0, cut))
  t.equal(files.length, 1, 'the first file is reported as soon as it ends')
  t.match(files[0], { name: 'test/a.test.ts', ok: true, ms: 1200.5, done: 1, planned: 2 })
  reader.write(TAP.slice(cut))
  reader.end()
  t.equal(files.length, 2)
  t.match(files[1], { name: 'test/b.test.ts', ok: false, done: 2, planned: 2 })
  t.match(files[1].block, /not ok 1 - broken/)
  t.notMatch(files[1].block, /test\/a\.test\.ts/, 'only the failed file')
  t.equal(reader.failed, 1)
  t.same(assertionCounts(reader.text), { total: 2, pass: 1 })
})

t.test('runTap prints a line per file and the result of the run', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tap-progress-'))
  const fake = join(dir, 'fake-tap.mjs')
  writeFileSync(
    fake,
    `#!/usr/bin/env node\nprocess.stdout.write(${JSON.stringify(TAP)})\nprocess.exitCode = 1\n`,
    {
      mode: 0o755,
    },
  )
  const lines = []
  const r = await runTap({
    label: 'tests (fake)',
    tapBin: fake,
    cwd: dir,
    env: process.env,
    logFile: join(dir, 'fake.tap'),
    out: (l) => lines.push(l),
  })
  t.equal(r.status, 1)
  t.same(r.counts, { total: 2, pass: 1 })
  t.match(lines[0], /^ {2}ok {3}test\/a\.test\.ts \(1\.2 s\) \[1\/2\]$/)
  t.match(lines[1], /^ {2}FAIL test\/b\.test\.ts \(0\.3 s\) \[2\/2\]$/)
  t.match(lines[2], /not ok 1 - broken/)
  t.match(
    lines.at(-1),
    /^FAIL tests \(fake\): 1 of 2 files passed, 1 of 2 assertions passed, [\d.]+ s \(TAP: /,
  )
})

t.test('runTap says it is still running while no file ends', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tap-progress-'))
  const release = join(dir, 'release')
  const fake = join(dir, 'slow-tap.mjs')
  // Prints its plan, then finishes its one file only once the test has seen a progress line.
  writeFileSync(
    fake,
    `#!/usr/bin/env node
import { existsSync } from 'node:fs'
process.stdout.write('TAP version 14\\n1..1\\n')
const wait = setInterval(() => {
  if (!existsSync(${JSON.stringify(release)})) return
  clearInterval(wait)
  process.stdout.write('ok 1 - test/slow.test.ts # time=5ms\\n# { total: 1, pass: 1 }\\n')
}, 10)
`,
    { mode: 0o755 },
  )
  const lines = []
  const r = await runTap({
    label: 'tests (slow)',
    tapBin: fake,
    cwd: dir,
    env: process.env,
    logFile: join(dir, 'slow.tap'),
    heartbeatMs: 20,
    out: (l) => {
      lines.push(l)
      // Once its plan is read, the line says how many files there are.
      if (l.includes('0 of 1 files done')) writeFileSync(release, '')
    },
  })
  t.equal(r.status, 0)
  const waiting = lines.slice(0, -2)
  t.ok(waiting.length > 0, 'progress lines before the file ended')
  for (const l of waiting) t.match(l, /^ {2}\.\.\. tests \(slow\): 0( of 1)? files done, 0 failed, [\d.]+ s$/)
  t.match(lines.at(-2), /^ {2}ok {3}test\/slow\.test\.ts \(0\.0 s\) \[1\/1\]$/)
  t.match(lines.at(-1), /^PASS tests \(slow\): 1 of 1 files passed, 1 of 1 assertions passed/)
})
