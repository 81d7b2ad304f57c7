/** A lone UTF-16 surrogate cannot be stored as utf8mb4 (MySQL rejects it), so it is a 400, not a 500. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value)
}
