import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/** The three headers that carry the secret (the spec's Authentication). */
const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-access-key'] as const

/** `Bearer <secret>`; the scheme name is case-insensitive (RFC 9110 11.1). */
const BEARER = /^Bearer\s+(.+)$/i

/**
 * Builds the shared-secret check. Every copy of every auth header present must carry the secret
 * (DECISIONS section 3): one wrong header, or a repeated header with one wrong copy, is refused even
 * when another carries the right secret, so a client (or a proxy adding a header) cannot mix a
 * guess with a valid value. Copies are read from `headersDistinct`, because Node keeps only the
 * first of repeated `Authorization` headers in `headers`.
 *
 * Both sides are hashed to 32 bytes first so `timingSafeEqual` compares equal lengths and the time
 * taken reveals neither the secret's content nor its length; every copy is compared (no early exit),
 * so the time depends on how many were sent, not on which one was wrong.
 */
export function secretChecker(secret: string): (request: FastifyRequest) => boolean {
  const expected = createHash('sha256').update(secret, 'utf8').digest()
  const matches = (candidate: string | undefined): boolean => {
    const digest = createHash('sha256')
      .update(candidate ?? '', 'utf8')
      .digest()
    return timingSafeEqual(digest, expected) && candidate !== undefined
  }
  return (request) => {
    let presented = 0
    let allMatch = true
    for (const name of SECRET_HEADERS) {
      for (const value of copiesOf(request, name)) {
        presented += 1
        const candidate = name === 'authorization' ? BEARER.exec(value)?.[1] : value
        if (!matches(candidate)) allMatch = false
      }
    }
    return presented > 0 && allMatch
  }
}

/**
 * Every copy of header `name` as sent. `app.inject` requests have no `headersDistinct`; their
 * headers are given as a value or a list already.
 */
function copiesOf(request: FastifyRequest, name: string): readonly string[] {
  const distinct = (request.raw as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct
  if (distinct) return distinct[name] ?? []
  const value = request.headers[name]
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}
