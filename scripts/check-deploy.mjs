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
// 4. The secrets' placeholders: each database user the guide's SQL creates has the same password
//    placeholder in the DATABASE_URL that logs in with it (migrate.env in the guide, api.env and
//    dialer.env examples), and each process's AMI_SECRET is its user's secret in asterisk/manager.conf.
// 5. The reverse proxy, deploy/nginx/hold-dialer.conf. Read here: it sends to the API's and the
//    dialer's listeners as the env examples set them, refuses bodies over the API's BODY_LIMIT and no
//    smaller, listens with TLS, passes the console's event stream unbuffered, marks the console's
//    session cookie Secure and serves the console only to an allow list. Then `nginx -t` on it: a
//    copy with its certificate paths pointed at a throwaway self-signed certificate (openssl) and
//    port 443 made 18443 (nginx -t binds it, which only root may do for 443), included in the http
//    block of a wrapper that repeats Debian's own nginx.conf's http-level lines (so a directive the
//    file repeats at that level fails here as it would on the server). Any warning is a failure.
//
// Without systemd-analyze (not Linux, or no systemd installed) 1 and 2 cannot run: a banner says so,
// and with REQUIRE_SYSTEMD=1 (as CI sets) it is a failure. Without nginx or openssl the `nginx -t` of
// 5 cannot run: a banner says so, and with REQUIRE_PROXY_CHECK=1 (as CI sets) it is a failure.
// `--units DIR` checks the units of another folder (to see the check fail on a weak unit), `--proxy
// FILE` another proxy file.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { BODY_LIMIT } from '../apps/api/dist/app.js'
import { AGENT_COOKIE } from '../apps/dialer/dist/http/agent/plugin.js'
import { SESSION_COOKIE } from '../apps/dialer/dist/http/console/plugin.js'
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
/** Each process's configuration from the examples, by its own file's name. */
const configs = {}
for (const own of Object.values(UNITS)) {
  try {
    configs[own] = parseConfig(
      { ...valuesIn('shared.env.example'), ...valuesIn(`${own}.example`) },
      { hostZone: 'UTC' },
    )
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

// --- 5: the reverse proxy
const proxyArg = process.argv.indexOf('--proxy')
const PROXY = proxyArg > 0 ? process.argv[proxyArg + 1] : 'deploy/nginx/hold-dialer.conf'
const proxyText = readFileSync(resolve(root, PROXY), 'utf8')
const beforeProxy = failures.length
const proxyFail = (s) => fail(`${PROXY}: ${s}`)
/**
 * nginx's configuration as a tree of directives ({ name, args, children }): enough of its syntax for
 * this file (words, quoted strings, blocks, comments), not a validator (nginx -t below is).
 */
function parseNginx(text) {
  const top = { name: '', args: [], children: [] }
  const stack = [top]
  let words = []
  for (const m of text.matchAll(/#[^\n]*|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([{};])|([^\s{};'"]+)/g)) {
    if (m[0].startsWith('#')) continue
    const token = m[3]
    if (token === '{' || token === ';') {
      const node = { name: words[0], args: words.slice(1), children: [] }
      stack.at(-1).children.push(node)
      if (token === '{') stack.push(node)
      words = []
    } else if (token === '}') stack.pop()
    else words.push(m[1] ?? m[2] ?? m[4])
  }
  return top
}
const all = (node, name) => node.children.filter((c) => c.name === name)
const one = (node, name) => all(node, name)[0]
const location = (node, ...args) => all(node, 'location').find((l) => l.args.join(' ') === args.join(' '))
const nginxSize = (text) => {
  const m = /^(\d+)([kKmMgG]?)$/.exec(text ?? '')
  return m ? Number(m[1]) * 1024 ** ' kmg'.indexOf(m[2].toLowerCase() || ' ') : Number.NaN
}
const proxyTree = parseNginx(proxyText)
const servers = all(proxyTree, 'server')
const server = servers[0]
if (servers.length !== 1) proxyFail(`${servers.length} server blocks, expected one`)
else {
  const upstream = (name) => all(proxyTree, 'upstream').find((u) => u.args[0] === name)
  const listeners = {
    hold_dialer_api: configs['api.env'] && `${configs['api.env'].host}:${configs['api.env'].port}`,
    hold_dialer_console:
      configs['dialer.env'] &&
      `${configs['dialer.env'].dialerHttpHost}:${configs['dialer.env'].dialerHttpPort}`,
  }
  for (const [name, address] of Object.entries(listeners)) {
    const to = upstream(name) && one(upstream(name), 'server')?.args[0]
    if (to !== address)
      proxyFail(`upstream ${name} sends to ${to}, not ${address} (the env examples' listener)`)
  }
  const size = one(server, 'client_max_body_size')?.args[0]
  if (nginxSize(size) !== BODY_LIMIT)
    proxyFail(`client_max_body_size ${size} is not the API's body limit (${BODY_LIMIT} bytes)`)
  if (!all(server, 'listen').every((l) => l.args.includes('ssl')) || !all(server, 'listen').length)
    proxyFail('the server has a listen line without ssl')
  for (const name of ['ssl_certificate', 'ssl_certificate_key'])
    if (all(server, name).length !== 1)
      proxyFail(`the server has ${all(server, name).length} ${name} lines, expected one`)
  // The console and the agent interface: the dialer's two ways in, each for the centre's own network,
  // its cookie marked Secure, its event stream passed on unbuffered.
  for (const [path, cookieName] of [
    ['/console', SESSION_COOKIE],
    ['/agent', AGENT_COOKIE],
  ]) {
    const block = location(server, path)
    if (!block) {
      proxyFail(`no location ${path}`)
      continue
    }
    const access = block.children.filter((c) => c.name === 'allow' || c.name === 'deny')
    if (
      access.at(-1)?.name !== 'deny' ||
      access.at(-1)?.args[0] !== 'all' ||
      access.some((c) => c.name === 'allow' && c.args[0] === 'all')
    )
      proxyFail(`location ${path} is not an allow list ending in "deny all"`)
    const cookie = one(block, 'proxy_cookie_flags')?.args ?? []
    if (cookie[0] !== cookieName || !cookie.includes('secure'))
      proxyFail(`location ${path} does not mark the ${cookieName} cookie secure`)
    const events = location(block, '=', `${path}/events`)
    if (one(events ?? block, 'proxy_buffering')?.args[0] !== 'off')
      proxyFail(`location = ${path}/events (inside ${path}) does not say proxy_buffering off`)
  }
  for (const pass of proxyText.matchAll(/proxy_pass\s+http:\/\/([^;/\s]+)/g))
    if (!upstream(pass[1])) proxyFail(`proxy_pass to ${pass[1]}, which is no upstream of the file`)
}
if (failures.length === beforeProxy)
  out(`${PROXY}: listeners, body limit, TLS, console and agent streams and access read right`)

// The http-level lines of Debian 12's /etc/nginx/nginx.conf (Ubuntu 24.04's are the same), which the
// file is included after on a server: a directive it repeats at that level is an error there.
const DEBIAN_HTTP = `sendfile on;
tcp_nopush on;
types_hash_max_size 2048;
default_type application/octet-stream;
ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_prefer_server_ciphers on;
gzip on;`
const versionOf = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' })
  return r.error || r.status !== 0
    ? { missing: r.error?.message ?? `${cmd} exit ${r.status}` }
    : { version: `${r.stdout}${r.stderr}`.trim() }
}
const nginx = versionOf('nginx', ['-v'])
const missing = nginx.missing ?? versionOf('openssl', ['version']).missing
if (missing) {
  if (process.env.REQUIRE_PROXY_CHECK === '1')
    fail(`nginx -t cannot run (${missing}) and REQUIRE_PROXY_CHECK=1: ${PROXY} is not checked`)
  else {
    const bar = '#'.repeat(78)
    out(`${bar}\n#  PROXY NOT CHECKED: nginx -t cannot run (${missing}); apt-get install nginx.\n${bar}`)
  }
} else {
  const dir = mkdtempSync(join(tmpdir(), 'hd-nginx-'))
  try {
    const key = join(dir, 'key.pem')
    const crt = join(dir, 'cert.pem')
    const cert = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ].concat(['-subj', '/CN=hold-dialer.test', '-keyout', key, '-out', crt]),
      { encoding: 'utf8' },
    )
    if (cert.status !== 0) throw new Error(`openssl could not make a certificate: ${cert.stderr.trim()}`)
    writeFileSync(
      join(dir, 'site.conf'),
      proxyText
        .replace(/^(\s*ssl_certificate)\s+[^;\s]+;/m, `$1 ${crt};`)
        .replace(/^(\s*ssl_certificate_key)\s+[^;\s]+;/m, `$1 ${key};`)
        // nginx -t binds the ports it would listen on: an unprivileged one, so it runs as anyone.
        .replace(/^(\s*listen\s+(?:\S+:)?)443\b/gm, '$118443'),
    )
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (t) => `${t}_temp_path ${join(dir, t)};`,
    )
    const mime = existsSync('/etc/nginx/mime.types') ? 'include /etc/nginx/mime.types;' : ''
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${join(dir, 'nginx.pid')};\nevents {}\nhttp {\n${mime}\n${DEBIAN_HTTP}\naccess_log off;\n${temp.join('\n')}\ninclude ${join(dir, 'site.conf')};\n}\n`,
    )
    const test = spawnSync(
      'nginx',
      ['-t', '-q', '-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')],
      { encoding: 'utf8' },
    )
    const said = `${test.stdout}${test.stderr}`.trim()
    if (test.status !== 0 || said) proxyFail(`nginx -t: ${said || `exit ${test.status}`}`)
    else out(`${PROXY}: nginx -t clean (${nginx.version})`)
  } catch (error) {
    proxyFail(error.message)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

out(
  failures.length
    ? `${failures.length} problem(s)`
    : `deploy/ checked: units, env examples, secrets and reverse proxy${missing ? ' (nginx -t not run)' : ''}`,
)
process.exit(failures.length ? 1 : 0)
