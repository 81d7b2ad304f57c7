#!/usr/bin/env node
// `pnpm start`: builds, migrates, then runs the whole system on this machine with prefixed logs:
// the simulated PBX (only when AMI_HOST is unset), the API and the dialer. Ctrl-C stops all three.
// In production each process runs on its own under systemd (see deploy/); this is for trying it out.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { lineFormatter } from './log-lines.mjs'
import { useSupportedNode } from './node-runtime.mjs'

const USAGE = `usage: pnpm start [--help]
  Builds, migrates, then runs the whole system on this machine with prefixed logs: the simulated PBX
  (only when AMI_HOST is unset, with ready demo agents at desks 1001 and 1002), the API and the
  dialer. Ctrl-C stops all three. It takes no arguments: WS_SECRET is required, and every other
  variable of docs/configuration.md is passed on to the processes (DATABASE_URL defaults to
  data/dialer.sqlite; unless set, the working hours are the whole day and, on the simulated PBX,
  customers' calling hours are off).
Exit 2: bad command line or WS_SECRET missing; otherwise the first process to stop sets it.`
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\n`)
  process.exit(0)
}
if (args.length > 0) {
  process.stderr.write(
    `[start] unexpected ${args.map((a) => JSON.stringify(a)).join(' ')}: pnpm start takes no arguments, only environment variables (--help)\n`,
  )
  process.exit(2)
}

await useSupportedNode()
const root = new URL('..', import.meta.url).pathname
// The Node flags each process runs with, as the systemd units give them (scripts/check-deploy.mjs).
const nodeFlags = JSON.parse(readFileSync(join(root, 'deploy/node-flags.json'), 'utf8'))
const say = (line) => process.stdout.write(`[start] ${line}\n`)
// On a terminal the processes' JSON log lines are shown human-readable; piped or redirected, as JSON.
const format = lineFormatter({ pretty: process.stdout.isTTY === true })

if (!process.env.WS_SECRET) {
  process.stderr.write(
    '[start] WS_SECRET is not set. The API refuses to start without its shared secret.\n' +
      '[start] Try: WS_SECRET=change-me pnpm start\n',
  )
  process.exit(2)
}

const env = { ...process.env }
env.DATABASE_URL ||= `sqlite:${join(root, 'data/dialer.sqlite')}`
// A trial should dial whatever the hour: unless set, this launcher opens the working window all day
// (the processes' own defaults stay 09:00-18:00, see docs/configuration.md).
if (!env.WORK_START && !env.WORK_END) {
  env.WORK_START = '00:00'
  env.WORK_END = '23:59'
  say('working hours for this trial: 00:00-23:59 (set WORK_START and WORK_END to change)')
}
// Likewise the customers' calling hours, but only against the simulated PBX: no real person is called.
// The trial's log shows calls, not HTTP requests (one line each at debug); REQUEST_LOG_LEVEL=info shows them.
env.REQUEST_LOG_LEVEL ||= 'debug'
if (!env.CALLING_HOURS && !env.AMI_HOST) {
  env.CALLING_HOURS = 'off'
  say('customer calling hours off for this trial on the simulated PBX (set CALLING_HOURS to change)')
}

if (!process.argv.includes('--no-build')) {
  say('building (tsc -b)')
  const build = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const children = new Map()
let stopping = false

function run(name, script, args = []) {
  const child = spawn(process.execPath, [...(nodeFlags[script] ?? []), join(root, script), ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.set(name, child)
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(format(name, line)))
  }
  child.on('exit', (code, signal) => {
    children.delete(name)
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping the rest`)
      stop(1)
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0)
    }
  })
  return child
}

function stop(code = 0) {
  if (stopping) return
  stopping = true
  process.exitCode = code
  if (children.size === 0) process.exit(code)
  for (const child of children.values()) child.kill('SIGTERM')
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

say(`database: ${env.DATABASE_URL.startsWith('mysql://') ? 'MySQL' : env.DATABASE_URL}`)
const migrate = spawnSync(process.execPath, [join(root, 'packages/db/dist/cli/migrate.js')], {
  cwd: root,
  env,
  stdio: 'inherit',
})
if (migrate.status !== 0) process.exit(migrate.status ?? 1)
env.DB_MIGRATE_ON_START = 'false'

if (!env.AMI_HOST) {
  const port = env.PBX_SIM_PORT || '5038'
  env.AMI_HOST = '127.0.0.1'
  env.AMI_PORT = port
  env.AMI_USERNAME = 'admin'
  env.AMI_SECRET = 'admin'
  say(`AMI_HOST is not set: starting the simulated PBX on 127.0.0.1:${port}`)
  run('pbx-sim', 'packages/pbx-sim/dist/cli.js', [
    '--port',
    port,
    '--scenario',
    join(root, 'scripts/demo-scenario.json'),
  ])
  // The simulated desks 1001 and 1002 get agents who are ready, with a panel kept alive, so pushed
  // leads are dialed at once. Against a real Asterisk, agents come from your roster (pnpm agents).
  say('demo agents 1001 and 1002 are ready (pnpm agents list)')
  run('panel', 'apps/dialer/dist/cli/agents-main.js', ['demo', '1001', '1002'])
}

// The dialer's own listener (/healthz, /metrics): protected by WS_SECRET's value unless set apart.
env.DIALER_HTTP_SECRET ||= env.WS_SECRET
const dialerHttpPort = env.DIALER_HTTP_PORT || '3001'
if (dialerHttpPort === '0') {
  say('dialer HTTP listener: off (DIALER_HTTP_PORT=0)')
} else {
  const host = env.DIALER_HTTP_HOST || '127.0.0.1'
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${dialerHttpPort}`
  // The dialer dials without its listener when the port is taken (its log says so): the banner then
  // says that instead of a URL where something else answers.
  const taken = await portTaken(host, Number(dialerHttpPort))
  say(
    taken
      ? `dialer HTTP listener: ${host}:${dialerHttpPort} is taken by another program: no console, /healthz or /metrics from this dialer (set DIALER_HTTP_PORT)`
      : `dialer HTTP listener: ${url} (/healthz; /metrics with DIALER_HTTP_SECRET); the console: ${url}/console`,
  )
}

/** Whether something already listens on host:port (tried by listening there a moment). */
function portTaken(host, port) {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', (err) => resolve(err.code === 'EADDRINUSE'))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(false)))
  })
}

run('api', 'apps/api/dist/server.js')
run('dialer', 'apps/dialer/dist/main.js')
