import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'

/**
 * Called just before a request first uses the database: until the start-up has reached it and
 * applied the migrations, the answer is 503 `database_unavailable` (never a 500 from a missing
 * table). Checks that need no database keep their 400s.
 */
export function requireDatabase(ctx: AppContext): void {
  if (!ctx.availability.ready) throw new ApiError('database_unavailable')
}
