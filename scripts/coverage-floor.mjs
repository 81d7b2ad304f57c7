// Coverage gate per package: tap reports the coverage of the files a package's tests load, and each
// package states the floor it must keep in its package.json (`"coverageFloor": { "lines": 85, ... }`).
// tap itself only knows "100% or allow-incomplete-coverage", so the floor is checked here.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const KINDS = ['lines', 'branches', 'functions']

/**
 * Reads the last tap run's coverage in `pkgDir` and compares it with the package's floor. Waits
 * without blocking: other packages' suites run meanwhile (scripts/test.mjs).
 */
export async function checkCoverage(pkgDir, tapBin) {
  const floor = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).coverageFloor
  const summary = join(pkgDir, '.tap/report/coverage-summary.json')
  rmSync(summary, { force: true })
  await new Promise((resolve) => {
    const report = spawn(tapBin, ['report', 'json-summary'], { cwd: pkgDir, stdio: 'ignore' })
    report.on('error', resolve)
    report.on('close', resolve)
  })
  if (!existsSync(summary)) return { ok: false, text: 'no coverage report was written' }
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
