import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/** An agent's PIN: 4 to 12 digits (a desk phone's keypad can type it). */
export const PIN_PATTERN = /^[0-9]{4,12}$/

export function isValidPin(pin: unknown): pin is string {
  return typeof pin === 'string' && PIN_PATTERN.test(pin)
}

// scrypt from node:crypto (OpenSSL's, maintained with Node itself) rather than a package: it is a
// memory-hard password hash, so a stolen copy of the table cannot be tried against every 4-to-12
// digit PIN at GPU speed, and it needs no native add-on of its own. Each agent gets a random 16-byte
// salt, so two agents with the same PIN have different hashes and no table can be computed ahead.
// N = 2^14, r = 8, p = 1 (the parameters RFC 7914 and OWASP give for interactive logins): about
// 16 MiB and some tens of milliseconds per check on this project's machines, done off the event
// loop by the async call. The parameters are stored with each hash, so they can be raised later.
const COST = { N: 16_384, r: 8, p: 1 } as const
const KEY_LENGTH = 32

function derive(pin: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(pin, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    )
  })
}

/** The stored form of `pin`: `scrypt$N$r$p$<salt base64url>$<hash base64url>`. */
export async function hashPin(pin: string): Promise<string> {
  if (!isValidPin(pin)) throw new Error('a PIN is 4 to 12 digits')
  const salt = randomBytes(16)
  const key = await derive(pin, salt, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Whether `pin` is the one `stored` was made from (constant time in the hash). */
export async function verifyPin(pin: string, stored: string | null): Promise<boolean> {
  if (stored === null) return false
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number]
  const salt = Buffer.from(parts[4] as string, 'base64url')
  const expected = Buffer.from(parts[5] as string, 'base64url')
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p) || expected.length === 0)
    return false
  const key = await derive(pin, salt, { N, r, p })
  return key.length === expected.length && timingSafeEqual(key, expected)
}
