// `pnpm test`'s file runner: each test file is its own Node process, JOBS at a time, with a line per file
// as it ends, a line every 30 s while none does, and the run's result. A file's full output goes to a
// log; a failed file's output is printed whole.
//
// Written here rather than run through tap's runner (`tap` with --jobs): tap's runner loads its process
// tracker into every process a test starts (through NODE_OPTIONS, so into every dialer, API and CLI a
// test spawns, and their children) and does work of its own per file; measured on this 2-core machine,
// that was a quarter to a third of the suite's CPU (apps/api: 247 s under tap, 170 s run directly). The
// test files still use tap's API (`import t from 'tap'`) and print TAP; each also runs alone with
// `npx tap <file>` as before. Coverage is V8's own (NODE_V8_COVERAGE, inherited by every child
// process), reported with c8 (scripts/coverage-floor.mjs).
import { spawn } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const HEARTBEAT_MS = 30_000
/** tap's own per-file limit (the packages' .taprc `timeout: 900`), then a margin for its own report. */
const TIMEOUT_MS = 930_000

/**
 * Runs `files` (paths relative to `cwd`) with `node ...nodeArgs file`, `jobs` at a time, longest first
 * by the seconds recorded in `timesFile` (files never timed first, in their listed order). Resolves with
 * the exit status (0 when every file passed), the files passed and failed, tap's assertion counts summed
 * over the files, and the seconds taken.
 */
export function runFiles({
  label,
  files,
  cwd,
  nodeArgs = [],
  jobs = 4,
  env = process.env,
  coverageDir,
  logFile,
  out,
  timesFile,
  heartbeatMs = HEARTBEAT_MS,
  timeoutMs = TIMEOUT_MS,
}) {
  const started = Date.now()
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1)
  const known = readTimes(timesFile)
  const key = (file) => join(cwd, file)
  const queue = [...files].sort((a, b) => (known[key(b)] ?? Infinity) - (known[key(a)] ?? Infinity))
  const log = createWriteStream(logFile)
  const result = { pass: 0, fail: 0, assertions: { total: 0, pass: 0 } }
  const took = {}
  let lastLine = Date.now()
  const heartbeat = setInterval(
    () => {
      if (Date.now() - lastLine < heartbeatMs) return
      lastLine = Date.now()
      const done = result.pass + result.fail
      out(`  ... ${label}: ${done} of ${files.length} files done, ${result.fail} failed, ${seconds()} s`)
    },
    Math.min(heartbeatMs, 5_000),
  )

  const slot = async (job) => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const fileEnv = {
        ...env,
        // Part of what tap's runner sets for each file it starts: TAP makes the file print plain TAP,
        // TAP_JOB_ID tells files running at once apart, TAP_TIMEOUT is the file's time limit in
        // seconds. Not TAP_CHILD_ID: with it a file leaves out its closing assertion counts.
        TAP: '1',
        TAP_JOB_ID: String(job),
        TAP_TIMEOUT: String(Math.floor((timeoutMs - 30_000) / 1000)),
        ...(coverageDir ? { NODE_V8_COVERAGE: coverageDir } : {}),
      }
      const r = await runOne(process.execPath, [...nodeArgs, file], { cwd, env: fileEnv, timeoutMs })
      took[key(file)] = r.ms / 1000
      log.write(`# ${file}: exit ${r.code ?? r.signal}, ${(r.ms / 1000).toFixed(1)} s\n${r.output}\n`)
      const counts = assertionCounts(r.output)
      if (counts) {
        result.assertions.total += counts.total
        result.assertions.pass += counts.pass
      }
      const ok = r.code === 0
      if (ok) result.pass += 1
      else result.fail += 1
      const where = `${result.pass + result.fail}/${files.length}`
      out(`  ${ok ? 'ok  ' : 'FAIL'} ${file} (${(r.ms / 1000).toFixed(1)} s) [${where}]`)
      if (!ok) {
        const why = r.timedOut ? `killed after ${timeoutMs / 1000} s` : `exit ${r.code ?? r.signal}`
        out(`${r.output}\n  (${file}: ${why})`)
      }
      lastLine = Date.now()
    }
  }

  return Promise.all(
    Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, (_, i) => slot(i)),
  ).then(async () => {
    clearInterval(heartbeat)
    await new Promise((resolve) => log.end(resolve))
    if (timesFile) writeTimes(timesFile, { ...known, ...took })
    const status = result.fail === 0 ? 0 : 1
    const a = result.assertions
    out(
      `${status === 0 ? 'PASS' : 'FAIL'} ${label}: ${result.pass} of ${files.length} files passed, ${a.pass} of ${a.total} assertions passed, ${seconds()} s (output: ${logFile})`,
    )
    return { status, files: { pass: result.pass, fail: result.fail }, counts: a, seconds: Number(seconds()) }
  })
}

/** The process groups of the files running now: stopped with the runner when it is interrupted. */
const running = new Set()
let stopOnSignal = false

/**
 * Each file leads a process group of its own (below), which a Ctrl-C in the terminal no longer
 * reaches: the runner passes SIGINT or SIGTERM on to every group, then ends as the signal would.
 */
function passSignalsOn() {
  if (stopOnSignal) return
  stopOnSignal = true
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      for (const pid of running) {
        try {
          process.kill(-pid, 'SIGKILL')
        } catch {
          // That group has ended meanwhile.
        }
      }
      process.kill(process.pid, signal)
    })
  }
}

/**
 * One process, its stdout and stderr kept together. It leads a process group of its own, so that what
 * it leaves behind (a dialer or an API a test started and did not stop) is killed when it exits, and the
 * whole group when it runs past `timeoutMs`.
 */
export function runOne(cmd, args, { cwd, env, timeoutMs = TIMEOUT_MS }) {
  const started = Date.now()
  return new Promise((resolve) => {
    passSignalsOn()
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child.pid)
    const chunks = []
    child.stdout.on('data', (d) => chunks.push(d))
    child.stderr.on('data', (d) => chunks.push(d))
    let timedOut = false
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // The group is gone already: nothing was left behind.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, timeoutMs)
    let exit
    child.on('exit', (code, signal) => {
      exit = { code, signal }
      clearTimeout(timer)
      // Whatever the file started and left running would hold the pipes open and outlive the run.
      killGroup()
    })
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ code: 1, signal: null, output: `${Buffer.concat(chunks)}${err.stack}`, ms: 0, timedOut })
    })
    child.on('close', (code, signal) => {
      running.delete(child.pid)
      const e = exit ?? { code, signal }
      resolve({ ...e, output: String(Buffer.concat(chunks)), ms: Date.now() - started, timedOut })
    })
  })
}

/** tap's closing comment of a file, `# { total: 28, pass: 27, fail: 1 }` (the last one printed). */
export function assertionCounts(text) {
  const all = [...text.matchAll(/^# \{ total: (\d+), pass: (\d+)/gm)]
  const m = all.at(-1)
  return m ? { total: Number(m[1]), pass: Number(m[2]) } : undefined
}

function readTimes(file) {
  if (!file || !existsSync(file)) return {}
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return {} // a cache that cannot be read only loses the order: files run in their listed order
  }
}

function writeTimes(file, times) {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify(times, null, 1)}\n`)
}
