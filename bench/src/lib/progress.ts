// Progress of a bench run on stderr, so the report on stdout stays clean: a line when each phase
// starts and ends, and while a phase runs a line every 10 s saying what it is doing and how far it is.

const TICK_MS = 10_000

interface Running {
  name: string
  started: number
  step: string | (() => string)
  /** When its last line was written. */
  said: number
  tickMs: number
}

let running: Running | undefined
/** The tool named at the start of each line (`[bench]`, `[chaos]`). */
let label = 'bench'
let write = (line: string) => {
  process.stderr.write(`${line}\n`)
}

const since = (t: number) => `${((Date.now() - t) / 1000).toFixed(0)} s`

/** Runs one phase of the bench, announced on stderr when it starts, every `tickMs` and when it ends. */
export async function phase<T>(name: string, run: () => Promise<T>, tickMs = TICK_MS): Promise<T> {
  const previous = running
  const current: Running = { name, started: Date.now(), step: 'starting', said: Date.now(), tickMs }
  running = current
  write(`[${label}] ${name}: started`)
  // Checked often rather than fired every tickMs: a synchronous ceiling run (better-sqlite3) holds the
  // event loop for seconds, and the line is then written as soon as the loop is free again.
  const ticker = setInterval(() => sayIfDue(current), Math.min(tickMs, 1000))
  try {
    const result = await run()
    write(`[${label}] ${name}: done in ${since(current.started)}`)
    return result
  } catch (error) {
    write(`[${label}] ${name}: failed after ${since(current.started)}`)
    throw error
  } finally {
    clearInterval(ticker)
    running = previous
  }
}

/** What the running phase is doing now (text, or a function read at each progress line). */
export function step(what: string | (() => string)): void {
  if (!running) return
  running.step = what
  sayIfDue(running)
}

function sayIfDue(current: Running): void {
  if (Date.now() - current.said < current.tickMs) return
  current.said = Date.now()
  const step = typeof current.step === 'function' ? current.step() : current.step
  write(`[${label}] ${current.name}: ${step} (${since(current.started)})`)
}

/** The tool the lines name (default `bench`). */
export function setProgressLabel(name: string): void {
  label = name
}

/** Where progress lines go (tests). */
export function setProgressWriter(writer: (line: string) => void): void {
  write = writer
}
