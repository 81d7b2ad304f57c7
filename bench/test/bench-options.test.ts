import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { helpOrRefusal, parseBenchOptions, USAGE } from '../src/bench-options.js'
import { SCALE_USAGE } from '../src/scale/scale-options.js'

/** Runs the command-line check and keeps what it printed. */
function check(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = helpOrRefusal(argv, { out: (s) => out.push(s), err: (s) => err.push(s) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

t.test('--help and -h print the usage on stdout and exit 0', async (t) => {
  for (const argv of [['--help'], ['-h'], ['--', '--help'], ['--smoke', '-h']]) {
    const r = check(...argv)
    t.equal(r.code, 0, `${JSON.stringify(argv)}: exit 0`)
    t.equal(r.out, USAGE)
    t.equal(r.err, '')
  }
})

t.test('a wrong option exits 2 with the problem and the usage on stderr', async (t) => {
  for (const [argv, problem] of [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--rounds'], /--rounds.*argument missing/],
  ] as const) {
    const r = check(...argv)
    t.equal(r.code, 2, `${JSON.stringify(argv)}: exit 2`)
    t.equal(r.out, '')
    t.match(r.err, problem)
    t.ok(r.err.endsWith(USAGE), 'the usage follows')
  }
})

t.test('valid options: nothing printed, the bench runs with them', async (t) => {
  t.same(check('--smoke', '--only', 'push'), { code: undefined, out: '', err: '' })
  t.match(parseBenchOptions(['--smoke', '--only', 'push']), { smoke: true, rounds: 1, only: ['push'] })
  t.throws(() => parseBenchOptions(['--only', 'nope']), /--only: unknown part nope/)
})

for (const [name, file, usage] of [
  ['the bench process', 'bench-main.ts', USAGE],
  ['the scale-out process', 'scale-main.ts', SCALE_USAGE],
] as const) {
  t.test(`${name}: --help and -h exit 0 with the usage on stdout, a wrong option exits 2`, async (t) => {
    const loader = new URL('../../scripts/ts-loader/register.mjs', import.meta.url).href
    const main = fileURLToPath(new URL(`../src/${file}`, import.meta.url))
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [`--import=${loader}`, '--conditions=hold-dialer-src', main, ...args], {
        encoding: 'utf8',
      })
    for (const flag of ['-h', '--help']) {
      const help = run(flag)
      t.equal(help.status, 0)
      t.equal(help.stdout, `${usage}\n`)
      t.equal(help.stderr, '')
    }
    const wrong = run('--bogus')
    t.equal(wrong.status, 2)
    t.equal(wrong.stdout, '')
    t.match(wrong.stderr, /Unknown option '--bogus'/)
  })
}
