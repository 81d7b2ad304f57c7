/** One `Key: Value` line of an AMI message, in wire order. */
export type Field = readonly [name: string, value: string]

/**
 * A parsed AMI message. Asterisk matches header names case-insensitively and takes the first
 * match, so lookups here do the same; the original order and spelling are kept in `fields`.
 */
export class AmiMessage {
  constructor(readonly fields: readonly Field[]) {}

  get(name: string): string | undefined {
    const wanted = name.toLowerCase()
    for (const [key, value] of this.fields) {
      if (key.toLowerCase() === wanted) return value
    }
    return undefined
  }

  /** First non-empty value, the way Asterisk reads the Action header. */
  getNonEmpty(name: string): string | undefined {
    const wanted = name.toLowerCase()
    for (const [key, value] of this.fields) {
      if (key.toLowerCase() === wanted && value !== '') return value
    }
    return undefined
  }

  getAll(name: string): string[] {
    const wanted = name.toLowerCase()
    return this.fields.filter(([key]) => key.toLowerCase() === wanted).map(([, value]) => value)
  }

  toObject(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [key, value] of this.fields) {
      if (!(key in out)) out[key] = value
    }
    return out
  }
}
