import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { type Logger, pino } from 'pino'
import { loadScenario, scenarioToOptions } from './scenario.js'
import { type PbxSim, startPbxSim } from './sim.js'

export const USAGE = `Usage: pbx-sim [--port 5038] [--host 127.0.0.1] [--scenario file.json] [--time-scale N] [--seed N] [--help]`

function numberArg(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: expected a number >= 0, got ${value}`)
  return n
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  scenario: { type: 'string' },
  'time-scale': { type: 'string' },
  seed: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

// `pnpm pbx-sim -- --port 5038` passes the `--` on.
const argsOf = (argv: string[]) => (argv[0] === '--' ? argv.slice(1) : argv)

/**
 * `--help` / `-h`: the usage on stdout, exit code 0. An option parseArgs refuses (unknown, missing its
 * value): the error and the usage on stderr, exit code 2. Undefined: start the simulator.
 */
export function helpOrRefusal(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void },
): number | undefined {
  try {
    const { values } = parseArgs({ args: argsOf(argv), options: OPTIONS, strict: true })
    if (!values.help) return undefined
    io.out(USAGE)
    return 0
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`)
    return 2
  }
}

/**
 * Starts the simulator from command-line arguments; command-line values override the scenario.
 * Logs the listening address and agent/user counts, never the secrets.
 */
export async function main(argv: string[], logger: Logger = pino({ name: 'pbx-sim' })): Promise<PbxSim> {
  const { values } = parseArgs({ args: argsOf(argv), options: OPTIONS, strict: true })
  if (values.help) throw new Error(USAGE)
  const scenario = values.scenario ? await loadScenario(values.scenario) : {}
  const options = scenarioToOptions(scenario)
  const port = numberArg('port', values.port)
  const timeScale = numberArg('time-scale', values['time-scale'])
  const seed = numberArg('seed', values.seed)
  if (port !== undefined) options.port = port
  if (values.host !== undefined) options.host = values.host
  if (timeScale !== undefined) options.timeScale = timeScale
  if (seed !== undefined) options.seed = seed
  options.port ??= 5038
  options.logger = logger
  const sim = await startPbxSim(options)
  logger.info(
    {
      scenario: values.scenario ?? null,
      users: Object.keys(options.users ?? { admin: 'admin' }).length,
      agents: options.agentExtensions ?? [],
      numbers: Object.keys(options.outcomes ?? {}).length,
    },
    'pbx-sim ready',
  )
  return sim
}

function isEntryPoint(): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href
  } catch {
    return false
  }
}

const code = isEntryPoint()
  ? helpOrRefusal(process.argv.slice(2), {
      out: (s) => process.stdout.write(`${s}\n`),
      err: (s) => process.stderr.write(`${s}\n`),
    })
  : undefined
if (code !== undefined) process.exitCode = code
else if (isEntryPoint()) {
  const logger = pino({ name: 'pbx-sim' })
  main(process.argv.slice(2), logger).then(
    (sim) => {
      const stop = (signal: string): void => {
        logger.info({ signal }, 'pbx-sim stopping')
        sim.close().then(() => process.exit(0))
      }
      process.once('SIGINT', () => stop('SIGINT'))
      process.once('SIGTERM', () => stop('SIGTERM'))
    },
    (err: unknown) => {
      logger.error({ err }, 'pbx-sim failed to start')
      process.exitCode = 1
    },
  )
}
