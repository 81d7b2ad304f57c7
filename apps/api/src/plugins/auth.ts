import { headerCopiesOf, secretCheck } from '@hold-dialer/rules'
import type { FastifyRequest } from 'fastify'

/**
 * The shared-secret check for a request (packages/rules secret-check.ts: every copy of every auth
 * header present must carry the secret, compared in constant time; DECISIONS section 3).
 */
export function secretChecker(secret: string): (request: FastifyRequest) => boolean {
  const check = secretCheck(secret)
  return (request) => check(headerCopiesOf(request))
}
