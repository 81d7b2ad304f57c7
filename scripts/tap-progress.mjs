// `pnpm test` runs each package's tap suite with its output piped (the summary reads its counts). Read
// whole at the end, that left the terminal silent for up to 5 minutes a package and then printed
// thousands of TAP lines. This follows the TAP stream as it comes: a line per test file
// as it finishes, a line every 30 s while none does, and the package's result with its counts and
// seconds. The full TAP goes to a file; a failed file's TAP is printed in full.
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'

const HEARTBEAT_MS = 30_000

/**
 * Runs `tapBin args` in `cwd`, printing progress through `out`. Resolves with the exit status, the
 * assertion counts of tap's closing `# { total, pass }` comment, and the full TAP text.
 */
export function runTap({ label, tapBin, args = [], cwd, env, logFile, out, heartbeatMs = HEARTBEAT_MS }) {
  const started = Date.now()
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1)
  const child = spawn(tapBin, ['--reporter=tap', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] })
  const log = createWriteStream(logFile)
  let lastLine = Date.now()
  const reader = followTap({
    onFile: (file) => {
      const where = file.planned ? `${file.done}/${file.planned}` : `${file.done}`
      out(`  ${file.ok ? 'ok  ' : 'FAIL'} ${file.name} (${(file.ms / 1000).toFixed(1)} s) [${where}]`)
      if (!file.ok) out(file.block)
      lastLine = Date.now()
    },
  })
  const heartbeat = setInterval(
    () => {
      if (Date.now() - lastLine < heartbeatMs) return
      lastLine = Date.now()
      const planned = reader.planned ? ` of ${reader.planned}` : ''
      out(`  ... ${label}: ${reader.done}${planned} files done, ${reader.failed} failed, ${seconds()} s`)
    },
    Math.min(heartbeatMs, 5_000),
  )
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    log.write(chunk)
    reader.write(chunk)
  })
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(heartbeat)
      reader.end()
      log.end()
      const status = code ?? (signal ? 1 : 0)
      const counts = assertionCounts(reader.text)
      const tally = counts ? `${counts.pass} of ${counts.total} assertions passed` : 'no assertion count'
      const files = `${reader.done - reader.failed} of ${reader.done} files passed`
      out(`${status === 0 ? 'PASS' : 'FAIL'} ${label}: ${files}, ${tally}, ${seconds()} s (TAP: ${logFile})`)
      resolve({ status, counts, text: reader.text, seconds: Number(seconds()) })
    })
  })
}

/**
 * Reads tap's own output (`--reporter=tap`): each test file is one top-level subtest, reported when it
 * ends as an unindented `ok N - file # time=...` (or `not ok`) after its indented block. Calls `onFile`
 * for each as soon as that line arrives. Read by hand rather than with tap-parser: the parser holds a
 * result back until the line after it (which might open a YAML block), so each file would be shown only
 * when the next one ends.
 */
export function followTap({ onFile }) {
  const state = { planned: 0, done: 0, failed: 0, text: '' }
  let partial = ''
  let block = []
  const line = (text) => {
    state.text += `${text}\n`
    block.push(text)
    const plan = /^1\.\.(\d+)/.exec(text)
    if (plan) state.planned = Number(plan[1])
    const result = /^(not )?ok \d+ - (.*?)(?: # time=([\d.]+)ms)?$/.exec(text)
    if (!result) return
    state.done += 1
    if (result[1]) state.failed += 1
    onFile({
      name: result[2],
      ok: !result[1],
      ms: Number(result[3] ?? 0),
      done: state.done,
      planned: state.planned,
      block: block.join('\n'),
    })
    block = []
  }
  return {
    write(chunk) {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const l of lines) line(l)
    },
    end() {
      if (partial) line(partial)
      partial = ''
    },
    get planned() {
      return state.planned
    },
    get done() {
      return state.done
    },
    get failed() {
      return state.failed
    },
    get text() {
      return state.text
    },
  }
}

/** tap's closing comment `# { total: 28, pass: 27, fail: 1 }`. */
export function assertionCounts(text) {
  const m = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(text)
  return m ? { total: Number(m[1]), pass: Number(m[2]) } : undefined
}
