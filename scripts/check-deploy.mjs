#!/usr/bin/env node
// The production install's static check, run by `pnpm test` (scripts/test.mjs) after the typecheck:
//
// 1. `systemd-analyze verify` on both units of deploy/. verify insists that ExecStart's program exists,
//    so each unit is checked as a copy in a temporary folder with /opt/hold-dialer/current (the
//    installed release) rewritten to this checkout; the script ExecStart runs (apps/*/dist/...) must
//    exist too, relative to WorkingDirectory. Any warning verify prints is a failure.
//    Its Node flags must be deploy/node-flags.json's for that script (what `pnpm start` and the bench use).
// 2. `systemd-analyze security --offline=yes --threshold=25` on the units as shipped: the exposure
//    score must be at most 2.5 ("OK"); the score is printed either way.
// 3. The env examples of deploy/env: every configuration variable is in one of them, none of shared.env's
//    is repeated in a process's file, each unit reads shared.env, then its own, and the values set in
//    shared.env plus a process's file (later wins, as systemd reads them) pass the configuration's
//    validation; sh reads shared.env's values as systemd does (the guide's operator commands source it).
//
// 4. The secrets' placeholders: each database user the guide's SQL creates has the same password
//    placeholder in the DATABASE_URL that logs in with it (migrate.env in the guide, api.env and
//    dialer.env examples), and each process's AMI_SECRET is its user's secret in asterisk/manager.conf.
//
// Without systemd-analyze (not Linux, or no systemd installed) 1 and 2 cannot run: a banner says so,
// and with REQUIRE_SYSTEMD=1 (as CI sets) it is a failure. `--units DIR` checks the units of another
// folder (to see the check fail on a weak unit).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONFIG_VARIABLES, parseConfig } from '../packages/rules/dist/index.js'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const nodeFlags = JSON.parse(readFileSync(join(root, 'deploy/node-flags.json'), 'utf8'))
const unitsArg = process.argv.indexOf('--units')
const unitDir = unitsArg > 0 ? process.argv[unitsArg + 1] : join(root, 'deploy')
const INSTALLED = '/opt/hold-dialer/current'
const MAX_SCORE = 2.5
const UNITS = { 'hold-dialer-api.service': 'api.env', 'hold-dialer-dialer.service': 'dialer.env' }
const failures = []
const out = (s) => process.stdout.write(`${s}\n`)
const fail = (s) => {
  failures.push(s)
  out(`FAIL: ${s}`)
}

// --- 1 and 2: systemd-analyze
const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' })
if (probe.error || probe.status !== 0) {
  const why = probe.error ? probe.error.message : probe.stderr.trim()
  if (process.env.REQUIRE_SYSTEMD === '1') {
    out(`FATAL: systemd-analyze cannot run (${why}) and REQUIRE_SYSTEMD=1: the units are not checked.`)
    process.exit(1)
  }
  const bar = '#'.repeat(78)
  out(`${bar}\n#  SYSTEMD UNITS NOT CHECKED: systemd-analyze cannot run (${why}).\n${bar}`)
} else {
  out(probe.stdout.split('\n')[0])
  const copies = mkdtempSync(join(tmpdir(), 'hd-units-'))
  try {
    for (const unit of Object.keys(UNITS)) {
      const shipped = join(unitDir, unit)
      const text = readFileSync(shipped, 'utf8')
      const copy = join(copies, unit)
      writeFileSync(copy, text.replaceAll(INSTALLED, root))
      const verify = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' })
      const said = `${verify.stdout}${verify.stderr}`.trim()
      if (verify.status !== 0 || said)
        fail(`${unit}: systemd-analyze verify: ${said || `exit ${verify.status}`}`)
      else out(`${unit}: systemd-analyze verify clean`)
      const args = /^ExecStart=\S+\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? []
      const script = args.at(-1)
      if (!script || !existsSync(join(root, script)))
        fail(`${unit}: ExecStart's script ${script} is not in ${root} (run pnpm build)`)
      const flags = nodeFlags[script] ?? []
      if (args.slice(0, -1).join(' ') !== flags.join(' '))
        fail(
          `${unit}: ExecStart's Node flags ${args.slice(0, -1).join(' ') || '(none)'} are not deploy/node-flags.json's (${flags.join(' ')})`,
        )

      const security = spawnSync(
        'systemd-analyze',
        ['security', '--offline=yes', `--threshold=${MAX_SCORE * 10}`, '--no-pager', shipped],
        { encoding: 'utf8' },
      )
      const score = /Overall exposure level for \S+: (\d+(?:\.\d+)?) (\w+)/.exec(security.stdout)
      if (!score)
        fail(`${unit}: no exposure score in systemd-analyze security's output: ${security.stderr.trim()}`)
      else if (Number(score[1]) > MAX_SCORE || security.status !== 0)
        fail(`${unit}: exposure ${score[1]} ${score[2]}, above ${MAX_SCORE}`)
      else out(`${unit}: exposure ${score[1]} ${score[2]} (at most ${MAX_SCORE})`)
    }
  } finally {
    rmSync(copies, { recursive: true, force: true })
  }
}

// --- the Node flags of `pnpm start:api` / `pnpm start:dialer` (scripts/start.mjs reads the file itself)
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts
for (const [name, script] of [
  ['start:api', 'apps/api/dist/server.js'],
  ['start:dialer', 'apps/dialer/dist/main.js'],
]) {
  const expected = `node ${[...(nodeFlags[script] ?? []), script].join(' ')}`
  if (!scripts[name]?.endsWith(expected)) fail(`package.json's ${name} does not end with "${expected}"`)
}

// --- 3: env examples
const envDir = join(root, 'deploy/env')
const namesIn = (file) =>
  new Set(
    [...readFileSync(join(envDir, file), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]),
  )
const shared = namesIn('shared.env.example')
const perProcess = Object.fromEntries(Object.values(UNITS).map((f) => [f, namesIn(`${f}.example`)]))
for (const { name } of CONFIG_VARIABLES) {
  if (!shared.has(name) && !Object.values(perProcess).some((s) => s.has(name)))
    fail(`${name} is in no example of deploy/env`)
}
for (const [file, names] of Object.entries(perProcess)) {
  for (const name of names)
    if (shared.has(name)) fail(`${name} is in both shared.env.example and ${file}.example`)
}
const examples = readdirSync(envDir).filter((f) => f.endsWith('.env.example'))
if (examples.length !== 3) fail(`deploy/env holds ${examples.join(', ')}: expected shared, api and dialer`)
for (const [unit, own] of Object.entries(UNITS)) {
  const files = [...readFileSync(join(unitDir, unit), 'utf8').matchAll(/^EnvironmentFile=(.*)$/gm)].map(
    (m) => m[1],
  )
  const expected = ['/etc/hold-dialer/shared.env', `/etc/hold-dialer/${own}`]
  if (files.join(' ') !== expected.join(' '))
    fail(`${unit} reads ${files.join(', ') || 'no env file'}: expected ${expected.join(', ')} in that order`)
}
// KEY=value lines as systemd's EnvironmentFile= reads them for these files (no quotes or escapes in them).
const valuesIn = (file) =>
  Object.fromEntries(
    [...readFileSync(join(envDir, file), 'utf8').matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [
      m[1],
      m[2],
    ]),
  )
for (const own of Object.values(UNITS)) {
  try {
    parseConfig({ ...valuesIn('shared.env.example'), ...valuesIn(`${own}.example`) }, { hostZone: 'UTC' })
  } catch (error) {
    fail(`shared.env.example + ${own}.example do not validate: ${error.message}`)
  }
}
// The guide's operator commands (deploy/README.md step 7) read shared.env with sh, the units with
// systemd: every value must be the same read either way.
const sourced = spawnSync(
  'sh',
  ['-c', 'set -a && . "$1" && exec env', 'sh', join(envDir, 'shared.env.example')],
  {
    encoding: 'utf8',
    env: {},
  },
)
if (sourced.status !== 0) fail(`sh cannot read shared.env.example: ${sourced.stderr.trim()}`)
else {
  const bySh = Object.fromEntries(
    sourced.stdout
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )
  for (const [name, value] of Object.entries(valuesIn('shared.env.example')))
    if (bySh[name] !== value)
      fail(`shared.env.example: sh reads ${name} as ${bySh[name]}, systemd as ${value}`)
}

// --- 4: the placeholders of the secrets agree between the guide, the env examples and manager.conf:
// a database user created by the guide's SQL with one password and a URL in an example with another
// makes a process that follows both answer 503.
const beforeSecrets = failures.length
const guide = readFileSync(join(root, 'deploy/README.md'), 'utf8')
const created = new Map(
  [...guide.matchAll(/CREATE USER '(\w+)'@'[^']+' IDENTIFIED BY '([^']+)'/g)].map((m) => [m[1], m[2]]),
)
const urls = [
  ...[...guide.matchAll(/DATABASE_URL='(mysql:\/\/[^']+)'/g)].map((m) => ['deploy/README.md', m[1]]),
  ...Object.values(UNITS).map((own) => [`${own}.example`, valuesIn(`${own}.example`).DATABASE_URL]),
]
const usedUsers = new Set()
for (const [where, url] of urls) {
  const parsed = url?.startsWith('mysql://') ? new URL(url) : undefined
  if (!parsed) {
    fail(`${where}: no mysql:// DATABASE_URL`)
    continue
  }
  const user = decodeURIComponent(parsed.username)
  usedUsers.add(user)
  if (!created.has(user)) fail(`${where}: database user ${user} is not created in deploy/README.md step 4`)
  else if (created.get(user) !== decodeURIComponent(parsed.password))
    fail(
      `${where}: ${user}'s password ${decodeURIComponent(parsed.password)} is not the one deploy/README.md creates it with (${created.get(user)})`,
    )
}
for (const user of created.keys())
  if (!usedUsers.has(user)) fail(`deploy/README.md creates database user ${user}, which no DATABASE_URL uses`)
const amiSecrets = new Map(
  [
    ...readFileSync(join(root, 'deploy/asterisk/manager.conf'), 'utf8').matchAll(
      /^\[([^\]]+)\]\n(?:[^[\n].*\n)*?secret = (\S+)$/gm,
    ),
  ].map((m) => [m[1], m[2]]),
)
for (const own of Object.values(UNITS)) {
  const { AMI_USERNAME: user, AMI_SECRET: secret } = valuesIn(`${own}.example`)
  if (!amiSecrets.has(user)) fail(`${own}.example: AMI user ${user} is not in deploy/asterisk/manager.conf`)
  else if (amiSecrets.get(user) !== secret)
    fail(
      `${own}.example: AMI_SECRET ${secret} is not ${user}'s secret in manager.conf (${amiSecrets.get(user)})`,
    )
}
const placeholders = [
  ...created.values(),
  ...amiSecrets.values(),
  ...Object.values(UNITS).map((own) => valuesIn(`${own}.example`).WS_SECRET),
].filter(Boolean)
for (const p of placeholders)
  if (!/^CHANGE-ME-[a-z-]+$/.test(p)) fail(`secret placeholder ${p} is not CHANGE-ME-<what it is>`)
if (new Set(created.values()).size !== created.size)
  fail('deploy/README.md gives two database users the same password placeholder')
if (failures.length === beforeSecrets)
  out(`secrets: ${created.size} database and ${amiSecrets.size} AMI placeholders agree`)

out(failures.length ? `${failures.length} problem(s)` : 'deploy/ checked: units, env examples and secrets')
process.exit(failures.length ? 1 : 0)
