// pnpm test's file runner: a line per file as it ends, the counts, a failed file's output, the longest
// files first, a heartbeat while none ends, and nothing a file started left running.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { assertionCounts, runFiles } from '../file-runner.mjs'

/** A folder with test files written from `files` (name: source), each a plain Node script. */
function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), 'file-runner-'))
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source)
  return dir
}

/** Whether a process has ended (gone, or a zombie its new parent has not reaped yet), within 10 s. */
async function ended(pid) {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
    if (!stat || / Z /.test(stat)) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return false
}

const PASSES = `process.stdout.write('TAP version 14\\nok 1 - fine\\n1..1\\n# { total: 1, pass: 1 }\\n')\n`
const FAILS = `process.stdout.write('TAP version 14\\nok 1 - fine\\nnot ok 2 - broken\\n1..2\\n# { total: 2, pass: 1, fail: 1 }\\n')
process.stderr.write('the reason, on stderr\\n')
process.exitCode = 1\n`

t.test('a line per file, the failed file printed whole, the counts summed', async (t) => {
  const dir = folder({ 'a.test.mjs': PASSES, 'b.test.mjs': FAILS })
  const lines = []
  const r = await runFiles({
    label: 'tests (fake)',
    files: ['a.test.mjs', 'b.test.mjs'],
    cwd: dir,
    jobs: 1,
    logFile: join(dir, 'run.log'),
    out: (l) => lines.push(l),
  })
  t.equal(r.status, 1)
  t.same(r.files, { pass: 1, fail: 1 })
  t.same(r.counts, { total: 3, pass: 2 })
  t.match(lines[0], /^ {2}ok {3}a\.test\.mjs \([\d.]+ s\) \[1\/2\]$/)
  t.match(lines[1], /^ {2}FAIL b\.test\.mjs \([\d.]+ s\) \[2\/2\]$/)
  t.match(lines[2], /not ok 2 - broken/)
  t.match(lines[2], /the reason, on stderr/, "the file's stderr too")
  t.match(lines[2], /\(b\.test\.mjs: exit 1\)$/)
  t.match(
    lines.at(-1),
    /^FAIL tests \(fake\): 1 of 2 files passed, 2 of 3 assertions passed, [\d.]+ s \(output: /,
  )
  const log = readFileSync(join(dir, 'run.log'), 'utf8')
  t.match(log, /# a\.test\.mjs: exit 0/, 'every file in the log')
  t.match(log, /# b\.test\.mjs: exit 1/)
})

t.test(
  'each file gets what tap gives it: TAP=1, a job id of its own slot, the coverage folder',
  async (t) => {
    const dir = folder({
      'env.test.mjs': `process.stdout.write(JSON.stringify({ tap: process.env.TAP, job: process.env.TAP_JOB_ID, cov: process.env.NODE_V8_COVERAGE, child: process.env.TAP_CHILD_ID ?? null }) + '\\n')\n`,
    })
    const r = await runFiles({
      label: 'env',
      files: ['env.test.mjs'],
      cwd: dir,
      jobs: 2,
      coverageDir: join(dir, 'cov'),
      logFile: join(dir, 'run.log'),
      out: () => {},
    })
    t.equal(r.status, 0)
    const seen = JSON.parse(readFileSync(join(dir, 'run.log'), 'utf8').split('\n')[1])
    t.same(seen, { tap: '1', job: '0', cov: join(dir, 'cov'), child: null })
  },
)

t.test('the longest files start first, by the seconds the last run recorded', async (t) => {
  const dir = folder({ 'a.test.mjs': PASSES, 'b.test.mjs': PASSES, 'c.test.mjs': PASSES })
  const timesFile = join(dir, 'cache/times.json')
  const run = async () => {
    const lines = []
    await runFiles({
      label: 'order',
      files: ['a.test.mjs', 'b.test.mjs', 'c.test.mjs'],
      cwd: dir,
      jobs: 1,
      logFile: join(dir, 'run.log'),
      out: (l) => lines.push(l),
      timesFile,
    })
    return lines
  }
  const first = await run()
  t.match(first.slice(0, 3), [/a\.test/, /b\.test/, /c\.test/], 'never timed: in the order listed')
  t.ok(existsSync(timesFile), 'the seconds are recorded')
  const times = JSON.parse(readFileSync(timesFile, 'utf8'))
  times[join(dir, 'c.test.mjs')] = 50
  times[join(dir, 'a.test.mjs')] = 20
  times[join(dir, 'b.test.mjs')] = 1
  writeFileSync(timesFile, JSON.stringify(times))
  const second = await run()
  t.match(second.slice(0, 3), [/c\.test/, /a\.test/, /b\.test/], 'the longest first')
})

t.test('a line while no file ends, and a file past its time killed with what it started', async (t) => {
  const dir = folder({
    // Starts a process that would live on, then never ends by itself.
    'hangs.test.mjs': `import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
const orphan = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
writeFileSync('orphan.pid', String(orphan.pid))
setInterval(() => {}, 1000)\n`,
  })
  const lines = []
  const r = await runFiles({
    label: 'slow',
    files: ['hangs.test.mjs'],
    cwd: dir,
    logFile: join(dir, 'run.log'),
    out: (l) => lines.push(l),
    heartbeatMs: 200,
    timeoutMs: 1500,
  })
  t.equal(r.status, 1)
  t.ok(
    lines.some((l) => /^ {2}\.\.\. slow: 0 of 1 files done, 0 failed, [\d.]+ s$/.test(l)),
    'a heartbeat line',
  )
  t.ok(
    lines.some((l) => /\(hangs\.test\.mjs: killed after 1\.5 s\)$/.test(l)),
    'says it was killed',
  )
  const orphan = Number(readFileSync(join(dir, 'orphan.pid'), 'utf8'))
  t.ok(await ended(orphan), 'what it started is gone too')
})

t.test('a process a passing file left running is stopped when the file ends', async (t) => {
  const dir = folder({
    'leaves.test.mjs': `import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
const left = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' })
left.unref()
writeFileSync('left.pid', String(left.pid))
${PASSES}`,
  })
  const r = await runFiles({
    label: 'left',
    files: ['leaves.test.mjs'],
    cwd: dir,
    logFile: join(dir, 'run.log'),
    out: () => {},
  })
  t.equal(r.status, 0, 'it ends although the process it left holds its output open')
  const left = Number(readFileSync(join(dir, 'left.pid'), 'utf8'))
  t.ok(await ended(left), 'and the process it left is gone')
})

t.test('a Ctrl-C of the runner stops the files it is running', async (t) => {
  const dir = folder({
    'hangs.test.mjs': `import { writeFileSync } from 'node:fs'
writeFileSync('hangs.pid', String(process.pid))
setInterval(() => {}, 1000)\n`,
    'runner.mjs': `import { runFiles } from ${JSON.stringify(new URL('../file-runner.mjs', import.meta.url).href)}
await runFiles({ label: 'ctrl-c', files: ['hangs.test.mjs'], cwd: process.cwd(), logFile: 'run.log', out: () => {} })\n`,
  })
  const { spawn } = await import('node:child_process')
  const runner = spawn(process.execPath, ['runner.mjs'], { cwd: dir, stdio: 'ignore' })
  const pidFile = join(dir, 'hangs.pid')
  const deadline = Date.now() + 300_000
  while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8')) {
    if (Date.now() > deadline) throw new Error('the file never started')
    await new Promise((r) => setTimeout(r, 20))
  }
  const file = Number(readFileSync(pidFile, 'utf8'))
  const exited = new Promise((resolve) => runner.on('exit', (_code, signal) => resolve(signal)))
  runner.kill('SIGINT')
  t.equal(await exited, 'SIGINT', 'the runner ends as the signal would end it')
  t.ok(await ended(file), 'and the file it was running is gone')
})

t.test("assertionCounts reads a file's last closing comment", async (t) => {
  t.same(assertionCounts('# { total: 1, pass: 1 }\n# { total: 28, pass: 27, fail: 1 }\n'), {
    total: 28,
    pass: 27,
  })
  t.equal(assertionCounts('no counts here'), undefined)
})
