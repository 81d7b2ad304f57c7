/**
 * Every error this API answers with, as one union, mapped to its HTTP status in exactly one place.
 * Bodies are `{ ok: false, error: <code> }` plus `details` for validation failures and `request_id`
 * for internal errors.
 */
export type ApiErrorCode =
  | 'invalid_json'
  | 'validation_failed'
  | 'unauthorized'
  | 'not_found'
  | 'lead_not_found'
  | 'lead_in_flight'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'unhealthy'

export const HTTP_STATUS: Record<ApiErrorCode, number> = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  not_found: 404,
  lead_not_found: 404,
  lead_in_flight: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  unhealthy: 503,
}

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
