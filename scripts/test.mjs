#!/usr/bin/env node
// `pnpm test`: lint, typecheck, then every package's tap suite on SQLite and MariaDB, with a summary
// of how many database tests ran on each engine. Exit code is non-zero if anything failed.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkCoverage, coverageTemp } from './coverage-floor.mjs'
import { runFiles } from './file-runner.mjs'
import { useSupportedNode } from './node-runtime.mjs'
import { warmCache } from './ts-loader/hooks.mjs'

const USAGE = `usage: pnpm test [package ...] [--no-static] [--no-real-asterisk] [--no-coverage] [--help]
  Lint, typecheck and the deploy checks, then every package's tap suite on SQLite and MariaDB, its
  real-Asterisk files and its browser files, and a summary (docs/testing.md says how it is built).
  package ...          only the packages whose folder contains one of these words (api, dialer, rules)
  --no-static          leave out lint, typecheck and the deploy checks
  --no-real-asterisk   leave out the real-Asterisk suites
  --no-coverage        leave out coverage and its floors
Variables: TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/test), TEST_DIALECTS (sqlite,mysql),
  REQUIRE_MYSQL, REQUIRE_ASTERISK, REQUIRE_BROWSER, REQUIRE_SYSTEMD, REQUIRE_PROXY_CHECK (nginx -t of
  deploy/nginx/) (1: fail instead of leaving a part out), ASTERISK_BIN or ASTERISK_BUNDLE_DIR,
  CHROMIUM_BIN, TEST_JOBS (files at once per package, 4), TEST_LANES (packages at once, 2),
  HOLD_DIALER_TEST_CHILDREN (dist: child processes run the build).
Exit 0: everything passed; 1: a step failed (named in the summary); 2: bad command line.`
const FLAGS = new Set(['--no-static', '--no-real-asterisk', '--no-coverage'])
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`)
  process.exit(0)
}
const unknown = process.argv.slice(2).filter((a) => a.startsWith('-') && !FLAGS.has(a))
if (unknown.length) {
  process.stderr.write(
    `test: unknown option ${unknown.join(', ')}\nRun \`pnpm test --help\` for its usage.\n`,
  )
  process.exit(2)
}

await useSupportedNode()
const root = new URL('..', import.meta.url).pathname
const PACKAGES = [
  'packages/rules',
  'packages/db',
  'packages/pbx-sim',
  'packages/ami',
  'apps/api',
  'apps/dialer',
  'tools/simulate',
  'tools/chaos',
  'bench',
]
const out = (s) => process.stdout.write(`${s}\n`)
const failures = []

const timings = []
function timed(label, fn) {
  const started = Date.now()
  const r = fn()
  timings.push(`${label}: ${Math.round((Date.now() - started) / 1000)} s`)
  return r
}

function run(label, cmd, args, options = {}) {
  out(`\n=== ${label}`)
  const r = timed(label, () => spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options }))
  if (r.status !== 0) failures.push(label)
  return r
}

const bin = (name) => join(root, 'node_modules/.bin', name)

/** Runs a command with its output kept (printed by the caller when it fails). */
function spawnCollect(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', (err) => resolve({ status: 1, output: `${output}${err.message}` }))
    child.on('close', (code) => resolve({ status: code ?? 1, output }))
  })
}

if (process.argv.includes('--no-static')) {
  out('\n=== lint and typecheck: NOT RUN, left out by --no-static')
} else {
  run('lint and format (biome)', bin('biome'), ['check', '.'])
  run('typecheck (tsc -b)', bin('tsc'), ['-b'])
  // The packages' tests, two type checks at a time (each a few seconds of one core).
  out('\n=== typecheck tests (tsc -p <package>/tsconfig.test.json, two at a time)')
  const checks = PACKAGES.filter((pkg) => existsSync(join(root, pkg, 'test')))
  const checked = Date.now()
  await Promise.all(
    [0, 1].map(async () => {
      for (let pkg = checks.shift(); pkg !== undefined; pkg = checks.shift()) {
        const r = await spawnCollect(bin('tsc'), ['-p', join(pkg, 'tsconfig.test.json')])
        if (r.status !== 0) {
          out(`typecheck tests (${pkg}) failed:\n${r.output}`)
          failures.push(`typecheck tests (${pkg})`)
        }
      }
    }),
  )
  timings.push(`typecheck tests: ${Math.round((Date.now() - checked) / 1000)} s`)
  // The systemd units (verify, exposure score at most 2.5), the env examples and the reverse proxy
  // (nginx -t) of deploy/; fails without systemd-analyze when REQUIRE_SYSTEMD=1 and without nginx
  // when REQUIRE_PROXY_CHECK=1 (CI). Needs the build above (dist/).
  run('deploy units, env files and proxy (systemd-analyze, nginx -t)', process.execPath, [
    join(root, 'scripts/check-deploy.mjs'),
  ])
}

// --- MariaDB availability: both engines are first-class, so a silent SQLite-only run is not allowed.
const requireFromDb = createRequire(join(root, 'packages/db/package.json'))
const mysql = requireFromDb('mysql2/promise')
const mysqlUrl = new URL(process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test')
let dialects = process.env.TEST_DIALECTS || 'sqlite,mysql'
if (dialects.includes('mysql')) {
  try {
    const conn = await mysql.createConnection({
      host: mysqlUrl.hostname,
      port: Number(mysqlUrl.port || 3306),
      user: decodeURIComponent(mysqlUrl.username),
      password: decodeURIComponent(mysqlUrl.password),
      connectTimeout: 3000,
    })
    // Drop test databases left behind by an interrupted earlier run: their names carry their creation
    // time (hdt_<pid>_<base36 ms>_<n>); only those over an hour old, so a run in progress is not hit.
    // Both times are the server's clock (testDatabaseName), which a faked clock here does not move.
    const [rows] = await conn.query("SHOW DATABASES LIKE 'hdt\\_%'")
    const [[{ ms: serverNow }]] = await conn.query('SELECT UNIX_TIMESTAMP() * 1000 AS ms')
    for (const row of rows) {
      const name = Object.values(row)[0]
      const created = Number.parseInt(name.split('_')[2] ?? '', 36)
      if (!(Number(serverNow) - created < 3_600_000)) await conn.query(`DROP DATABASE IF EXISTS \`${name}\``)
    }
    await conn.end()
  } catch (error) {
    if (process.env.REQUIRE_MYSQL === '1') {
      out(
        `\nFATAL: MariaDB/MySQL at ${mysqlUrl.host} cannot be reached (${error.message}) and REQUIRE_MYSQL=1.`,
      )
      process.exit(1)
    }
    const bar = '#'.repeat(78)
    out(`\n${bar}\n#  MySQL HALF NOT RUN: ${mysqlUrl.host} unreachable (${error.code ?? error.message}).`)
    out(`#  Only the SQLite half of the database tests runs. Set TEST_MYSQL_URL or start MariaDB.\n${bar}`)
    dialects = dialects.replace(/,?mysql/, '').replace(/^,/, '')
  }
}

// --- The real Asterisk 22 (issue: the dialer proven on the PBX it meets in production). Its tests live
// in each package's `asterisk-test/` and run only when an Asterisk is there: ASTERISK_BIN, or the
// bundle (ASTERISK_BUNDLE_DIR, default ../shared/asterisk beside the repository) unpacked into
// .asterisk/. Without one a banner says so; with REQUIRE_ASTERISK=1 (as CI sets) it is a failure.
// `--no-real-asterisk` leaves them out on purpose (CI's second Node line, see .ci/run); the summary
// says so.
const asterisk = process.argv.includes('--no-real-asterisk')
  ? { ok: false, skipped: true, why: 'left out by --no-real-asterisk' }
  : prepareAsterisk()

function prepareAsterisk() {
  if (process.env.ASTERISK_BIN) {
    return existsSync(process.env.ASTERISK_BIN)
      ? { ok: true, where: process.env.ASTERISK_BIN }
      : { ok: false, why: `ASTERISK_BIN=${process.env.ASTERISK_BIN} does not exist` }
  }
  const bundle = process.env.ASTERISK_BUNDLE_DIR || join(root, '../shared/asterisk')
  const unpack = join(bundle, 'unpack')
  if (!existsSync(unpack))
    return { ok: false, why: `no Asterisk bundle at ${bundle} (set ASTERISK_BUNDLE_DIR or ASTERISK_BIN)` }
  const r = spawnSync(unpack, [join(root, '.asterisk')], { encoding: 'utf8' })
  if (r.status !== 0) return { ok: false, why: `${unpack} failed: ${r.stderr || r.error?.message}` }
  return { ok: true, where: r.stdout.trim() }
}
if (asterisk.skipped) {
  out(`\n=== real Asterisk: NOT RUN, ${asterisk.why}`)
} else if (!asterisk.ok) {
  if (process.env.REQUIRE_ASTERISK === '1') {
    out(`\nFATAL: the real-Asterisk tests cannot run (${asterisk.why}) and REQUIRE_ASTERISK=1.`)
    process.exit(1)
  }
  const bar = '#'.repeat(78)
  out(`\n${bar}\n#  REAL-ASTERISK TESTS NOT RUN: ${asterisk.why}.`)
  out(`#  Only the pbx-sim half of the PBX tests runs.\n${bar}`)
} else {
  out(`\n=== real Asterisk: ${asterisk.where}`)
}

// --- Headless Chromium (the supervisor console's end-to-end test). Its tests live in each package's
// `browser-test/` and run only when a Chromium is there: CHROMIUM_BIN, default Debian's
// /usr/bin/chromium. Without one a banner says so; with REQUIRE_BROWSER=1 (as CI sets) it is a failure.
const browser = prepareBrowser()

function prepareBrowser() {
  const where = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
  if (!existsSync(where))
    return { ok: false, why: `no Chromium at ${where} (install Debian's chromium or set CHROMIUM_BIN)` }
  const r = spawnSync(where, ['--version'], { encoding: 'utf8' })
  if (r.status !== 0) return { ok: false, why: `${where} --version failed: ${r.stderr || r.error?.message}` }
  return { ok: true, where: `${where} (${r.stdout.trim()})` }
}
if (!browser.ok) {
  if (process.env.REQUIRE_BROWSER === '1') {
    out(`\nFATAL: the browser tests cannot run (${browser.why}) and REQUIRE_BROWSER=1.`)
    process.exit(1)
  }
  const bar = '#'.repeat(78)
  out(`\n${bar}\n#  BROWSER TESTS NOT RUN: ${browser.why}.`)
  out(`#  The supervisor console is tested only through its routes.\n${bar}`)
} else {
  out(`\n=== headless Chromium: ${browser.where}`)
}

// --- Test files run JOBS at a time within each package (scripts/file-runner.mjs).
// Most files wait (pbx-sim's scaled clock, a real Asterisk's ring and hold seconds, MariaDB, child
// processes) rather than compute: run one at a time, the whole suite used about a third of one core.
// Every file has its own databases, ports, Asterisk and temporary folders, so they can overlap.
// TEST_JOBS sets another count (1 runs them one by one, as before).
const jobs = Number(process.env.TEST_JOBS || 4)
if (!Number.isInteger(jobs) || jobs < 1) {
  out(`\nFATAL: TEST_JOBS=${process.env.TEST_JOBS} is not a whole number of at least 1.`)
  process.exit(1)
}

// --- Coverage: measured and gated on each package's suite. `--no-coverage` leaves both out (CI's
// Node 22 line, see .ci/run: the gate runs on the workspace's Node 24 only); the summary says so.
const coverage = !process.argv.includes('--no-coverage')
out(
  `\n=== test files ${jobs} at a time per package${coverage ? '' : '; coverage: NOT MEASURED, left out by --no-coverage'}`,
)

out(
  process.env.HOLD_DIALER_TEST_CHILDREN === 'dist'
    ? '\n=== child processes (dialers, the API, the migration CLI) run from the build (HOLD_DIALER_TEST_CHILDREN=dist)'
    : '\n=== child processes run from the TypeScript sources',
)

const logDir = mkdtempSync(join(tmpdir(), 'hd-testlog-'))
// Each file's seconds in the last run, so that the next one starts the longest files first.
const timesFile = join(root, 'node_modules/.cache/hold-dialer/test-seconds.json')
// How each package's TypeScript test file is run: the test loader (scripts/ts-loader), the packages'
// sources rather than their builds (the hold-dialer-src export condition).
const TS_NODE_ARGS = [
  '--enable-source-maps',
  `--import=${join(root, 'scripts/ts-loader/register.mjs')}`,
  '--conditions=hold-dialer-src',
]
const testFiles = (pkg, dir) =>
  readdirSync(join(root, pkg, dir), { recursive: true })
    .filter((n) => n.endsWith('.test.ts'))
    .sort()
    .map((n) => `${dir}/${n}`)
const log = join(logDir, 'dialects.jsonl')
const env = { ...process.env, TEST_DIALECTS: dialects, HOLD_DIALER_TEST_LOG: log }
const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'))
let files = { pass: 0, fail: 0 }
let realAsterisk = { pass: 0, fail: 0 }
let browserTests = { pass: 0, fail: 0 }
const testFileTally = { pass: 0, fail: 0 }
const coverageLines = []

// --- Packages side by side: each package's steps (its suite, its coverage report, its real-Asterisk
// files, its browser files) run in order, but LANES
// packages run at once, the longest first (PACKAGES_BY_LENGTH). One package after another left the
// machine idle while the last slow files of each package ran (the dialer's several-process test, the
// real Asterisk's ring and hold seconds): see docs/testing.md, "How long the suite takes". TEST_LANES
// sets another count (1 runs the packages one by one, in PACKAGES' order).
const lanes = Number(process.env.TEST_LANES || 2)
if (!Number.isInteger(lanes) || lanes < 1) {
  out(`\nFATAL: TEST_LANES=${process.env.TEST_LANES} is not a whole number of at least 1.`)
  process.exit(1)
}
// Longest first, by the package's whole chain (tap suite, real Asterisk, browser) on a 2-core machine.
const PACKAGES_BY_LENGTH = [
  'apps/dialer',
  'apps/api',
  'tools/chaos',
  'tools/simulate',
  'packages/pbx-sim',
  'packages/rules',
  'bench',
  'packages/db',
  'packages/ami',
]
const chosen = PACKAGES.filter((pkg) => !filter.length || filter.some((f) => pkg.includes(f)))
const order = lanes === 1 ? chosen : [...chosen].sort((a, b) => rank(a) - rank(b))
function rank(pkg) {
  const i = PACKAGES_BY_LENGTH.indexOf(pkg)
  return i === -1 ? PACKAGES_BY_LENGTH.length : i
}
if (lanes > 1) out(`\n=== ${lanes} packages at a time, the longest first: ${order.join(', ')}`)

/** Each line a package prints, headed with its name when packages run side by side. */
const outOf = (pkg) => (lanes === 1 ? out : (line) => out(line.replace(/^(\s*)/, `$1[${pkg}] `)))

async function runPackage(pkg) {
  const say = outOf(pkg)
  const testDir = join(root, pkg, 'test')
  if (existsSync(testDir) && hasTests(testDir)) {
    say(`=== tests (${pkg})`)
    const r = await runFiles({
      label: `tests (${pkg})`,
      files: testFiles(pkg, 'test'),
      cwd: join(root, pkg),
      nodeArgs: TS_NODE_ARGS,
      jobs,
      env,
      coverageDir: coverage ? coverageTemp(join(root, pkg)) : undefined,
      logFile: join(logDir, `${pkg.replaceAll('/', '-')}.log`),
      out: say,
      timesFile,
    })
    timings.push(`tests (${pkg}): ${Math.round(r.seconds)} s`)
    files = add(files, r)
    if (r.status !== 0) failures.push(`tests (${pkg})`)
    if (coverage) {
      const c = await checkCoverage(join(root, pkg), bin('c8'))
      coverageLines.push(`coverage (${pkg}): ${c.text}`)
      say(coverageLines.at(-1))
      if (!c.ok) failures.push(`coverage (${pkg})`)
    }
  }
  const realDir = join(root, pkg, 'asterisk-test')
  if (asterisk.ok && existsSync(realDir) && hasTests(realDir)) {
    say(`=== real-Asterisk tests (${pkg})`)
    const files = testFiles(pkg, 'asterisk-test')
    // Coverage is gated on the suite every machine runs (above), not on this one. Every file at once
    // (each has its own Asterisk): they wait on a real PBX's seconds and used a third of a core
    // between them, so the longest file sets the time (TEST_JOBS, when set, caps it).
    const asteriskJobs = process.env.TEST_JOBS ? jobs : Math.max(jobs, files.length)
    const ra = await runFiles({
      label: `real-Asterisk tests (${pkg})`,
      files,
      cwd: join(root, pkg),
      nodeArgs: TS_NODE_ARGS,
      jobs: asteriskJobs,
      env,
      logFile: join(logDir, `${pkg.replaceAll('/', '-')}-asterisk.log`),
      out: say,
      timesFile,
    })
    timings.push(`real-Asterisk tests (${pkg}): ${Math.round(ra.seconds)} s`)
    realAsterisk = add(realAsterisk, ra)
    if (ra.status !== 0) failures.push(`real-Asterisk tests (${pkg})`)
  }
  const browserDir = join(root, pkg, 'browser-test')
  if (browser.ok && existsSync(browserDir) && hasTests(browserDir)) {
    say(`=== browser tests (${pkg})`)
    const rb = await runFiles({
      label: `browser tests (${pkg})`,
      files: testFiles(pkg, 'browser-test'),
      cwd: join(root, pkg),
      nodeArgs: TS_NODE_ARGS,
      jobs: 1,
      env,
      logFile: join(logDir, `${pkg.replaceAll('/', '-')}-browser.log`),
      out: say,
    })
    timings.push(`browser tests (${pkg}): ${Math.round(rb.seconds)} s`)
    browserTests = add(browserTests, rb)
    if (rb.status !== 0) failures.push(`browser tests (${pkg})`)
  }
}

// Every TypeScript file the suites load, transpiled once here rather than in each test process.
const warmStarted = Date.now()
const warmed = await warmCache(
  PACKAGES.flatMap((pkg) =>
    ['src', 'test', 'asterisk-test', 'browser-test'].flatMap((dir) => tsFiles(join(root, pkg, dir))),
  ),
)
out(
  `\n=== ${warmed} TypeScript files transpiled or found in the cache, ${Math.round((Date.now() - warmStarted) / 1000)} s`,
)

function tsFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

const queue = [...order]
await Promise.all(
  Array.from({ length: Math.min(lanes, queue.length) }, async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) await runPackage(pkg)
  }),
)

// The workspace's own scripts (pnpm start's log lines, this runner's progress): no package, no coverage gate.
if (!filter.length || filter.some((f) => 'scripts'.includes(f))) {
  out('\n=== tests (scripts)')
  const scriptTests = readdirSync(join(root, 'scripts/test'))
    .filter((n) => n.endsWith('.test.mjs'))
    .map((n) => `scripts/test/${n}`)
  const r = await runFiles({
    label: 'tests (scripts)',
    files: scriptTests,
    cwd: root,
    jobs,
    env,
    logFile: join(logDir, 'scripts.log'),
    out,
    timesFile,
  })
  timings.push(`tests (scripts): ${Math.round(r.seconds)} s`)
  files = add(files, r)
  if (r.status !== 0) failures.push('tests (scripts)')
}

/** Adds a run's assertion counts (tap's closing `# { total, pass }` of each file) to a tally. */
function add(tally, r) {
  testFileTally.pass += r.files.pass
  testFileTally.fail += r.files.fail
  return { pass: tally.pass + r.counts.pass, fail: tally.fail + r.counts.total - r.counts.pass }
}

function hasTests(dir) {
  return readdirSync(dir).some((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? hasTests(p) : n.endsWith('.test.ts')
  })
}

const counts = { sqlite: { pass: 0, fail: 0 }, mysql: { pass: 0, fail: 0 } }
if (existsSync(log)) {
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line)
    counts[r.dialect][r.ok ? 'pass' : 'fail']++
  }
}
out('\n=== summary')
out(`Node ${process.version}; ${timings.join(', ')}`)
for (const d of ['sqlite', 'mysql']) {
  const c = counts[d]
  out(`database tests on ${d}: ${c.pass} passed, ${c.fail} failed${dialects.includes(d) ? '' : ' (NOT RUN)'}`)
}
out(
  asterisk.ok
    ? `real-Asterisk tap assertions: ${realAsterisk.pass} passed, ${realAsterisk.fail} failed`
    : `real-Asterisk tests: NOT RUN (${asterisk.why})`,
)
out(
  browser.ok
    ? `browser tap assertions: ${browserTests.pass} passed, ${browserTests.fail} failed`
    : `browser tests: NOT RUN (${browser.why})`,
)
if (!coverage) out('coverage: NOT MEASURED (--no-coverage), so no floor was checked')
for (const line of coverageLines) out(line)
if (failures.length) out(`failed steps: ${failures.join(', ')}`)
out(`tap assertions: ${files.pass} passed, ${files.fail} failed`)
out(`test files (every run above): ${testFileTally.pass} passed, ${testFileTally.fail} failed`)
process.exit(failures.length ? 1 : 0)
