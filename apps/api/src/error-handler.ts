import type { FastifyError, FastifyInstance } from 'fastify'
import { ApiError, type ApiErrorCode, HTTP_STATUS } from './errors.js'
import { detailsFromSchemaErrors } from './validation-details.js'

/** Fastify's own error codes for a body that is not JSON (the parser runs for any Content-Type). */
const INVALID_JSON = new Set([
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
])

function send(
  reply: Parameters<Parameters<FastifyInstance['setErrorHandler']>[0]>[2],
  code: ApiErrorCode,
  extra: object = {},
) {
  return reply.code(HTTP_STATUS[code]).send({ ok: false, error: code, ...extra })
}

/** The one place errors become responses. 5xx bodies carry only the request id, never details. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    // Fastify reads and parses a body on the not-found route too, before its handler runs; a path
    // that does not exist is a 404 whatever its body (DECISIONS section 3: route exists is checked first).
    if (request.is404) return send(reply, 'not_found')
    if (error instanceof ApiError) {
      return send(reply, error.code, error.details ? { details: error.details } : {})
    }
    if (error.validation) {
      // With no Content-Type and no bytes Fastify runs no parser and validates `undefined`: an
      // empty body is not JSON, whatever header came with it.
      if (error.validationContext === 'body' && request.body === undefined) return send(reply, 'invalid_json')
      return send(reply, 'validation_failed', { details: detailsFromSchemaErrors(error.validation) })
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413)
      return send(reply, 'payload_too_large')
    if (INVALID_JSON.has(error.code) || error instanceof SyntaxError) return send(reply, 'invalid_json')
    if (error.statusCode === 429) return send(reply, 'rate_limited')
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.warn({ err: error }, 'client error without a mapped code')
      return send(reply, 'validation_failed', { details: [{ field: 'body', message: error.message }] })
    }
    request.log.error({ err: error, reqId: request.id }, 'unexpected error')
    return send(reply, 'internal_error', { request_id: String(request.id) })
  })
  app.setNotFoundHandler((_request, reply) => send(reply, 'not_found'))
}
