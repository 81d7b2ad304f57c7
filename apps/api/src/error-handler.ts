import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from './context.js'
import { ApiError, type ApiErrorCode, HTTP_STATUS, RETRY_AFTER_SECONDS } from './errors.js'
import { detailsFromSchemaErrors } from './validation-details.js'

/** Fastify's own error codes for a body that is not JSON (the parser runs for any Content-Type). */
const INVALID_JSON = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])

function send(reply: FastifyReply, code: ApiErrorCode, extra: object = {}, status = HTTP_STATUS[code]) {
  return reply.code(status).send({ ok: false, error: code, ...extra })
}

/**
 * A request Node's HTTP parser refused (DECISIONS section 3): malformed request line, headers or
 * Content-Length 400 `bad_request`; URL or headers over Node's 16 KiB 414/431 `request_too_large`; a
 * client too slow to send its request 408 `request_timeout`. No route ran, so this is written on the
 * socket directly, in the same shape as every other error.
 */
function clientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): [number, ApiErrorCode] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'request_timeout']
  if (err.code === 'HPE_HEADER_OVERFLOW') return [urlTooLong(err.rawPacket) ? 414 : 431, 'request_too_large']
  return [400, 'bad_request']
}

/**
 * Node counts the URL and the headers against one limit, so which was too long is read from the
 * bytes that overflowed it: a request line that did not end within them is a URL too long (414).
 */
function urlTooLong(packet: Buffer | undefined): boolean {
  if (!packet || !/^[A-Z]+ /.test(packet.subarray(0, 12).toString('latin1'))) return false
  const lineEnd = packet.indexOf('\r\n')
  return lineEnd === -1 || lineEnd > 8 * 1024
}

export function clientErrorHandler(
  this: FastifyInstance,
  ctx: AppContext,
  err: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code] = clientError(err)
  const body = JSON.stringify({ ok: false, error: code })
  const id = randomUUID()
  this.log.debug({ err, reqId: id }, 'request refused by the HTTP parser')
  ctx.metrics.responses.inc({ route: 'unparsed', status: String(status) })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** Errors Fastify raises before it has a route: a malformed URL (`/%zz`) and its router's limits. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id)
  if (error.code === 'FST_ERR_BAD_URL') return send(reply, 'bad_request')
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, 'request_too_large', {}, 414)
  request.log.error({ err: error }, 'unexpected router error')
  return send(reply, 'internal_error', { request_id: String(request.id) })
}

/** The one place errors become responses. 5xx bodies carry only the request id, never details. */
export function installErrorHandling(app: FastifyInstance, ctx: AppContext): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    // Fastify reads and parses a body on the not-found route too, before its handler runs; a path
    // that does not exist is a 404 whatever its body (DECISIONS section 3: route exists is checked first).
    if (request.is404) return send(reply, 'not_found')
    if (error instanceof ApiError) {
      if (error.statusCode === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      if (error.code === 'database_unavailable') {
        return send(reply, error.code, { request_id: String(request.id) })
      }
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
    if (INVALID_JSON.has(error.code)) return send(reply, 'invalid_json')
    if (error.statusCode === 429) return send(reply, 'rate_limited')
    // Other client errors Fastify raises while reading a request: a body shorter or longer than its
    // Content-Length, a client that went away mid-body (its ECONNRESET is the client's, not the
    // database's, so this comes first).
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'bad request')
      return send(reply, 'bad_request')
    }
    // The database could not serve this request (unreachable, refused, retries used up): 503, and
    // the availability watch logs it (once a minute) and probes until it answers.
    if (ctx.availability.report(error) !== undefined) {
      request.log.debug({ err: error }, 'database unavailable')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return send(reply, 'database_unavailable', { request_id: String(request.id) })
    }
    request.log.error({ err: error }, 'unexpected error')
    return send(reply, 'internal_error', { request_id: String(request.id) })
  })
  app.setNotFoundHandler((_request, reply) => send(reply, 'not_found'))
}
