import { runPhonesCli } from './phones.js'

process.exitCode = await runPhonesCli(
  process.argv.slice(2),
  process.env.DATABASE_URL || 'sqlite:./data/dialer.sqlite',
)
