import { parseArgs } from 'node:util'
import { connect } from '../connect.js'
import { migrate } from '../migrate.js'

/**
 * `pnpm db:migrate`: applies pending migrations to DATABASE_URL (default the embedded SQLite file)
 * and prints what it did. Output goes to stdout/stderr directly: this is a one-shot command, not a
 * service, and its only reader is the operator at the terminal.
 */
export const USAGE = `usage: pnpm db:migrate [--help]
  Applies the migrations DATABASE_URL's database lacks, in order, and prints each one applied and a
  count; a second run applies nothing. Creates an SQLite file that does not exist yet (the API and
  the dialer migrate at start too, unless DB_MIGRATE_ON_START=false).
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite).
Exit 0: done; 1: a migration failed (named); 2: bad command line.`

let help = false
try {
  help = parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values.help ?? false
} catch (error) {
  process.stderr.write(
    `db:migrate: ${(error as Error).message}\nRun \`pnpm db:migrate --help\` for its usage.\n`,
  )
  process.exit(2)
}
if (help) {
  process.stdout.write(`${USAGE}\n`)
} else {
  const url = process.env.DATABASE_URL || 'sqlite:./data/dialer.sqlite'
  let handle: ReturnType<typeof connect>
  try {
    handle = connect(url)
  } catch (error) {
    process.stderr.write(`db:migrate: cannot open DATABASE_URL: ${(error as Error).message}\n`)
    process.exit(1)
  }
  try {
    const result = await migrate(handle, {
      onApplied: (id) => process.stdout.write(`applied ${id}\n`),
    })
    process.stdout.write(
      `${handle.target.dialect} ${handle.target.database}: ${result.applied.length} applied, ${result.alreadyApplied} already present\n`,
    )
  } catch (error) {
    process.stderr.write(`migration failed: ${(error as Error).message}\n`)
    process.exitCode = 1
  } finally {
    await handle.close()
  }
}
