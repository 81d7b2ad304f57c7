// The shared-secret comparison used by the API and by the dialer's own HTTP listener. Pure: the
// caller says how to read a header's copies from its request.
import { createHash, timingSafeEqual } from 'node:crypto'

/** The three headers that carry the secret (the spec's Authentication). */
export const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-access-key'] as const

/** Every copy of a header as sent (lower-case name), an empty list when it is absent. */
export type HeaderCopies = (name: (typeof SECRET_HEADERS)[number]) => readonly string[]

/** `Bearer <secret>`; the scheme name is case-insensitive (RFC 9110 11.1). */
const BEARER = /^Bearer\s+(.+)$/i

/**
 * Builds the shared-secret check. Every copy of every auth header present must carry the secret
 * (DECISIONS section 3): one wrong header, or a repeated header with one wrong copy, is refused even
 * when another carries the right secret, so a client (or a proxy adding a header) cannot mix a
 * guess with a valid value.
 *
 * Both sides are hashed to 32 bytes first so `timingSafeEqual` compares equal lengths and the time
 * taken reveals neither the secret's content nor its length; every copy is compared (no early exit),
 * so the time depends on how many were sent, not on which one was wrong.
 */
export function secretCheck(secret: string): (copies: HeaderCopies) => boolean {
  const expected = createHash('sha256').update(secret, 'utf8').digest()
  const matches = (candidate: string | undefined): boolean => {
    const digest = createHash('sha256')
      .update(candidate ?? '', 'utf8')
      .digest()
    return timingSafeEqual(digest, expected) && candidate !== undefined
  }
  return (copies) => {
    let presented = 0
    let allMatch = true
    for (const name of SECRET_HEADERS) {
      for (const value of copies(name)) {
        presented += 1
        const candidate = name === 'authorization' ? BEARER.exec(value)?.[1] : value
        if (!matches(candidate)) allMatch = false
      }
    }
    return presented > 0 && allMatch
  }
}

/** The parts of an HTTP request (Fastify's) the check reads its headers from. */
export interface HeaderSource {
  raw: unknown
  headers: Record<string, string | string[] | undefined>
}

/**
 * Every copy of each header as sent. Node keeps only the first of repeated `Authorization` headers
 * in `headers`, hence `raw.headersDistinct`; `app.inject` requests have none and give a value or a
 * list already.
 */
export function headerCopiesOf(request: HeaderSource): HeaderCopies {
  return (name) => {
    const distinct = (request.raw as { headersDistinct?: Record<string, string[] | undefined> })
      .headersDistinct
    if (distinct) return distinct[name] ?? []
    const value = request.headers[name]
    if (value === undefined) return []
    return Array.isArray(value) ? value : [value]
  }
}
