import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
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
  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs`. True when it exited by itself. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<boolean>
}

/**
 * The Node flags the product's processes run with (`deploy/node-flags.json`, which the systemd units
 * and `pnpm start` use too), so the bench measures them as deployed.
 */
export function deployedNodeFlags(script: string): string[] {
  const flags = JSON.parse(readFileSync(`${ROOT}deploy/node-flags.json`, 'utf8')) as Record<string, string[]>
  return flags[script] ?? []
}

/**
 * Starts `node <script>` from the repository root with `env` on top of a minimal environment.
 * `onLine` sees every line it writes (the tail keeps only the last 40).
 */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  args: string[] = [],
  onLine?: (line: string) => void,
): Child {
  const child = spawn(process.execPath, [...deployedNodeFlags(script), ...args, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const keep = (line: string) => {
    if (line.trim() === '') return
    onLine?.(line)
    lines.push(line)
    if (lines.length > 40) lines.shift()
  }
  // Whole lines, however the pipe cuts its chunks: a JSON log line read by `onLine` arrives entire.
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', keep)
  }
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
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (done) return true
      child.kill(signal)
      let killed = false
      const timer = setTimeout(() => {
        killed = true
        child.kill('SIGKILL')
      }, graceMs)
      await exit
      clearTimeout(timer)
      return !killed
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
