import { connect } from '../connect.js'
import { migrate } from '../migrate.js'

/**
 * `pnpm db:migrate`: applies pending migrations to DATABASE_URL (default the embedded SQLite file)
 * and prints what it did. Output goes to stdout/stderr directly: this is a one-shot command, not a
 * service, and its only reader is the operator at the terminal.
 */
const url = process.env.DATABASE_URL || 'sqlite:./data/dialer.sqlite'
const handle = connect(url)
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
