import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { type BuildOptions, buildApp } from '../src/app.js'
import type { ApiContext } from '../src/context.js'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** A second app on the same context, listening on a free port, closed when the test ends. */
export async function listeningApp(
  t: Test,
  ctx: ApiContext,
  options: BuildOptions = {},
): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildApp(ctx, options)
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as AddressInfo).port }
}

/**
 * Writes `request` (bytes exactly as given: any header, any framing) on a new connection and reads
 * the one response the server sends before it closes or `keepOpenMs` passes. No HTTP client would
 * send most of these requests, which is the point.
 */
export function rawRequest(
  port: number,
  request: string | Buffer | readonly (string | Buffer)[],
  options: { pauseMs?: number; timeoutMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const parsed = parseResponse(Buffer.concat(chunks))
      if (parsed) resolve(parsed)
      else
        reject(new Error(`no complete response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`))
    }
    const timer = setTimeout(finish, options.timeoutMs ?? 10_000)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      if (parseResponse(Buffer.concat(chunks))) finish()
    })
    socket.on('end', finish)
    socket.on('close', finish)
    // The server may answer and close while the rest is still being written: that is an answer.
    socket.on('error', () => finish())
    const parts = Array.isArray(request) ? request : [request]
    const writeAll = async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs))
        if (socket.destroyed) return
        socket.write(part)
      }
    }
    socket.on('connect', () => {
      writeAll().catch(reject)
    })
  })
}

/** The first HTTP/1.1 response in `bytes` once all of it (by Content-Length) is there. */
function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'] ?? 0)
  const body = bytes.subarray(end + 4)
  if (headers['transfer-encoding'] === 'chunked') {
    const text = body.toString('utf8')
    if (!text.endsWith('0\r\n\r\n')) return undefined
    return { status, headers, body: dechunk(text) }
  }
  if (body.length < length) return undefined
  return { status, headers, body: body.subarray(0, length).toString('utf8') }
}

function dechunk(text: string): string {
  let out = ''
  let rest = text
  for (;;) {
    const lineEnd = rest.indexOf('\r\n')
    const size = Number.parseInt(rest.slice(0, lineEnd), 16)
    if (!size) return out
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size)
    rest = rest.slice(lineEnd + 2 + size + 2)
  }
}

/** A request with these headers and body, framed by Content-Length unless headers say otherwise. */
export function httpText(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body: string | Buffer = '',
): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close']
  const names = Object.keys(headers).map((h) => h.toLowerCase())
  if (!names.includes('content-length') && !names.includes('transfer-encoding') && bytes.length > 0) {
    lines.push(`Content-Length: ${bytes.length}`)
  }
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`)
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes])
}
