import {
  dropCreatedDatabases,
  dropDatabase,
  dropDatabasesOnSignal,
  freshDatabaseUrl,
} from '@hold-dialer/bench/databases'
import { helpOrRefusal } from '@hold-dialer/bench/options'
import { killEveryDialer } from './dialers.js'
import { OPTIONS, parseChaosOptions, USAGE, UsageError } from './options.js'
import { failed, report } from './report.js'
import { runChaos } from './run.js'

/**
 * `pnpm chaos [--seconds 60 --seed N ...]`: one chaos run on a fresh MariaDB database. The report goes
 * to stdout, progress to stderr; exit code 1 when an invariant failed, 2 on a bad option.
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

// Ctrl-C: a dialer left stopped (SIGSTOP) would outlive the run, so every dialer is woken and killed
// before the run's database is dropped.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, killEveryDialer)
dropDatabasesOnSignal()
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(
      `chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    killEveryDialer()
    await dropCreatedDatabases()
    process.exit(1)
  },
)
