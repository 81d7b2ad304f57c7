import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import t from 'tap'
import { main } from '../src/cli.js'
import { loadScenario, parseScenario, scenarioToOptions } from '../src/index.js'
import { loggedIn, TestClient } from './helpers/client.js'

const silent = pino({ level: 'silent' })

t.test('the example scenario is valid and maps onto options', async (t) => {
  const scenario = await loadScenario(new URL('../scenarios/example.json', import.meta.url).pathname)
  const options = scenarioToOptions(scenario)
  t.match(options, {
    port: 5038,
    users: { admin: 'admin' },
    timeScale: 1,
    agentPattern: '^[0-9]{3,5}$',
    agentExtensions: ['1001', '1002', '1003'],
    agentStates: { '1003': 'unavailable' },
    customerContext: 'dialer-outbound',
    holdContext: 'dialer-hold',
    originateResponseOrder: 'seeded',
    agentAnswerSeconds: 1,
    amiVersion: '9.0.0',
    seed: 20240601,
  })
  t.equal(Object.keys(options.outcomes ?? {}).length, 8)
  t.same(scenarioToOptions({}), {})
})

t.test('invalid scenarios list every problem', async (t) => {
  t.throws(() => parseScenario([]), /expected a JSON object/)
  let message = ''
  try {
    parseScenario({
      port: 'x',
      timeScale: 0,
      bogus: 1,
      host: 5,
      users: { a: 1 },
      users2: null,
      agents: [1],
      agentStates: { '1001': 'asleep' },
      originateResponseOrder: 'sideways',
      defaultOutcome: { kind: 'answer', ringSeconds: -1, extra: 1 },
      numbers: {
        a: { kind: 'nope' },
        b: { kind: 'random', answerProbability: 2, ringSeconds: 3, talkSeconds: { mean: 1 } },
        c: { kind: 'answer', ringSeconds: 1, talkSeconds: 1, endedBy: 'nobody' },
      },
    })
  } catch (err) {
    message = (err as Error).message
  }
  for (const fragment of [
    'port: expected a number',
    'timeScale: must be > 0',
    'bogus: unknown key',
    'host: expected a string',
    'users.a: expected a string',
    'agents: expected an array',
    'agentStates.1001: expected idle | busy | unavailable',
    'originateResponseOrder: expected',
    'defaultOutcome.talkSeconds: required',
    'defaultOutcome.extra: not a field of answer',
    'defaultOutcome.ringSeconds: expected a number',
    'numbers.a: expected an object with kind',
    'numbers.b.answerProbability: expected a probability',
    'numbers.b.ringSeconds: expected { "mean": seconds }',
    'numbers.c.endedBy',
  ]) {
    t.match(message, fragment)
  }
  t.throws(() => parseScenario({ numbers: [] }), /numbers: expected an object/)
  t.throws(() => parseScenario({ agentPattern: '(' }), /agentPattern: not a valid regular expression/)
  t.throws(() => parseScenario({ agentPattern: 5 }), /agentPattern: expected a regular expression string/)
  t.throws(() => parseScenario({ agentStates: 'x' }), /agentStates: expected an object/)
  const dir = await mkdtemp(join(tmpdir(), 'pbx-sim-'))
  const bad = join(dir, 'bad.json')
  await writeFile(bad, '{ not json')
  await t.rejects(loadScenario(bad), /not valid JSON/)
})

t.test('the CLI starts from a scenario; flags override it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pbx-sim-'))
  const file = join(dir, 'scenario.json')
  await writeFile(
    file,
    JSON.stringify({
      port: 1,
      users: { ops: 'pw' },
      agents: ['1001'],
      numbers: { '5551': { kind: 'busy' } },
    }),
  )
  const sim = await main(['--scenario', file, '--port', '0', '--time-scale', '100', '--seed', '3'], silent)
  t.teardown(() => sim.close())
  t.not(sim.port, 1)
  t.equal(sim.clock.timeScale, 100)
  const c = await TestClient.connect(sim.port)
  t.equal((await c.login('ops', 'pw')).get('Message'), 'Authentication accepted')
  await c.close()
  await t.rejects(main(['--port', 'abc'], silent), /--port: expected a number/)
  await t.rejects(main(['--help'], silent), /Usage: pbx-sim/)
})

t.test('the CLI without a scenario accepts admin/admin', async (t) => {
  // The leading `--` is what `pnpm pbx-sim -- --port 5038` (the README's form) passes on.
  const sim = await main(['--', '--host', '127.0.0.1', '--port', '0'], silent)
  t.teardown(() => sim.close())
  const c = await loggedIn(sim.port)
  await c.close()
})

t.test('the start script runs the CLI as a process, logs no secrets, stops on SIGTERM', async (t) => {
  const { spawn } = await import('node:child_process')
  const dir = await mkdtemp(join(tmpdir(), 'pbx-sim-'))
  const file = join(dir, 'scenario.json')
  await writeFile(file, JSON.stringify({ users: { ops: 'pw-topsecret' }, timeScale: 50 }))
  const root = new URL('..', import.meta.url).pathname
  const child = spawn(
    process.execPath,
    // Same command as `pnpm start`, but with the test loader instead of tsx so that the child's
    // coverage maps onto the same lines as the rest of the suite.
    [
      '--conditions=hold-dialer-src',
      '--import',
      '../../scripts/ts-loader/register.mjs',
      'src/cli.ts',
      '--port',
      '0',
      '--scenario',
      file,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /"port":(\d+)/.exec(out)
      if (match?.[1]) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  const good = await TestClient.connect(port)
  t.equal((await good.login('ops', 'pw-topsecret')).get('Response'), 'Success')
  await good.close()
  const bad = await TestClient.connect(port)
  t.equal((await bad.login('ops', 'guess-123')).get('Response'), 'Error')
  await bad.closed
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  t.equal(await exited, 0)
  t.match(out, /pbx-sim ready/)
  t.match(out, /ami login failed/)
  t.notMatch(out, /pw-topsecret|guess-123/, 'no secrets in the log')
})
