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

/** TRUST_PROXY as the configuration holds it: every hop, none, the nearest N hops, or the proxies. */
export type TrustProxy = boolean | number | readonly string[]

/**
 * TRUST_PROXY as Fastify takes it (the API's listener and the dialer's). A hop count becomes
 * proxy-addr's own rule for one (the `i`th address from the socket is trusted while `i < hops`), as
 * Fastify's types have no number form.
 */
export function fastifyTrustProxy(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return typeof trust === 'boolean' ? trust : [...trust]
}
