import { runDncCli } from './dnc.js'

process.exitCode = await runDncCli(
  process.argv.slice(2),
  process.env.DATABASE_URL || 'sqlite:./data/dialer.sqlite',
)
