import { runAgentsCli } from './agents.js'

process.exitCode = await runAgentsCli(
  process.argv.slice(2),
  process.env.DATABASE_URL || 'sqlite:./data/dialer.sqlite',
)
