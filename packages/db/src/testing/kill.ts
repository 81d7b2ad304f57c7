/**
 * For a test's `KILL` of a connection it has just listed: that connection may have ended in between
 * (ER_NO_SUCH_THREAD), which is what the KILL was for anyway. Any other error is thrown again.
 */
export function unlessAlreadyGone(error: unknown): void {
  const e = error as { errno?: unknown; code?: unknown }
  if (e.errno === 1094 || e.code === 'ER_NO_SUCH_THREAD') return
  throw error
}
