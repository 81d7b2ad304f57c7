import { type AddressInfo, connect } from 'node:net'
import { forEachDialect } from '@hold-dialer/db/testing'
import t, { type Test } from 'tap'
import { buildApp } from '../src/app.js'
import { apiFixture, lead, masterRow, SECRET } from './fixture.js'
import { httpText, listeningApp, type RawResponse, rawRequest } from './raw-http.js'

/**
 * Errors raised before any route runs, by Node's HTTP parser or Fastify's router, come in the
 * contract's shape like every other (DECISIONS section 3): `{"ok":false,"error":...}`.
 */

function expectError(t: Test, res: RawResponse, status: number, error: string, label: string) {
  t.equal(res.status, status, `${label}: ${res.body}`)
  t.strictSame(JSON.parse(res.body), { ok: false, error }, label)
  t.match(res.headers['content-type'], /^application\/json/, label)
  t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/, `${label}: a request id`)
}

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const { port } = await listeningApp(t, fx.ctx, { requestTimeoutMs: 300 })
  const body = JSON.stringify(lead())
  const auth = { Authorization: `Bearer ${SECRET}` }

  t.test('a malformed Content-Length is 400 bad_request', async (t) => {
    for (const length of ['abc', '-1', '1.5', '10, 20', '0x10', ' ']) {
      const res = await rawRequest(
        port,
        httpText('POST', '/api/leads', { ...auth, 'Content-Length': length }, body),
      )
      expectError(t, res, 400, 'bad_request', `Content-Length: ${length}`)
    }
    const both = httpText(
      'POST',
      '/api/leads',
      { ...auth, 'Content-Length': '5', 'Transfer-Encoding': 'chunked' },
      body,
    )
    expectError(t, await rawRequest(port, both), 400, 'bad_request', 'Content-Length with Transfer-Encoding')
  })

  t.test('malformed headers and request lines are 400 bad_request', async (t) => {
    const cases: [string, string | Buffer][] = [
      ['a header without a colon', `POST /api/leads HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n`],
      ['a space before the colon', `GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n`],
      ['a control character in a value', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n`],
      ['an unknown method', `FROB /api/leads HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['an unknown HTTP version', `GET /healthz HTTP/7.0\r\nHost: x\r\n\r\n`],
      ['garbage', 'hello\r\n\r\n'],
      ['a bad chunk size', `POST /api/leads HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`],
    ]
    for (const [label, request] of cases)
      expectError(t, await rawRequest(port, request), 400, 'bad_request', label)
  })

  t.test('a malformed URL is 400 bad_request', async (t) => {
    for (const path of ['/api/leads%zz', '/%', '/api/%E0%A4%A']) {
      const res = await rawRequest(port, httpText('POST', path, auth, body))
      expectError(t, res, 400, 'bad_request', path)
    }
  })

  t.test('a 20 kB URL is 414 request_too_large; 20 kB of headers is 431', async (t) => {
    const longUrl = await rawRequest(port, httpText('GET', `/api/leads?${'x'.repeat(20_000)}`, auth))
    expectError(t, longUrl, 414, 'request_too_large', '20 kB URL')
    const bigHeaders = await rawRequest(
      port,
      httpText('POST', '/api/leads', { ...auth, 'X-Padding': 'p'.repeat(20_000) }, body),
    )
    expectError(t, bigHeaders, 431, 'request_too_large', '20 kB header')
    const manyHeaders: Record<string, string> = { ...auth }
    for (let i = 0; i < 400; i++) manyHeaders[`X-H-${i}`] = 'v'.repeat(50)
    expectError(
      t,
      await rawRequest(port, httpText('GET', '/healthz', manyHeaders)),
      431,
      'request_too_large',
      '400 headers',
    )
  })

  t.test('a client that stops sending its request gets 408 request_timeout', async (t) => {
    const headersOnly = await rawRequest(
      port,
      `POST /api/leads HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n`,
    )
    expectError(t, headersOnly, 408, 'request_timeout', 'headers never finished')
    const halfBody = await rawRequest(
      port,
      httpText('POST', '/api/leads', { ...auth, 'Content-Length': '500' }).toString() + body.slice(0, 20),
    )
    t.equal(halfBody.status, 408, halfBody.body)
    t.strictSame(JSON.parse(halfBody.body), { ok: false, error: 'request_timeout' })
  })

  t.test('a body shorter than its Content-Length over inject is 400 bad_request', async (t) => {
    const res = await fx.call({
      method: 'POST',
      url: '/api/leads',
      payload: body,
      headers: { 'content-length': String(body.length + 10) },
    })
    t.equal(res.statusCode, 400)
    t.strictSame(res.json(), { ok: false, error: 'bad_request' })
  })

  t.test('a request that arrives while the server shuts down is 503 shutting_down', async (t) => {
    const app = await buildApp(fx.ctx)
    let started!: () => void
    const firstStarted = new Promise<void>((resolve) => {
      started = resolve
    })
    app.addHook('preParsing', async (request) => {
      if (request.url === '/api/leads') started()
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port: closingPort } = app.server.address() as AddressInfo
    // One connection: a push whose body is still coming when shutdown begins, and a second request
    // pipelined behind it. The first was accepted before shutdown and is finished; the second is
    // refused in the contract's shape, with `Connection: close`.
    const socket = connect(closingPort, '127.0.0.1')
    await new Promise((r) => socket.once('connect', r))
    let received = ''
    socket.on('data', (d) => {
      received += d.toString()
    })
    const push = lead({ oli_id: 'SHUTDOWN-1' })
    const text = JSON.stringify(push)
    socket.write(
      `POST /api/leads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SECRET}\r\nContent-Length: ${text.length}\r\n\r\n${text.slice(0, 10)}`,
    )
    await firstStarted
    const closed = app.close()
    socket.write(`${text.slice(10)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`)
    await new Promise((r) => socket.once('close', r))
    await closed
    const responses = received.split(/(?=HTTP\/1\.1 )/)
    t.equal(responses.length, 2, received)
    t.match(responses[0], /^HTTP\/1\.1 201/)
    const [head = '', body = ''] = (responses[1] ?? '').split('\r\n\r\n')
    t.match(head, /^HTTP\/1\.1 503/)
    t.match(head, /retry-after: 5/i)
    t.match(head, /connection: close/i)
    t.strictSame(JSON.parse(body), { ok: false, error: 'shutting_down' })
    t.ok(await masterRow(fx, 'SHUTDOWN-1'), 'the push that began before shutdown was written')
  })
})
