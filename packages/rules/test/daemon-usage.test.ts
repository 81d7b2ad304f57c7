import t from 'tap'
import { DAEMON_USAGE, daemonCommandLine } from '../src/index.js'

t.test(
  'a daemon runs with no arguments, prints its usage for --help or -h, refuses anything else',
  async (t) => {
    for (const name of ['api', 'dialer'] as const) {
      t.equal(daemonCommandLine(name, []), undefined, `${name}: no arguments, it runs`)
      for (const help of [['--help'], ['-h'], ['--port', '3', '--help']])
        t.same(daemonCommandLine(name, help), { exitCode: 0, text: DAEMON_USAGE[name] })
      t.same(daemonCommandLine(name, ['--port', '3']), {
        exitCode: 2,
        text: `${name}: unexpected "--port" "3": it takes no arguments, only environment variables (--help)`,
      })
      t.match(DAEMON_USAGE[name], new RegExp(`^usage: pnpm start:${name} \\[--help\\]`))
    }
  },
)
