// pnpm start's banner names the console's URL only when the dialer's listener can have it.
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

const root = new URL('../..', import.meta.url).pathname
// The two runs at once: each mostly waits for its processes to start.
t.jobs = 2

/** A port nothing listens on now. */
async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Runs `pnpm start`'s script with its output collected; `until` waits for a line. */
function start(t, env) {
  const child = spawn(process.execPath, [join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      WS_SECRET: 'start-test-secret',
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'start-test-')), 'dialer.sqlite')}`,
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return {
    exited,
    output: () => out,
    stop: () => child.kill('SIGINT'),
    /** The first line matching `pattern`, once it is printed (300 s: a safety net, not a speed). */
    async until(pattern) {
      const deadline = Date.now() + 300_000
      for (;;) {
        const line = out.split('\n').find((l) => pattern.test(l))
        if (line) return line
        if (child.exitCode !== null) throw new Error(`pnpm start exited before ${pattern}:\n${out}`)
        if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${out}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
  }
}

t.test('a taken listener port is said in the banner, not advertised as the console', async (t) => {
  const holder = createServer()
  await new Promise((resolve) => holder.listen({ host: '127.0.0.1', port: 0 }, resolve))
  t.teardown(() => holder.close())
  const taken = holder.address().port
  const s = start(t, {
    PORT: String(await freePort()),
    PBX_SIM_PORT: String(await freePort()),
    DIALER_HTTP_PORT: String(taken),
  })
  const banner = await s.until(/^\[start\] dialer HTTP listener:/)
  t.match(banner, `127.0.0.1:${taken} is taken by another program`)
  t.notMatch(banner, /\/console/, 'no console URL where another program answers')
  t.match(await s.until(/the dialer HTTP listener did not start/), /EADDRINUSE/, 'the dialer says so too')
  t.match(await s.until(/"msg":"dialer started"/), /"http":"off"/, 'and goes on dialing without it')
  s.stop()
  t.equal(await s.exited, 0, 'Ctrl-C stops everything')
})

t.test('a free listener port: the banner gives the console URL', async (t) => {
  const port = await freePort()
  const s = start(t, {
    PORT: String(await freePort()),
    PBX_SIM_PORT: String(await freePort()),
    DIALER_HTTP_PORT: String(port),
  })
  const banner = await s.until(/^\[start\] dialer HTTP listener:/)
  t.match(banner, `the console: http://127.0.0.1:${port}/console`)
  t.match(await s.until(/"msg":"dialer started"/), `"http":"http://127.0.0.1:${port}"`)
  s.stop()
  t.equal(await s.exited, 0)
})
