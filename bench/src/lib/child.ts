import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MemorySampler, procStatusMiB } from './proc-status.js'

/** The repository root: the same depth from `src/lib` and `dist/lib`. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export interface Child {
  name: string
  process: ChildProcess
  pid: number
  /** Last lines the process wrote, shown when it fails. */
  tail(): string
  peakRssMiB(): number
  /** Peak private (RssAnon) and file-backed (RssFile) resident memory, sampled every 100 ms. */
  peakMemory(): { anonMiB: number; fileMiB: number }
  exited(): boolean
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * The Node flags the product's processes run with (`deploy/node-flags.json`, which the systemd units
 * and `pnpm start` use too), so the bench measures them as deployed.
 */
export function deployedNodeFlags(script: string): string[] {
  const flags = JSON.parse(readFileSync(`${ROOT}deploy/node-flags.json`, 'utf8')) as Record<string, string[]>
  return flags[script] ?? []
}

/** Starts `node <script>` from the repository root with `env` on top of a minimal environment. */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  args: string[] = [],
): Child {
  const child = spawn(process.execPath, [...deployedNodeFlags(script), ...args, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue
      lines.push(line)
      if (lines.length > 40) lines.shift()
    }
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  let done = false
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      done = true
      resolve()
    }),
  )
  if (child.pid === undefined) throw new Error(`${name}: could not start ${script}`)
  const pid = child.pid
  const sampler = new MemorySampler(pid)
  child.once('exit', () => sampler.stop())
  return {
    name,
    process: child,
    pid,
    tail: () => lines.join('\n'),
    peakRssMiB: () => procStatusMiB(pid, 'VmHWM'),
    peakMemory: () => {
      sampler.sample()
      return { anonMiB: sampler.peakAnonMiB, fileMiB: sampler.peakFileMiB }
    },
    exited: () => done,
    async stop(signal = 'SIGTERM') {
      if (done) return
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exit
      clearTimeout(timer)
    },
  }
}

/** Polls until `check` is true, or throws naming `what` (and the child's last lines) after `ms`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  ms: number,
  child?: Child,
): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (child?.exited()) throw new Error(`${child.name} exited while waiting for ${what}:\n${child.tail()}`)
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}${child ? `:\n${child.tail()}` : ''}`)
}
