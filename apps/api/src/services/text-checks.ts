/** A lone UTF-16 surrogate cannot be stored as utf8mb4 (MySQL rejects it), so it is a 400, not a 500. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value)
}

export const BLANK_MESSAGE = 'must not be blank'

/**
 * Only white space (DECISIONS section 3: such an `oli_id`, `oliId` or `client_name` is a 400). White
 * space as `String.prototype.trim` knows it: Unicode's, the byte-order mark and line ends included.
 * Other values are stored exactly as sent, never trimmed.
 */
export function isBlank(value: string): boolean {
  return value.trim() === ''
}
