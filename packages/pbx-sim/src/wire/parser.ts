import { AmiMessage, type Field } from './message.js'

/** Longest line kept; Asterisk's own input buffer is 1 KiB, so this is generous. */
const MAX_LINE = 64 * 1024

/** Splits one `Key: Value` line. Asterisk skips blanks after the colon; so do we. */
export function parseLine(line: string): Field {
  const colon = line.indexOf(':')
  if (colon < 0) return [line.trim(), '']
  return [line.slice(0, colon).trim(), line.slice(colon + 1).replace(/^[ \t]+/, '')]
}

/**
 * Incremental AMI framing: lines end with CRLF (a bare LF is accepted, as Asterisk does) and a
 * message ends with an empty line. Feed it chunks as they arrive; it returns complete messages.
 */
export class AmiParser {
  private buffer = ''
  private lines: string[] = []

  push(chunk: string): AmiMessage[] {
    this.buffer += chunk
    const out: AmiMessage[] = []
    let newline = this.buffer.indexOf('\n')
    while (newline >= 0) {
      let line = this.buffer.slice(0, newline)
      this.buffer = this.buffer.slice(newline + 1)
      if (line.endsWith('\r')) line = line.slice(0, -1)
      if (line === '') {
        if (this.lines.length > 0) {
          out.push(new AmiMessage(this.lines.map(parseLine)))
          this.lines = []
        }
      } else {
        this.lines.push(line)
      }
      newline = this.buffer.indexOf('\n')
    }
    if (this.buffer.length > MAX_LINE) this.buffer = ''
    return out
  }
}
