/** An Originate `Channel` (or Dial target) split the way the simulator needs it. */
export interface DialTarget {
  /** As requested, e.g. `PJSIP/5551234567@trunk`. OriginateResponse reports it when no channel exists. */
  requested: string
  tech: string
  /** The user part: an extension or a phone number, e.g. `1001` or `+1 555 123 4567`. */
  user: string
  /** Prefix of the channel name before the `-0000000a` sequence, e.g. `PJSIP/trunk`. */
  channelBase: string
  /** Local channels get a `;1` suffix after the sequence number. */
  isLocal: boolean
}

/** Digits of a number, so `+1 (555) 123-4567` and `15551234567` address the same customer. */
export function normalizeNumber(raw: string): string {
  const digits = raw.replace(/\D/g, '')
  return digits === '' ? raw : digits
}

function userOfUri(uri: string): string {
  const noScheme = uri.replace(/^sips?:/i, '')
  const at = noScheme.indexOf('@')
  return at >= 0 ? noScheme.slice(0, at) : noScheme
}

/**
 * Accepts `PJSIP/1001`, `PJSIP/5551234567@trunk`, `PJSIP/trunk/sip:555@host`, `SIP/trunk/555`,
 * `SIP/555@trunk` and `Local/1001@from-internal[/n]`. Returns null without a technology.
 */
export function parseDialString(requested: string): DialTarget | null {
  const slash = requested.indexOf('/')
  if (slash <= 0 || slash === requested.length - 1) return null
  const tech = requested.slice(0, slash)
  let rest = requested.slice(slash + 1)
  if (tech.toLowerCase() === 'local') {
    rest = rest.replace(/\/[a-z]*$/i, '')
    const at = rest.indexOf('@')
    const user = at >= 0 ? rest.slice(0, at) : rest
    const context = at >= 0 ? rest.slice(at + 1) : 'default'
    return { requested, tech, user, channelBase: `${tech}/${user}@${context}`, isLocal: true }
  }
  const second = rest.indexOf('/')
  if (second >= 0) {
    const endpoint = rest.slice(0, second)
    return {
      requested,
      tech,
      user: userOfUri(rest.slice(second + 1)),
      channelBase: `${tech}/${endpoint}`,
      isLocal: false,
    }
  }
  const at = rest.indexOf('@')
  if (at >= 0) {
    const endpoint = rest.slice(at + 1).split(/[;:]/)[0] ?? ''
    return { requested, tech, user: rest.slice(0, at), channelBase: `${tech}/${endpoint}`, isLocal: false }
  }
  return { requested, tech, user: rest, channelBase: `${tech}/${rest}`, isLocal: false }
}
