import { helpOrRefusal } from '@hold-dialer/bench/options'
import { OPTIONS, parseChaosOptions, USAGE, UsageError } from './options.js'

/**
 * `pnpm chaos [--seconds 60 --seed N ...]`: one chaos run on a fresh MariaDB database. The report goes
 * to stdout, progress to stderr; exit code 1 when an invariant failed, 2 on a bad option. The run's
 * modules are loaded once the options are read, so that --help and a wrong option answer at once.
 */
const say = (line: string) => process.stdout.write(`${line}\n`)

async function main(argv: string[]): Promise<number> {
  const asked = helpOrRefusal(
    argv,
    { out: say, err: (s) => process.stderr.write(`${s}\n`) },
    { options: OPTIONS, usage: USAGE },
  )
  if (asked !== undefined) return asked
  let o: ReturnType<typeof parseChaosOptions>
  try {
    o = parseChaosOptions(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`chaos: ${error.message}\nRun \`pnpm chaos --help\` for the options.\n`)
    return 2
  }
  const { dropDatabase, dropDatabasesOnSignal, freshDatabaseUrl } = await import(
    '@hold-dialer/bench/databases'
  )
  const { killEveryDialer } = await import('./dialers.js')
  const { runChaos } = await import('./run.js')
  const { failed, report } = await import('./report.js')
  // Ctrl-C: a dialer left stopped (SIGSTOP) would outlive the run, so every dialer is woken and
  // killed before the run's database is dropped.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, killEveryDialer)
  dropDatabasesOnSignal()
  const url = await freshDatabaseUrl('mysql', 'run', 'hd_chaos')
  say(`seed ${o.seed}, database ${new URL(url).pathname.slice(1)}`)
  try {
    const result = await runChaos(o, url)
    say(report(result))
    return failed(result) ? 1 : 0
  } finally {
    if (!o.keepDatabase) await dropDatabase(url)
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(
      `chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    ;(await import('./dialers.js')).killEveryDialer()
    await (await import('@hold-dialer/bench/databases')).dropCreatedDatabases()
    process.exit(1)
  },
)
