/**
 * Every error this API answers with, as one union, mapped to its HTTP status in exactly one place.
 * Bodies are `{ ok: false, error: <code> }` plus `details` for validation failures and `request_id`
 * for 5xx answers. docs/api.md's error table lists the same codes.
 */
export type ApiErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'validation_failed'
  | 'unauthorized'
  | 'not_found'
  | 'lead_not_found'
  | 'request_timeout'
  | 'lead_in_flight'
  | 'payload_too_large'
  | 'request_too_large'
  | 'unsupported_encoding'
  | 'rate_limited'
  | 'internal_error'
  | 'unhealthy'
  | 'database_unavailable'
  | 'shutting_down'

export const HTTP_STATUS: Record<ApiErrorCode, number> = {
  bad_request: 400,
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  not_found: 404,
  lead_not_found: 404,
  request_timeout: 408,
  lead_in_flight: 409,
  payload_too_large: 413,
  // 414 for a URL too long; 431 for headers too large (the two statuses share the code).
  request_too_large: 431,
  unsupported_encoding: 415,
  rate_limited: 429,
  internal_error: 500,
  unhealthy: 503,
  database_unavailable: 503,
  shutting_down: 503,
}

/** Seconds a client should wait before trying again after a 503 (database or shutdown). */
export const RETRY_AFTER_SECONDS = 5

export interface FieldProblem {
  field: string
  message: string
}

/** Thrown by handlers and services; the one error handler turns it into the response. */
export class ApiError extends Error {
  readonly statusCode: number
  constructor(
    readonly code: ApiErrorCode,
    readonly details?: FieldProblem[],
  ) {
    super(code)
    this.statusCode = HTTP_STATUS[code]
  }
}

export function validationFailed(details: FieldProblem[]): ApiError {
  return new ApiError('validation_failed', details)
}
