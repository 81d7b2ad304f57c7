import { connect, type Db, migrate, type PhoneReading } from '@hold-dialer/db'
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
