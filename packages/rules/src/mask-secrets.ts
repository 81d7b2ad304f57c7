// Keeps passwords out of log lines and error messages.

export const MASK = '***'

/**
 * `url` with the password of its `user:password@` part replaced by `***`. A URL without a
 * password comes back exactly as given.
 *
 * Text with an `@` that does not parse as a URL with credentials (a mistyped
 * `user:pass@host/db`, which WHATWG reads as the scheme `user:`) has everything before its
 * last `@` masked: a password cannot be told apart from the rest there, so over-masking is
 * the safe side.
 */
export function maskUrlCredentials(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null
  if (parsed === null || (parsed.username === '' && parsed.password === '')) {
    const at = url.lastIndexOf('@')
    return at < 0 ? url : `${MASK}${url.slice(at)}`
  }
  if (parsed.password === '') {
    return url
  }
  parsed.password = MASK
  return parsed.toString()
}

/** `***` for a set secret, undefined for an unset one (so a summary still shows which is set). */
export function maskSecret(secret: string | undefined): string | undefined {
  return secret === undefined ? undefined : MASK
}
