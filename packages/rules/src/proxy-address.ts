// TRUST_PROXY's list form: what Fastify's `trustProxy` (proxy-addr) accepts as one entry.
import { isIP } from 'node:net'

/** proxy-addr's named ranges. */
const NAMED_RANGES: ReadonlySet<string> = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * An IPv4/IPv6 address, an address with a CIDR prefix (`10.0.0.0/8`, `fd00::/8`), or one of
 * proxy-addr's names. A netmask (`10.0.0.0/255.0.0.0`) is accepted too, as proxy-addr reads it.
 */
export function isProxyAddress(value: string): boolean {
  if (NAMED_RANGES.has(value)) return true
  const slash = value.indexOf('/')
  if (slash === -1) return isIP(value) !== 0
  const address = value.slice(0, slash)
  const range = value.slice(slash + 1)
  const family = isIP(address)
  if (family === 0) return false
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128)
  return family === 4 && isIP(range) === 4
}
