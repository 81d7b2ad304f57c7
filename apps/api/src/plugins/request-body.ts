import { PassThrough, type Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../errors.js'

/** Request `Content-Encoding`s decoded before the body is read (DECISIONS section 3). */
const DECODERS: ReadonlyMap<string, () => NodeJS.ReadWriteStream> = new Map([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  // HTTP's `deflate` is the zlib format (RFC 9110 8.4.1.2), which createInflate reads.
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
])

/**
 * The decoder for a `Content-Encoding` header: none for no header or `identity`, one of DECODERS for
 * a single coding. A list of several codings is refused like an unknown one: no client sends one,
 * and each layer would multiply the work a small body can cause.
 */
function decoderFor(header: string | undefined): (() => NodeJS.ReadWriteStream) | undefined {
  if (header === undefined) return undefined
  const codings = header
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
  if (codings.length === 0) return undefined
  const decoder = codings.length === 1 ? DECODERS.get(codings[0]!) : undefined
  if (!decoder) throw new ApiError('unsupported_encoding')
  return decoder
}

/**
 * The decoded body as a stream Fastify reads like the raw one. Fastify counts the bytes it reads from
 * it against the body limit, so 1 MB is a limit on the decoded body (413), whatever the compressed
 * size; `receivedEncodedLength` is what came over the wire, for its Content-Length check. A body the
 * decoder cannot read is not JSON: 400 `invalid_json`.
 */
function decoded(payload: Readable, decoder: NodeJS.ReadWriteStream): Readable {
  const out = new PassThrough() as PassThrough & { receivedEncodedLength: number }
  out.receivedEncodedLength = 0
  // Fastify listens for errors only while it reads the body: one that comes after it stopped (past
  // the size limit) must not become an uncaught exception.
  out.on('error', () => {})
  payload.on('data', (chunk: Buffer) => {
    out.receivedEncodedLength += chunk.length
  })
  payload.on('error', (err) => out.destroy(err))
  decoder.on('error', () => out.destroy(new ApiError('invalid_json')))
  payload.pipe(decoder).pipe(out)
  return out
}

/** Methods whose body Fastify never reads. */
const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])

// One decoder for every request: `decode` without `stream` keeps no state between calls. `fatal`
// refuses any byte sequence that is not UTF-8 (it was read as U+FFFD, so two different CRM ids
// became one lead); a leading byte-order mark is dropped, as before.
const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The body as JSON. Plain JSON.parse: `__proto__`, `constructor` and `prototype` are ordinary keys
 * (own properties; JSON.parse never sets a prototype), so the schema rejects them by name as extra
 * fields instead of the whole body being refused as invalid JSON, and nothing merges request
 * objects into others.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new ApiError('invalid_json')
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw new ApiError('invalid_json')
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_json')
  }
}

/**
 * Bodies are read as JSON whatever Content-Type says (DECISIONS section 3), malformed values too:
 * Fastify refuses a header it cannot parse (`json`, `application/`) before choosing a parser, so the
 * request's Content-Type is replaced before that check (Fastify's documented `request.headers`
 * setter; the raw header is left as sent). Runs as a preParsing hook, after the secret and the rate
 * limit, so an unauthenticated body is never decoded.
 */
export function installBodyHandling(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, async (_request: unknown, body: Buffer) =>
    parseJsonBody(body),
  )
  app.addHook('preParsing', async (request, _reply, payload) => {
    // No body will be read: a path that does not exist, or a method without one. Decoding here
    // would only do work (and could fail) for nothing.
    if (request.is404 || BODYLESS.has(request.method)) return payload
    const type = request.headers['content-type']
    if (type !== undefined && type !== 'application/json') {
      request.headers = { 'content-type': 'application/json' }
    }
    const decoder = decoderFor(request.headers['content-encoding'])
    return decoder ? decoded(payload, decoder()) : payload
  })
}
