import SwaggerParser from '@apidevtools/swagger-parser'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { apiFixture } from './fixture.js'

interface Operation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
  security?: Record<string, string[]>[]
}
interface JsonSchema {
  type?: string
  additionalProperties?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  required?: string[]
  if?: JsonSchema
  then?: JsonSchema
  else?: JsonSchema
}
interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  security?: Record<string, string[]>[]
  components?: { securitySchemes?: Record<string, unknown> }
}

/** The spec's endpoint table. */
const SPEC_ENDPOINTS: [string, string, boolean][] = [
  ['post', '/api/leads', true],
  ['post', '/api/master', true],
  ['put', '/api/escalated-tickets', true],
  ['post', '/api/send-callback-request', true],
  ['get', '/healthz', false],
  ['get', '/health', true],
  ['get', '/api/health', true],
]

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

function bodySchema(doc: OpenApiDocument, method: string, path: string): JsonSchema {
  const schema = doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${path} has no JSON request body schema`)
  return schema
}

forEachDialect(t, async (t, database) => {
  const fx = await apiFixture(t, database)
  const res = await fx.call({ method: 'GET', url: '/openapi.json', auth: false })
  const doc = res.json() as OpenApiDocument

  t.test('GET /openapi.json needs no secret and is JSON', async (t) => {
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/json/)
    t.match(doc.openapi, /^3\.1\./)
  })

  t.test('the document validates as OpenAPI 3.x without errors', async (t) => {
    // The parser dereferences in place: give it a copy.
    await t.resolves(SwaggerParser.validate(structuredClone(doc) as never))
    // And the parser does reject a broken document, so the check above means something.
    const broken = structuredClone(doc) as unknown as { info: { version?: string } }
    delete broken.info.version
    await t.rejects(SwaggerParser.validate(broken as never))
  })

  t.test('every endpoint of the spec is listed with its method, and nothing for reading leads', async (t) => {
    for (const [method, path] of SPEC_ENDPOINTS) {
      t.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`)
    }
    for (const path of ['/api/leads', '/api/master']) {
      const listed = Object.keys(doc.paths[path] ?? {}).filter((k) => METHODS.includes(k))
      t.strictSame(listed, ['post'], `${path}: no GET, PATCH or DELETE`)
    }
  })

  t.test('the push body schema rejects extra keys, single lead and batch alike', async (t) => {
    for (const path of ['/api/leads', '/api/master']) {
      const schema = bodySchema(doc, 'post', path)
      const single = schema.else
      const batch = schema.then
      t.equal(single?.additionalProperties, false, `${path}: single lead`)
      t.equal(batch?.additionalProperties, false, `${path}: batch wrapper`)
      t.equal(batch?.properties?.leads?.items?.additionalProperties, false, `${path}: batch item`)
      t.notOk(single?.properties?.agent_id, 'pool mode: agent_id is not a property')
      t.strictSame([...(single?.required ?? [])].sort(), [
        'client_name',
        'form_type',
        'oli_id',
        'phone_number',
        'priority_id',
      ])
    }
    t.equal(bodySchema(doc, 'put', '/api/escalated-tickets').additionalProperties, false)
    t.equal(bodySchema(doc, 'post', '/api/send-callback-request').additionalProperties, false)
  })

  t.test('secured operations declare the secret; /healthz does not', async (t) => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {}).sort()
    t.strictSame(schemes.length, 3, 'Bearer, X-API-Key and X-Access-Key')
    for (const [method, path, secured] of SPEC_ENDPOINTS) {
      const security = doc.paths[path]?.[method]?.security ?? doc.security ?? []
      const named = security.flatMap((requirement) => Object.keys(requirement)).sort()
      if (secured) t.strictSame(named, schemes, `${method.toUpperCase()} ${path} needs the secret`)
      else t.strictSame(named, [], `${method.toUpperCase()} ${path} is public`)
    }
  })
})
