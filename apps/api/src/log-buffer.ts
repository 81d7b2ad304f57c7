import { Writable } from 'node:stream'

/**
 * Keeps the last `size` warn-or-worse log lines (pino JSON) for the detailed health. pino's
 * multistream writes to it beside stdout; lines are already redacted by pino.
 */
export class WarnLogBuffer extends Writable {
  readonly #lines: unknown[] = []
  constructor(private readonly size = 50) {
    super()
  }
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue
      try {
        this.#lines.push(JSON.parse(line))
      } catch {
        this.#lines.push({ msg: line })
      }
      if (this.#lines.length > this.size) this.#lines.shift()
    }
    callback()
  }
  lines(): unknown[] {
    return [...this.#lines]
  }
}
