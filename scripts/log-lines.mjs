// How `pnpm start` shows its processes' output: each line prefixed with the process's name and, when
// the launcher's stdout is a terminal, each pino JSON line rendered human-readable by pino-pretty.
// Lines that are not pino JSON (a stack trace on stderr, a process's own banner) pass through as they are.
import { prettyFactory } from 'pino-pretty'

/** A function (name, line) -> the text to print (ending in a newline). `pretty`: render pino JSON. */
export function lineFormatter({ pretty, colorize = pretty }) {
  const render = pretty
    ? prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : undefined
  return (name, line) => {
    const prefix = `[${name}] `
    const text = render && isPinoLine(line) ? render(line) : `${line}\n`
    // pino-pretty puts the fields of a line on the lines under it: each keeps the prefix.
    return text
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => prefix + l)
      .join('\n')
      .concat('\n')
  }
}

function isPinoLine(line) {
  if (!line.startsWith('{')) return false
  try {
    const value = JSON.parse(line)
    return typeof value === 'object' && value !== null && typeof value.level === 'number'
  } catch {
    return false
  }
}
