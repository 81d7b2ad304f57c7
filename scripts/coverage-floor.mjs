// Coverage gate per package: each test process of a package's suite, and every process it starts,
// writes V8's coverage into the package's `coverage/tmp` (NODE_V8_COVERAGE, scripts/file-runner.mjs);
// c8 turns it into a report of the package's own sources (`src/`), and each package states the floor it
// must keep in its package.json (`"coverageFloor": { "lines": 85, ... }`), checked here.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const KINDS = ['lines', 'branches', 'functions']

/** The folder a package's processes write V8 coverage into; emptied before its suite runs. */
export function coverageTemp(pkgDir) {
  const dir = join(pkgDir, 'coverage/tmp')
  rmSync(dir, { recursive: true, force: true })
  return dir
}

/**
 * Reports the coverage of the last run in `pkgDir` (c8 with the workspace's .c8rc.json: a summary in
 * `coverage/coverage-summary.json`) and compares it with the package's floor. Waits without blocking: other
 * packages' suites run meanwhile (scripts/test.mjs).
 */
export async function checkCoverage(pkgDir, c8Bin) {
  const floor = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).coverageFloor
  const summary = join(pkgDir, 'coverage/coverage-summary.json')
  rmSync(summary, { force: true })
  const output = await new Promise((resolve) => {
    // The workspace's .c8rc.json (found from each package's folder) names the folders and the reports.
    const report = spawn(c8Bin, ['report'], { cwd: pkgDir, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    report.stdout.on('data', (d) => (text += d))
    report.stderr.on('data', (d) => (text += d))
    report.on('error', (err) => resolve(`${text}${err.stack}`))
    report.on('close', () => resolve(text))
  })
  if (!existsSync(summary)) return { ok: false, text: `no coverage report was written: ${output.trim()}` }
  const total = JSON.parse(readFileSync(summary, 'utf8')).total
  if (!floor) return { ok: false, text: 'no "coverageFloor" in its package.json' }
  const below = KINDS.filter((k) => floor[k] !== undefined && total[k].pct < floor[k])
  const text = KINDS.map(
    (k) => `${k} ${total[k].pct}%${floor[k] === undefined ? '' : ` (floor ${floor[k]}%)`}`,
  )
  return {
    ok: below.length === 0,
    text: `${text.join(', ')}${below.length ? `: BELOW THE FLOOR (${below.join(', ')})` : ''}`,
  }
}
