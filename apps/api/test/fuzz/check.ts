import type { Database } from '@hold-dialer/db'
import type { Kysely } from 'kysely'

/** The rows a rejected request must leave exactly as they were. */
export async function tableState(db: Kysely<Database>): Promise<string> {
  const master = await db.selectFrom('hold_dialer_master_data').selectAll().orderBy('id').execute()
  const disposed = await db.selectFrom('hold_dialer_disposed').selectAll().orderBy('id').execute()
  return JSON.stringify({ master, disposed })
}

const HEALTH_PATHS = new Set(['/health', '/api/health'])
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export interface Answer {
  status: number
  body: string
  headers: Record<string, string | string[] | number | undefined>
}

/**
 * What is wrong with an answer, or undefined: a 5xx (but the detailed health's 503 when unhealthy),
 * an error body not in the contract's shape (`ok: false`, an `error` string, well-formed `details`),
 * a success body without `ok: true`, or a request id that is neither the one sent nor a UUID.
 */
export function answerProblem(
  answer: Answer,
  request: { method: string; path: string; requestId?: string | undefined },
): string | undefined {
  const health = HEALTH_PATHS.has(request.path)
  if (answer.status >= 500 && !(health && answer.status === 503)) return 'server error'
  const id = String(answer.headers['x-request-id'] ?? '')
  const sent = request.requestId
  const sentValid = sent !== undefined && REQUEST_ID.test(sent)
  if (sentValid ? id !== sent : !UUID.test(id)) return `request id ${JSON.stringify(id)}`
  if (request.method === 'HEAD') return undefined
  const success = answer.status >= 200 && answer.status < 300
  if (success && !request.path.startsWith('/api/')) return undefined // /metrics, /openapi.json, /healthz
  let parsed: { ok?: unknown; error?: unknown; details?: unknown }
  try {
    parsed = JSON.parse(answer.body)
  } catch {
    return 'a body that is not JSON'
  }
  if (success) return parsed.ok === true ? undefined : 'a success without ok:true'
  if (parsed.ok !== false) return 'an error without ok:false'
  // The unhealthy detailed health carries its whole report; its `error` is checked in auth.test.ts.
  if (health) return undefined
  if (typeof parsed.error !== 'string') return 'an error without an error string'
  if (parsed.error === 'validation_failed') {
    const details = parsed.details
    const wellFormed =
      Array.isArray(details) &&
      details.length > 0 &&
      details.every(
        (d) =>
          typeof d === 'object' &&
          d !== null &&
          Object.keys(d).sort().join() === 'field,message' &&
          typeof d.field === 'string' &&
          typeof d.message === 'string',
      )
    if (!wellFormed) return 'malformed details'
  }
  return undefined
}

/** Where two table states first differ, for the failure message. */
export function firstDifference(before: string, after: string): string {
  let i = 0
  while (i < before.length && before[i] === after[i]) i++
  return `...${before.slice(Math.max(0, i - 120), i + 120)}... became ...${after.slice(Math.max(0, i - 120), i + 120)}...`
}
