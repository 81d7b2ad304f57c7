import { existsSync } from 'node:fs'
import { connect, type Db, describeDatabaseUrl, migrate, type PhoneReading } from '@hold-dialer/db'
import { ConfigError, parseConfig, phoneCountry } from '@hold-dialer/rules'

export interface CliIo {
  out(line: string): void
  err(line: string): void
}

/**
 * The frame the operator commands (`pnpm agents`, `pnpm dnc`) share: a usage error is one line and
 * exit 2; help prints the usage on stdout, exit 0; otherwise the command runs on the database,
 * migrated first, and a failure is one line and exit 1.
 */
export async function runOperatorCli<C extends { kind: string }>(spec: {
  name: string
  usage: string
  argv: string[]
  url: string
  io: CliIo
  parse: (argv: string[]) => C
  run: (command: C, handle: Db) => Promise<void>
}): Promise<number> {
  const { name, io } = spec
  let command: C
  try {
    command = spec.parse(spec.argv)
  } catch (error) {
    io.err(`${name}: ${(error as Error).message}\nRun \`pnpm ${name} --help\` for the commands.`)
    return 2
  }
  if (command.kind === 'help') {
    io.out(spec.usage)
    return 0
  }
  const missing = missingDatabase(spec.url)
  if (missing !== undefined) {
    io.err(`${name}: ${missing}`)
    return 1
  }
  const handle = connect(spec.url)
  try {
    await migrate(handle)
    await spec.run(command, handle)
    return 0
  } catch (error) {
    io.err(`${name}: ${(error as Error).message}`)
    return 1
  } finally {
    await handle.close()
  }
}

/**
 * How the operator commands read a number: DEFAULT_COUNTRY (else TIMEZONE's country) for national
 * numbers and TIMEZONE for a number of no zone, from `env` by the processes' own configuration rules
 * (TIMEZONE defaults to the host's zone, as for the API and the dialer). A bad configuration is one
 * line naming each bad variable.
 */
export function phoneReadingOf(env: Record<string, string | undefined>): PhoneReading {
  try {
    const config = parseConfig(env, { hostZone: Intl.DateTimeFormat().resolvedOptions().timeZone })
    return { country: phoneCountry(config.defaultCountry, config.timezone), fallbackZone: config.timezone }
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(`configuration: ${error.problems.join('; ')}`)
    throw error
  }
}

/**
 * Why an operator command must not open DATABASE_URL, or undefined when it may: a URL of neither
 * kind, or an SQLite file that does not exist. SQLite creates a missing file on opening it, so a
 * mistyped path would otherwise be a new, empty database (`0 agent(s)`) while the real one is
 * elsewhere. The API, the dialer and `pnpm db:migrate` create it; an operator command never does.
 */
export function missingDatabase(url: string): string | undefined {
  let target: ReturnType<typeof describeDatabaseUrl>
  try {
    target = describeDatabaseUrl(url)
  } catch (error) {
    return (error as Error).message
  }
  if (target.dialect !== 'sqlite' || target.database === ':memory:' || existsSync(target.database))
    return undefined
  return `no database at ${target.database}: start the system once (pnpm start) or run pnpm db:migrate to create it, or set DATABASE_URL to the database the dialer uses`
}
