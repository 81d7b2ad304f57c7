import { spawnSync } from 'node:child_process'
import t from 'tap'
import { DEFAULT_SECONDS, defaultLeads, parseChaosOptions, USAGE } from '../src/options.js'
import { customerScripts, mainFaults, pauseFaults, picked } from '../src/plan.js'

const mainTs = new URL('../src/main.ts', import.meta.url).pathname
const loader = new URL('../../../scripts/ts-loader/register.mjs', import.meta.url).href
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['--conditions=hold-dialer-src', '--import', loader, mainTs, ...args], {
    encoding: 'utf8',
  })

t.test('options parse over the defaults; CHAOS_SECONDS makes a long run, --seconds wins', async (t) => {
  const o = parseChaosOptions(['--seed', '5'], {})
  t.match(o, {
    seconds: DEFAULT_SECONDS,
    seed: 5,
    dialers: 3,
    agents: 30,
    leads: defaultLeads(DEFAULT_SECONDS),
    mode: 'progressive',
    reservationTimeout: 5,
    faults: ['kill', 'stop', 'db', 'pbx'],
    recoverySeconds: 20,
    timeScale: 10,
    dialerSource: 'dist',
    keepDatabase: false,
    logLevel: 'warn',
  })
  t.match(parseChaosOptions([], { CHAOS_SECONDS: '1800' }), { seconds: 1800, leads: defaultLeads(1800) })
  t.match(parseChaosOptions(['--seconds', '30'], { CHAOS_SECONDS: '1800' }), { seconds: 30 })
  t.match(
    parseChaosOptions(['--', '--mode', 'predictive', '--faults', 'db,pbx,db', '--dialer-source', 'src'], {}),
    { mode: 'predictive', faults: ['db', 'pbx'], dialerSource: 'src' },
  )
  t.ok(parseChaosOptions([], {}).seed >= 0, 'a seed is drawn when none is given')
})

t.test('bad options are refused with the option named', async (t) => {
  t.throws(() => parseChaosOptions(['--mode', 'preview'], {}), { name: 'UsageError', message: /--mode/ })
  t.throws(() => parseChaosOptions(['--faults', 'kill,boom'], {}), /unknown fault boom/)
  t.throws(() => parseChaosOptions(['--dialers', '1'], {}), /--dialers: expected a whole number >= 2/)
  t.throws(() => parseChaosOptions(['--seconds', '1.5'], {}), /--seconds/)
  t.throws(() => parseChaosOptions([], { CHAOS_SECONDS: 'long' }), /CHAOS_SECONDS/)
  t.throws(() => parseChaosOptions(['--dialer-source', 'git'], {}), /--dialer-source/)
  t.throws(() => parseChaosOptions(['--bogus'], {}), /Unknown option '--bogus'/)
})

t.test('the command: --help exits 0 with the usage, a wrong option exits 2', async (t) => {
  for (const flag of ['--help', '-h']) {
    const help = cli(flag)
    t.equal(help.status, 0)
    t.equal(help.stdout, `${USAGE}\n`)
  }
  for (const args of [['--bogus'], ['--mode', 'x']]) {
    const wrong = cli(...args)
    t.equal(wrong.status, 2, `${args.join(' ')}: exit 2`)
    t.equal(wrong.stdout, '')
    t.match(wrong.stderr, args[0] === '--bogus' ? /Unknown option '--bogus'/ : /--mode: expected/)
  }
})

t.test('the seed draws the same customers and the same faults again', async (t) => {
  t.same(customerScripts(9, 200), customerScripts(9, 200))
  t.not(JSON.stringify(customerScripts(9, 200)), JSON.stringify(customerScripts(10, 200)))
  const take = <T>(g: Generator<T>, n: number) => Array.from({ length: n }, () => g.next().value as T)
  t.same(
    take(mainFaults(9, ['kill', 'db', 'pbx', 'stop']), 12),
    take(mainFaults(9, ['kill', 'db', 'pbx']), 12),
  )
  t.same(take(pauseFaults(9), 5), take(pauseFaults(9), 5))
  const kinds = take(mainFaults(3, ['kill', 'db', 'pbx']), 9).map((f) => f.kind)
  for (let round = 0; round < 3; round++)
    t.same([...kinds.slice(round * 3, round * 3 + 3)].sort(), ['db', 'kill', 'pbx'], 'each kind once a round')
  t.same(take(mainFaults(3, ['stop']), 1), [undefined], 'pauses are not on the main line')
})

t.test('the customers: answered, busy and unanswered in about the planned shares', async (t) => {
  const scripts = customerScripts(1, 4000)
  const share = (kind: string) => scripts.filter((s) => s.kind === kind).length / scripts.length
  t.ok(Math.abs(share('answer') - 0.55) < 0.03, `answer ${share('answer')}`)
  t.ok(Math.abs(share('busy') - 0.2) < 0.03, `busy ${share('busy')}`)
  t.ok(Math.abs(share('noanswer') - 0.25) < 0.03, `noanswer ${share('noanswer')}`)
  const answered = scripts.flatMap((s) => (s.kind === 'answer' ? [s] : []))
  t.ok(
    answered.every(
      (s) => s.talkSeconds >= 20 && s.talkSeconds <= 80 && s.ringSeconds >= 1 && s.ringSeconds <= 8,
    ),
    'ring 1-8 s and talk 20-80 s (simulated)',
  )
  t.equal(picked(['a', 'b', 'c'], 0), 'a')
  t.equal(picked(['a', 'b', 'c'], 0.999), 'c')
  t.equal(picked([], 0.5), undefined)
})
