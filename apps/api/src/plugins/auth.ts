import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/**
 * Builds the shared-secret check. Both sides are hashed to 32 bytes first so `timingSafeEqual`
 * compares equal lengths and the time taken reveals neither the secret's content nor its length.
 * Every header is checked (no early exit) so the time does not depend on which one carried it.
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
    const h = request.headers
    const bearer = /^Bearer\s+(.+)$/i.exec(single(h.authorization) ?? '')?.[1]
    const results = [matches(bearer), matches(single(h['x-api-key'])), matches(single(h['x-access-key']))]
    return results.some(Boolean)
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
