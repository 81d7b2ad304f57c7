import fc from 'fast-check'
import { lead, SECRET } from '../fixture.js'

/**
 * What the fuzz test sends: values and JSON bodies of every kind, mutations of valid requests at
 * the byte level, and headers.
 */

export const SEEDED = ['FZ-1', 'FZ-TICKET', 'FZ-CB', 'FZ-LIVE', 'FZ-CLOSED']

// ---- values ---------------------------------------------------------------------------------

export const nastyText = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\udc00\ud800',
  '\u{1F600}',
  '\u202e\u0301',
  '\ufeff',
  '0',
  '-1',
  '1e999',
  'null',
  'NaN',
  '__proto__',
  'constructor',
  "'; DROP TABLE hold_dialer_master_data; --",
  '2026-11-24',
  '2026-02-30 10:00:00',
  '2026-11-24 24:00:01',
  '2026-11-24T10:00:00+25:00',
  '2026-11-24T10:00:00.123456789Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01 00:00:00',
  '+91 98765 43210',
  'close',
  ' Callback  SCHEDULE ',
)

/** Strings of every kind: any code point (lone surrogates included), the nasty list, and huge ones. */
export const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 3, arbitrary: nastyText },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(99, 100, 101, 149, 150, 151, 255, 256, 10_000, 900_000, 1_100_000)
      .map((n) => 'x'.repeat(n)),
  },
)

const anyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, 2, 3, 8, 1.5, -1, 2 ** 31, 2 ** 53, 1e300, Number.MAX_SAFE_INTEGER + 2),
)

export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  { weight: 2, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
)

export const keyName = fc.oneof(
  fc.constantFrom(
    'foo',
    'agent_id',
    'leads',
    'oliId',
    'oli_id',
    'ScheduledAt',
    'status',
    '',
    '7',
    'a.b',
    '[0]',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
)

/** A valid-looking object with one or two fields replaced, removed or added. */
export function mutated(
  base: fc.Arbitrary<Record<string, unknown>>,
  fields: string[],
): fc.Arbitrary<unknown> {
  const change = fc.tuple(
    fc.oneof(fc.constantFrom(...fields), keyName),
    fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 5, arbitrary: anyValue }),
  )
  return fc.tuple(base, fc.array(change, { minLength: 1, maxLength: 2 })).map(([object, changes]) => {
    const out: Record<string, unknown> = { ...object }
    for (const [key, value] of changes) {
      if (value === undefined) delete out[key]
      else out[key] = value
    }
    return out
  })
}

export const validLead = fc.record({
  oli_id: fc.constantFrom(...SEEDED, 'FZ-NEW-1', 'FZ-NEW-2'),
  phone_number: fc.constantFrom('9876543210', '+91 98765-43210', '(212) 555 0100 99'),
  client_name: fc.constantFrom('Fuzz', 'Ünïcödé \u{1F600}'),
  form_type: fc.constantFrom('hold', ''),
  priority_id: fc.constantFrom(1, 2, 3, 8),
})
export const LEAD_FIELDS = [
  'oli_id',
  'phone_number',
  'client_name',
  'form_type',
  'priority_id',
  'callback_scheduled_at',
]

export const pushBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: mutated(validLead, LEAD_FIELDS) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(validLead, mutated(validLead, LEAD_FIELDS)), { minLength: 0, maxLength: 6 })
      .map((leads) => ({ leads })),
  },
  { weight: 1, arbitrary: mutated(fc.constant({ leads: [lead({ oli_id: 'FZ-NEW-3' })] }), ['leads']) },
  { weight: 1, arbitrary: anyValue },
)

export const ticketBody = mutated(
  fc.record({
    oliId: fc.constantFrom(...SEEDED, 'FZ-NONE'),
    status: fc.constantFrom('Close', 'Callback Schedule', 'callbackschedule', 'Open'),
    scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24T10:00:00Z', 'tomorrow'),
  }),
  ['oliId', 'status', 'scheduledAt'],
)

export const callbackBody = mutated(
  fc.record({
    oliId: fc.constantFrom(...SEEDED, 'FZ-NONE'),
    scheduledAt: fc.constantFrom('2026-11-24 10:00:00', '2026-11-24T10:00:00+05:30', ''),
  }),
  ['oliId', 'scheduledAt', 'ScheduledAt'],
)

/** JSON the serializer would never write: deep nesting, broken text, duplicate keys. */
export const rawText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom('array', 'object', 'leads', 'field', 'open'))
    .map(([depth, kind]) => {
      const arrays = '['.repeat(depth) + ']'.repeat(depth)
      if (kind === 'array') return arrays
      if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
      if (kind === 'leads') return `{"leads":[${arrays}]}`
      if (kind === 'field') return JSON.stringify(lead()).replace('"hold"', arrays)
      return '['.repeat(depth)
    }),
  fc.constant(`${'['.repeat(5000)}${']'.repeat(5000)}`),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom(
    '',
    '{',
    '{"oli_id":"a","oli_id":1}',
    '{"__proto__":{"ok":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '\ufeff{}',
    '{"leads":[{"oli_id":"\\ud800"}]}',
    '"\\udfff"',
    '1e999',
    '-',
    '{"a":1}garbage',
  ),
)

// ---- headers --------------------------------------------------------------------------------

export const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
})

export const randomHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'content-type',
      'accept',
      'accept-encoding',
      'content-encoding',
      'x-forwarded-for',
      'x-real-ip',
      'x-request-id',
      'user-agent',
      'origin',
      'cookie',
      'range',
    ),
    fc.stringMatching(/^x-[a-z0-9-]{1,20}$/).filter((h) => !['x-api-key', 'x-access-key'].includes(h)),
  ),
  fc.oneof(
    printable,
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-16',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'gzip',
      '*/*',
      '',
    ),
  ),
  { maxKeys: 4 },
)

export const withSecret = fc
  .tuple(
    randomHeaders,
    fc.constantFrom<Record<string, string>>(
      { authorization: `Bearer ${SECRET}` },
      { 'x-api-key': SECRET },
      { 'x-access-key': SECRET },
    ),
  )
  .map(([headers, secret]) => ({ ...headers, ...secret }))

// ---- bytes ------------------------------------------------------------------------------------

/** Byte sequences that are not UTF-8, and some that are but are unusual. */
const ODD_BYTES: number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x00],
  [0xef, 0xbb, 0xbf],
  [0xef, 0xbf, 0xbd],
  [0x22],
  [0x5c],
  [0x7b],
  [0x5d],
]

type ByteEdit = (bytes: Buffer) => Buffer

/** One edit of a body's bytes: replace, insert, delete, truncate or repeat a slice. */
const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(
    ([at, value]): ByteEdit =>
      (b) => {
        if (b.length === 0) return b
        const copy = Buffer.from(b)
        copy[at % b.length] = value
        return copy
      },
  ),
  fc.tuple(fc.nat(), fc.constantFrom(...ODD_BYTES)).map(
    ([at, bytes]): ByteEdit =>
      (b) => {
        const i = b.length === 0 ? 0 : at % (b.length + 1)
        return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)])
      },
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(
    ([at, n]): ByteEdit =>
      (b) => {
        const i = b.length === 0 ? 0 : at % b.length
        return Buffer.concat([b.subarray(0, i), b.subarray(i + n)])
      },
  ),
  fc.nat().map(
    (at): ByteEdit =>
      (b) =>
        b.subarray(0, b.length === 0 ? 0 : at % b.length),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 16 })).map(
    ([at, n]): ByteEdit =>
      (b) => {
        const i = b.length === 0 ? 0 : at % b.length
        return Buffer.concat([b.subarray(0, i + n), b.subarray(i)])
      },
  ),
)

/** One to three byte edits, applied in turn. */
export const byteEdits: fc.Arbitrary<ByteEdit> = fc
  .array(byteEdit, { minLength: 1, maxLength: 3 })
  .map((edits) => (b: Buffer) => edits.reduce((acc, edit) => edit(acc), b))

// ---- header level -----------------------------------------------------------------------------

/** Content-Type values, malformed ones included: the body is JSON whatever this says. */
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'json',
    'garbage',
    'application/',
    '/json',
    'application/json, text/plain',
    'text/plain',
    'multipart/form-data; boundary=x',
    ';',
    '',
  ),
  printable,
)

/** Content-Encoding as sent; the body is encoded to match when the coding is a known one. */
export const contentEncoding = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'GZIP', 'x-gzip'),
  },
  { weight: 1, arbitrary: fc.constantFrom('zstd', 'compress', 'gzip, br', 'gzip;q=1', '') },
  { weight: 1, arbitrary: printable },
)

/** How the secret is sent: right in one header, or right beside a wrong copy (a 401). */
export const credentials = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom<Record<string, string | string[]>>(
      { Authorization: `Bearer ${SECRET}` },
      { Authorization: `bearer ${SECRET}` },
      { 'X-API-Key': SECRET },
      { 'X-Access-Key': SECRET },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string | string[]>>(
      { Authorization: [`Bearer ${SECRET}`, 'Bearer nope'] },
      { 'X-API-Key': [SECRET, SECRET.slice(1)] },
      { Authorization: `Bearer ${SECRET}`, 'X-Access-Key': 'nope' },
      {},
    ),
  },
)

/** X-Request-Id: well-formed ones are echoed, others replaced by a UUID. */
export const requestId = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,70}$/), printable), {
  nil: undefined,
})
