import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { chartSvg } from './chart.js'
import { type ModeResult, type Progress, physicalCeiling, progressLine } from './metrics.js'
import { parseSimArgs, type SimParams, USAGE, UsageError } from './params.js'
import { runMode } from './run.js'
import { table } from './table.js'

/**
 * `pnpm simulate [--agents 20 --duration-minutes 60 ...] [--out DIR]`: a call-centre shift in accelerated
 * time, progressive then predictive on the same seeded population. Prints the comparison, writes
 * `simulation.json`, `simulation.md` and `simulation.svg` to DIR (default sim-results/), and exits 1 if
 * an invariant broke (abandon rate over the cap, a lead dialed twice at once, a lead lost or left
 * reserved), 2 on a bad flag. Progress goes to stderr, so stdout holds the results alone.
 */
const out = (s: string) => process.stdout.write(`${s}\n`)

const progress = (p: SimParams) => (s: Progress) =>
  process.stderr.write(`${progressLine(s, p.durationMinutes)}\n`)

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseSimArgs>
  try {
    args = parseSimArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`simulate: ${error.message}\nRun \`pnpm simulate --help\` for the flags.\n`)
    return 2
  }
  if (args.help) {
    out(USAGE)
    return 0
  }
  const { params: p, progressMinutes, modes } = args
  const dir = resolve(args.out)
  const results: ModeResult[] = []
  for (const mode of modes) {
    const started = Date.now()
    out(`${mode}: ${p.durationMinutes} simulated minutes at ${p.timeScale}x...`)
    results.push(await runMode(mode, p, { onProgress: progress(p), progressMinutes }))
    out(`${mode}: done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  }
  const text = table(p, results)
  out(`\n${text}`)
  await mkdir(dir, { recursive: true })
  await writeFile(
    join(dir, 'simulation.json'),
    `${JSON.stringify({ params: p, physicalCeiling: physicalCeiling(p), results }, null, 2)}\n`,
  )
  await writeFile(join(dir, 'simulation.svg'), chartSvg(results, p.abandonRateMax))
  await writeFile(join(dir, 'simulation.md'), `${text}\n`)
  out(`\nwrote ${join(dir, 'simulation.json')}, simulation.svg, simulation.md`)
  const broken: string[] = []
  for (const r of results) {
    if (r.abandonRate > p.abandonRateMax)
      broken.push(`${r.mode}: abandon rate ${r.abandonRate} over ${p.abandonRateMax}`)
    if (r.worstConcurrency > 1) broken.push(`${r.mode}: a lead was dialed twice at once`)
    if (r.leadsAccounted !== p.leads) broken.push(`${r.mode}: ${p.leads - r.leadsAccounted} leads lost`)
    if (r.leadsStillReserved > 0) broken.push(`${r.mode}: ${r.leadsStillReserved} leads left reserved`)
  }
  for (const b of broken) out(`INVARIANT BROKEN: ${b}`)
  return broken.length > 0 ? 1 : 0
}

process.exitCode = await main(process.argv.slice(2))
