// The dialer process's own listener, as main.ts starts it: /healthz for anyone, /metrics with
// DIALER_HTTP_SECRET, a warning without a secret, dialing going on when the port is taken, and the
// listener closed at shutdown.
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { fileURLToPath } from 'node:url'
import { childEntry, fakeClockEnv, forEachDialect } from '@hold-dialer/db/testing'
import { startPbxSim } from '@hold-dialer/pbx-sim'
import t, { type Test } from 'tap'

const mainTs = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const HTTP_SECRET = 'main-http-secret'

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

/** A port nothing listens on, or (`keep`) one held by a listener of this test. */
function port(t: Test, keep = false): Promise<number> {
  return new Promise((resolve) => {
    const srv: Server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      if (keep) {
        t.teardown(() => new Promise<void>((r) => srv.close(() => r())))
        resolve(port)
      } else srv.close(() => resolve(port))
    })
  })
}

async function startDialer(t: Test, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, childEntry(mainTs), {
    env: { PATH: process.env.PATH ?? '', ...fakeClockEnv(), LOG_LEVEL: 'info', TIMEZONE: 'UTC', ...env },
  })
  let out = ''
  child.stdout?.on('data', (d) => (out += d))
  child.stderr?.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return { child, output: () => out, exited }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, s: Started): Promise<void> {
  const deadline = Date.now() + 300_000
  while (!(await check())) {
    if (s.child.exitCode !== null) throw new Error(`dialer exited: ${s.output()}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${s.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The log lines with this message. */
const lines = (s: Started, msg: string) =>
  s
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => String(l.msg).startsWith(msg))

forEachDialect(t, async (t, database) => {
  const sim = await startPbxSim({ port: 0, users: { dialer: 'dialer-pass' }, timeScale: 50 })
  t.teardown(() => sim.close())
  const base = {
    DATABASE_URL: database.url,
    AMI_HOST: '127.0.0.1',
    AMI_PORT: String(sim.port),
    AMI_USERNAME: 'dialer',
    AMI_SECRET: 'dialer-pass',
  }

  t.test('with a secret: /healthz public, /metrics with it; closed at shutdown', async (t) => {
    const httpPort = await port(t)
    const s = await startDialer(t, {
      ...base,
      DIALER_ID: 'main-http-1',
      DIALER_HTTP_PORT: String(httpPort),
      DIALER_HTTP_SECRET: HTTP_SECRET,
    })
    const url = `http://127.0.0.1:${httpPort}`
    await waitFor('started', () => lines(s, 'dialer started').length === 1, s)
    t.equal(lines(s, 'dialer started')[0]?.http, url, 'the start line says where it listens')
    t.notMatch(s.output(), new RegExp(HTTP_SECRET), 'the secret is never logged')
    type Health = { ami: string; idle: { reasons: { code: string }[] } | null }
    const health = async () => (await (await fetch(`${url}/healthz`)).json()) as Health
    // Connected, and no agent on the roster: the dialer says so (idle/idle-report.ts).
    await waitFor(
      'AMI connected, and why nothing is dialed',
      async () => {
        const h = await health()
        return h.ami === 'connected' && h.idle?.reasons[0]?.code === 'no-agent-ready'
      },
      s,
    )
    const { idle, ...rest } = await health()
    t.strictSame(rest, {
      dialer: 'main-http-1',
      ami: 'connected',
      database: 'available',
      trunk: { state: 'closed', failures: 0, since: null, nextProbeAt: null, trying: false },
    })
    t.match(idle, { reasons: [{ code: 'no-agent-ready' }] })
    t.match(s.output(), /"msg":"nothing dialed: no agent can take a call/, 'said at info')
    t.equal((await fetch(`${url}/metrics`)).status, 401)
    const metrics = await fetch(`${url}/metrics`, { headers: { 'x-access-key': HTTP_SECRET } })
    t.equal(metrics.status, 200)
    const text = await metrics.text()
    t.match(text, /^process_cpu_user_seconds_total /m, 'process defaults')
    t.match(text, /^hold_dialer_dialer_ami_connected 1$/m)
    t.match(text, /^hold_dialer_dialer_queue_up 1$/m)
    s.child.kill('SIGTERM')
    t.equal(await s.exited, 0)
    await t.rejects(fetch(`${url}/healthz`), 'the listener is closed')
  })

  t.test('without a secret: only /healthz, and one warning', async (t) => {
    const httpPort = await port(t)
    const s = await startDialer(t, { ...base, DIALER_ID: 'main-http-2', DIALER_HTTP_PORT: String(httpPort) })
    await waitFor('started', () => lines(s, 'dialer started').length === 1, s)
    const url = `http://127.0.0.1:${httpPort}`
    t.equal((await fetch(`${url}/healthz`)).status, 200)
    t.equal((await fetch(`${url}/metrics`, { headers: { 'x-api-key': 'anything' } })).status, 404)
    t.equal(lines(s, 'DIALER_HTTP_SECRET is not set').length, 1)
    t.match(lines(s, 'DIALER_HTTP_SECRET is not set')[0], { level: 40 })
    s.child.kill('SIGTERM')
    t.equal(await s.exited, 0)
  })

  t.test('the port taken: an error line, and the dialer runs on', async (t) => {
    const taken = await port(t, true)
    const s = await startDialer(t, {
      ...base,
      DIALER_ID: 'main-http-3',
      DIALER_HTTP_PORT: String(taken),
      DIALER_HTTP_SECRET: HTTP_SECRET,
    })
    await waitFor('started', () => lines(s, 'dialer started').length === 1, s)
    t.match(lines(s, 'the dialer HTTP listener did not start')[0], { level: 50, err: { code: 'EADDRINUSE' } })
    t.equal(lines(s, 'dialer started')[0]?.http, 'off')
    s.child.kill('SIGTERM')
    t.equal(await s.exited, 0)
  })

  t.test('DIALER_HTTP_PORT=0: no listener', async (t) => {
    const s = await startDialer(t, {
      ...base,
      DIALER_ID: 'main-http-4',
      DIALER_HTTP_PORT: '0',
      DIALER_HTTP_SECRET: HTTP_SECRET,
    })
    await waitFor('started', () => lines(s, 'dialer started').length === 1, s)
    t.equal(lines(s, 'dialer started')[0]?.http, 'off')
    t.equal(lines(s, 'DIALER_HTTP_SECRET is not set').length, 0)
    s.child.kill('SIGTERM')
    t.equal(await s.exited, 0)
  })
})

t.test('the database not answering at start: /healthz says so while the dialer waits', async (t) => {
  const httpPort = await port(t)
  const nothing = await port(t)
  const s = await startDialer(t, {
    DATABASE_URL: `mysql://dialer:unused@127.0.0.1:${nothing}/none`,
    AMI_HOST: '127.0.0.1',
    AMI_PORT: String(await port(t)),
    AMI_USERNAME: 'dialer',
    AMI_SECRET: 'dialer-pass',
    DIALER_ID: 'main-http-5',
    DIALER_HTTP_PORT: String(httpPort),
    DIALER_HTTP_SECRET: HTTP_SECRET,
  })
  const url = `http://127.0.0.1:${httpPort}`
  let health: Record<string, unknown> = {}
  await waitFor(
    '/healthz',
    async () => {
      const r = await fetch(`${url}/healthz`).catch(() => undefined)
      if (r === undefined) return false
      health = (await r.json()) as Record<string, unknown>
      return true
    },
    s,
  )
  t.match(health, { dialer: 'main-http-5', database: 'unavailable' })
  const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${HTTP_SECRET}` } })
  t.equal(metrics.status, 200, 'metrics are served while the database is away')
  t.equal(lines(s, 'dialer started').length, 0, 'nothing is claimed before the database answers')
})
