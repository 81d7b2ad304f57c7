import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { forEachDialect } from '@hold-dialer/db/testing'
import t, { type Test } from 'tap'
import { type ApiFixture, apiFixture, lead, masterRow } from './fixture.js'

/**
 * What the API does with the bytes of a body (DECISIONS section 3, "Hardening"): only UTF-8 is text,
 * any Content-Type is JSON, `__proto__` and friends are ordinary (unknown) keys, and gzip, deflate
 * and br bodies are decoded with the 1 MB limit on the decoded size.
 */

const WRITES = [
  ['POST', '/api/leads'],
  ['POST', '/api/master'],
  ['PUT', '/api/escalated-tickets'],
  ['POST', '/api/send-callback-request'],
] as const

async function tableState(fx: ApiFixture): Promise<string> {
  const db = fx.database.handle.kysely
  const master = await db.selectFrom('hold_dialer_master_data').selectAll().orderBy('id').execute()
  const disposed = await db.selectFrom('hold_dialer_disposed').selectAll().orderBy('id').execute()
  return JSON.stringify({ master, disposed })
}

/** `json` with the bytes of `marker` (a placeholder inside a string) replaced by `bytes`. */
function withBytes(json: string, marker: string, bytes: number[]): Buffer {
  const at = json.indexOf(marker)
  return Buffer.concat([
    Buffer.from(json.slice(0, at)),
    Buffer.from(bytes),
    Buffer.from(json.slice(at + marker.length)),
  ])
}

/** Byte sequences that are not UTF-8: lone bytes, overlong forms, surrogates, truncated sequences. */
const NOT_UTF8: number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf], // overlong '/'
  [0xe0, 0x80, 0xaf], // overlong '/'
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded as UTF-8
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0xe2, 0x82], // truncated euro sign
  [0xf0, 0x9f, 0x98], // truncated emoji
]

function expectInvalidJson(t: Test, res: { statusCode: number; json(): unknown }, label: string) {
  t.equal(res.statusCode, 400, label)
  t.strictSame(res.json(), { ok: false, error: 'invalid_json' }, label)
}

for (const mode of ['pool', 'pinned'] as const) {
  forEachDialect(t, async (t, database) => {
    const fx = await apiFixture(t, database, { env: { CALLBACK_MODE: mode } })
    const pushBytes = (payload: Buffer | string, headers: Record<string, string> = {}) =>
      fx.call({ method: 'POST', url: '/api/leads', payload, headers })

    t.test(`${mode}: two ids that differ only in a non-UTF-8 byte cannot become one lead`, async (t) => {
      // Both were stored as COL-\uFFFD: the second push answered `updated` over another CRM lead.
      const json = JSON.stringify(lead({ oli_id: 'COL-@@' }))
      const first = await pushBytes(withBytes(json, '@@', [0xff]))
      const second = await pushBytes(withBytes(json, '@@', [0xfe]))
      expectInvalidJson(t, first, 'COL-\\xff')
      expectInvalidJson(t, second, 'COL-\\xfe')
      t.equal(await masterRow(fx, 'COL-\uFFFD'), undefined, 'nothing stored under the replacement character')
      const batch = JSON.stringify({ leads: [lead({ oli_id: 'B-@@' }), lead({ oli_id: 'B-##' })] })
      const both = withBytes(withBytes(batch, '@@', [0xff]).toString('latin1'), '##', [0xfe])
      expectInvalidJson(t, await pushBytes(both), 'a batch: invalid_json, not a misleading duplicate oli_id')
    })

    t.test(
      `${mode}: any non-UTF-8 bytes in any string field are 400 invalid_json, nothing written`,
      async (t) => {
        await fx.push(lead({ oli_id: 'UTF-TICKET', priority_id: 8 }))
        const before = await tableState(fx)
        const bodies: [string, string, string][] = [
          ...['oli_id', 'phone_number', 'client_name', 'form_type'].map(
            (field) =>
              [
                '/api/leads',
                field,
                JSON.stringify(lead({ [field]: field === 'phone_number' ? '98765 43210 @@' : 'x@@' })),
              ] as [string, string, string],
          ),
          [
            '/api/leads',
            'callback_scheduled_at',
            JSON.stringify(lead({ priority_id: 2, callback_scheduled_at: '2026-11-24 10:00:00@@' })),
          ],
          ['/api/master', 'a key', '{"oli_id@@":"x"}'],
          ['/api/escalated-tickets', 'oliId', JSON.stringify({ oliId: 'UTF-TICKET@@', status: 'Close' })],
          ['/api/escalated-tickets', 'status', JSON.stringify({ oliId: 'UTF-TICKET', status: 'Close@@' })],
          [
            '/api/send-callback-request',
            'scheduledAt',
            JSON.stringify({ oliId: 'UTF-TICKET', scheduledAt: '2026-11-24 10:00:00@@' }),
          ],
        ]
        for (const [url, field, json] of bodies) {
          for (const bytes of NOT_UTF8) {
            const res = await fx.call({
              method: url === '/api/escalated-tickets' ? 'PUT' : 'POST',
              url,
              payload: withBytes(json, '@@', bytes),
            })
            expectInvalidJson(t, res, `${url} ${field} ${Buffer.from(bytes).toString('hex')}`)
          }
        }
        t.equal(await tableState(fx), before, 'no row changed')
      },
    )

    t.test(`${mode}: real UTF-8 (and a byte-order mark) is still read exactly`, async (t) => {
      const body = lead({ oli_id: 'UTF-\uFFFD-é-\u{1F600}', client_name: 'Zoë \u4E2D\u6587' })
      const res = await pushBytes(
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(body))]),
      )
      t.equal(res.statusCode, 201, res.body)
      t.equal((await masterRow(fx, body.oli_id as string))?.client_name, 'Zoë \u4E2D\u6587')
    })

    t.test(`${mode}: a malformed Content-Type does not stop a valid body from being read`, async (t) => {
      for (const type of [
        'json',
        'garbage',
        'application/',
        '/json',
        'application/json, text/plain',
        'application/json;;',
        'application/json; charset=',
        ';',
        'text/html; charset=utf-8',
        'multipart/form-data; boundary=x',
        '',
      ]) {
        const body = lead()
        const res = await fx.call({
          method: 'POST',
          url: '/api/leads',
          payload: JSON.stringify(body),
          headers: { 'content-type': type },
        })
        t.equal(res.statusCode, 201, `Content-Type: ${type} -> ${res.body}`)
        t.ok(await masterRow(fx, body.oli_id as string), type)
      }
      // The other endpoints read it the same way: a valid body reaches its own checks.
      const ticket = await fx.call({
        method: 'PUT',
        url: '/api/escalated-tickets',
        payload: JSON.stringify({ oliId: 'CT-NONE', status: 'Close' }),
        headers: { 'content-type': 'application/' },
      })
      t.equal(ticket.json().error, 'lead_not_found')
      const bad = await fx.call({
        method: 'POST',
        url: '/api/leads',
        payload: '{',
        headers: { 'content-type': 'json' },
      })
      expectInvalidJson(t, bad, 'unparseable with a malformed type')
    })

    t.test(`${mode}: __proto__, constructor and prototype are unknown keys, not invalid JSON`, async (t) => {
      const before = await tableState(fx)
      const extra = (field: string) => ({ field, message: 'extra field rejected' })
      const cases: [string, string, { field: string; message: string }[]][] = [
        ['/api/leads', `{"__proto__":{"x":1},${JSON.stringify(lead()).slice(1)}`, [extra('__proto__')]],
        [
          '/api/leads',
          `{"constructor":{"prototype":{"x":1}},${JSON.stringify(lead()).slice(1)}`,
          [extra('constructor')],
        ],
        ['/api/leads', `{"prototype":1,${JSON.stringify(lead()).slice(1)}`, [extra('prototype')]],
        [
          '/api/master',
          `{"leads":[{"__proto__":{"oli_id":"P"},${JSON.stringify(lead()).slice(1)}]}`,
          [extra('leads[0].__proto__')],
        ],
        ['/api/leads', `{"leads":[],"__proto__":[]}`, [extra('__proto__')]],
      ]
      for (const [url, payload, details] of cases) {
        const res = await fx.call({ method: 'POST', url, payload })
        t.equal(res.statusCode, 400, payload)
        t.equal(res.json().error, 'validation_failed', payload)
        t.match(
          res.json().details,
          details.map((d) => ({ ...d })),
          payload,
        )
      }
      for (const [method, url, body] of [
        ['PUT', '/api/escalated-tickets', '{"oliId":"X","status":"Close","__proto__":{"status":"Close"}}'],
        [
          'POST',
          '/api/send-callback-request',
          '{"oliId":"X","scheduledAt":"2026-11-24 10:00:00","constructor":{}}',
        ],
      ] as const) {
        const res = await fx.call({ method, url, payload: body })
        t.equal(res.statusCode, 400, body)
        t.equal(res.json().error, 'validation_failed')
        t.equal(res.json().details[0].message, 'extra field rejected')
      }
      t.equal(await tableState(fx), before, 'nothing written')
      t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was touched')
    })

    t.test(`${mode}: gzip, deflate and br request bodies are decoded`, async (t) => {
      for (const [encoding, encode] of [
        ['gzip', gzipSync],
        ['x-gzip', gzipSync],
        ['deflate', deflateSync],
        ['br', brotliCompressSync],
        ['GZIP', gzipSync],
      ] as const) {
        const body = lead()
        const res = await fx.call({
          method: 'POST',
          url: '/api/leads',
          payload: encode(Buffer.from(JSON.stringify(body))),
          headers: { 'content-encoding': encoding },
        })
        t.equal(res.statusCode, 201, `${encoding}: ${res.body}`)
        t.ok(await masterRow(fx, body.oli_id as string), encoding)
      }
      const identity = lead()
      const plain = await fx.call({
        method: 'POST',
        url: '/api/master',
        payload: JSON.stringify(identity),
        headers: { 'content-encoding': 'identity' },
      })
      t.equal(plain.statusCode, 201, 'identity is no encoding')
      const ticket = await fx.call({
        method: 'PUT',
        url: '/api/escalated-tickets',
        payload: gzipSync(JSON.stringify({ oliId: 'GZ-NONE', status: 'Close' })),
        headers: { 'content-encoding': 'gzip' },
      })
      t.equal(ticket.json().error, 'lead_not_found', 'the ticket endpoint decodes too')
    })

    t.test(`${mode}: the 1 MB limit applies to the decoded body`, async (t) => {
      const before = await tableState(fx)
      const padded = (bytes: number) => {
        const text = JSON.stringify(lead())
        return text + ' '.repeat(bytes - Buffer.byteLength(text))
      }
      for (const [encoding, encode] of [
        ['gzip', gzipSync],
        ['deflate', deflateSync],
        ['br', brotliCompressSync],
      ] as const) {
        const bomb = encode(Buffer.from(padded(1024 * 1024 + 1)))
        t.ok(bomb.length < 10_000, `${encoding}: ${bomb.length} bytes on the wire`)
        const res = await fx.call({
          method: 'POST',
          url: '/api/leads',
          payload: bomb,
          headers: { 'content-encoding': encoding },
        })
        t.equal(res.statusCode, 413, encoding)
        t.strictSame(res.json(), { ok: false, error: 'payload_too_large' })
        const atLimit = await fx.call({
          method: 'POST',
          url: '/api/leads',
          payload: encode(Buffer.from(padded(1024 * 1024))),
          headers: { 'content-encoding': encoding },
        })
        t.equal(atLimit.statusCode, 201, `${encoding}: exactly 1 MiB decoded is accepted`)
      }
      t.not(await tableState(fx), before)
    })

    t.test(
      `${mode}: other encodings are 415 unsupported_encoding; a corrupt body is invalid_json`,
      async (t) => {
        const before = await tableState(fx)
        for (const encoding of ['compress', 'zstd', 'gzip, br', 'br, gzip', 'chunked', 'x', 'gzip;q=1']) {
          for (const [method, url] of WRITES) {
            const res = await fx.call({
              method,
              url,
              payload: gzipSync(JSON.stringify(lead())),
              headers: { 'content-encoding': encoding },
            })
            t.equal(res.statusCode, 415, `${url} ${encoding}`)
            t.strictSame(res.json(), { ok: false, error: 'unsupported_encoding' })
          }
        }
        for (const [encoding, payload] of [
          ['gzip', Buffer.from(JSON.stringify(lead()))],
          ['gzip', gzipSync(JSON.stringify(lead())).subarray(0, 20)],
          ['deflate', gzipSync(JSON.stringify(lead()))],
          ['br', Buffer.from('not brotli at all')],
          ['gzip', gzipSync(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))],
        ] as const) {
          expectInvalidJson(
            t,
            await fx.call({
              method: 'POST',
              url: '/api/leads',
              payload,
              headers: { 'content-encoding': encoding },
            }),
            `${encoding} ${payload.length} bytes`,
          )
        }
        t.equal(await tableState(fx), before, 'nothing written')
      },
    )

    t.test(`${mode}: a compressed body that is never read cannot fail later (regression)`, async (t) => {
      // A GET, an unknown path, and a bomb past the limit with a corrupt tail: the decoder's error
      // came after Fastify had stopped listening, and was an uncaught exception.
      for (const [method, url] of [
        ['GET', '/healthz'],
        ['GET', '/health'],
        ['POST', '/api/nope'],
        ['DELETE', '/api/leads'],
      ] as const) {
        const res = await fx.call({
          method,
          url,
          payload: Buffer.from('not gzip at all'),
          headers: { 'content-encoding': 'gzip' },
        })
        t.ok(res.statusCode < 500 || url === '/health', `${method} ${url}: ${res.statusCode}`)
      }
      const bomb = Buffer.concat([gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20)), Buffer.from('corrupt tail')])
      const res = await fx.call({
        method: 'POST',
        url: '/api/leads',
        payload: bomb,
        headers: { 'content-encoding': 'gzip' },
      })
      t.equal(res.statusCode, 413)
      // The process is still here, and serving.
      t.equal((await fx.push(lead())).statusCode, 201)
    })

    t.test(`${mode}: an unauthenticated compressed body is 401 before it is decoded`, async (t) => {
      const res = await fx.call({
        method: 'POST',
        url: '/api/leads',
        auth: false,
        payload: Buffer.from('not gzip'),
        headers: { 'content-encoding': 'zstd' },
      })
      t.equal(res.statusCode, 401)
    })
  })
}
