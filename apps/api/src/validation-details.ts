import type { FieldProblem } from './errors.js'

/** The parts of an Ajv error object this module reads. */
export interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

/**
 * `/leads/3/phone_number` -> `leads[3].phone_number` (DECISIONS section 3). A digit segment of the
 * instance path is always an array index (the schemas have no object keyed by numbers), but `child`
 * is a property name (a missing or extra key), so a key `"7"` is `leads[0].7`, not `leads[0][7]`.
 */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
  let out = ''
  for (const part of parts) {
    if (/^\d+$/.test(part) && out !== '') out += `[${part}]`
    else out += out === '' ? part : `.${part}`
  }
  if (child !== undefined) return out === '' ? child : `${out}.${child}`
  return out === '' ? 'body' : out
}

function describe(e: SchemaError): FieldProblem | undefined {
  switch (e.keyword) {
    case 'required':
      return { field: fieldPath(e.instancePath, String(e.params.missingProperty)), message: 'is required' }
    case 'additionalProperties':
      return {
        field: fieldPath(e.instancePath, String(e.params.additionalProperty)),
        message: 'extra field rejected',
      }
    case 'minItems':
    case 'maxItems':
      return { field: fieldPath(e.instancePath), message: 'must hold 1 to 500 leads' }
    case 'if':
    case 'anyOf':
      return undefined
    default:
      return { field: fieldPath(e.instancePath), message: e.message ?? 'is invalid' }
  }
}

/**
 * Turns the schema validator's errors into the `details` list: one entry per problem, every problem
 * listed. A nullable field (`anyOf: [string, null]`) fails with one type error per branch; those are
 * folded into one message (`must be string or null`), and a length error on the string branch wins.
 */
export function detailsFromSchemaErrors(errors: readonly SchemaError[]): FieldProblem[] {
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath))
  const out: FieldProblem[] = []
  const seen = new Set<string>()
  const push = (p: FieldProblem) => {
    const key = `${p.field}\u0000${p.message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push(p)
    }
  }
  for (const path of unionPaths) {
    const atPath = errors.filter((e) => e.instancePath === path && e.keyword !== 'anyOf')
    const specific = atPath.filter((e) => e.keyword !== 'type')
    if (specific.length > 0) continue // reported below
    const types = atPath.map((e) => String(e.params.type))
    push({ field: fieldPath(path), message: `must be ${types.join(' or ')}` })
  }
  for (const e of errors) {
    if (unionPaths.has(e.instancePath) && e.keyword === 'type') continue
    const p = describe(e)
    if (p) push(p)
  }
  return out
}
