import { connect, type Db, migrate } from '@hold-dialer/db'

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
