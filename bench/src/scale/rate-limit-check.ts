import { BENCH_SECRET } from '../lib/api-process.js'

/** The API's limit: the 121st request of one client within the window is refused (DECISIONS section 3). */
export const RATE_LIMIT = 120
const PAST_LIMIT = 10

export interface RateLimitCheck {
  ok: boolean
  client: string
  /** Status codes of the first RATE_LIMIT requests, per instance. */
  withinLimit: Record<string, Record<number, number>>
  /** Status codes of the requests after it, per instance: every one must be 429. */
  pastLimit: Record<string, Record<number, number>>
  /** A second client's first request (must not be refused). */
  otherClientStatus: number
  problems: string[]
}

const randomClient = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`

async function callbackRequest(base: string, client: string, oliId: string): Promise<number> {
  const res = await fetch(`${base}/api/send-callback-request`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${BENCH_SECRET}`,
      'content-type': 'application/json',
      'x-forwarded-for': client,
    },
    body: JSON.stringify({ oliId, scheduledAt: '2099-01-05 10:00:00' }),
  })
  await res.arrayBuffer()
  return res.status
}

const tally = (into: Record<string, Record<number, number>>, base: string, status: number) => {
  const byStatus = into[base] ?? {}
  byStatus[status] = (byStatus[status] ?? 0) + 1
  into[base] = byStatus
}

/**
 * One client (a fresh address per run, sent as X-Forwarded-For to APIs that trust it) spreads its
 * requests over every instance in turn: the first RATE_LIMIT must all be answered, and every one
 * after them refused with 429 whichever instance it reaches. Per-instance buckets would let 60 more
 * through each. A second client is still served.
 */
export async function checkSharedRateLimit(bases: readonly string[], oliId: string): Promise<RateLimitCheck> {
  const client = randomClient()
  const withinLimit: RateLimitCheck['withinLimit'] = {}
  const pastLimit: RateLimitCheck['pastLimit'] = {}
  const problems: string[] = []
  for (let i = 0; i < RATE_LIMIT; i++) {
    const base = bases[i % bases.length]!
    const status = await callbackRequest(base, client, oliId)
    tally(withinLimit, base, status)
    if (status !== 200) problems.push(`request ${i + 1} to ${base}: ${status}, expected 200`)
  }
  for (let i = 0; i < PAST_LIMIT; i++) {
    const base = bases[i % bases.length]!
    const status = await callbackRequest(base, client, oliId)
    tally(pastLimit, base, status)
    if (status !== 429) problems.push(`request ${RATE_LIMIT + i + 1} to ${base}: ${status}, expected 429`)
  }
  const otherClientStatus = await callbackRequest(bases[0]!, randomClient(), oliId)
  if (otherClientStatus !== 200)
    problems.push(`another client was answered ${otherClientStatus}, expected 200`)
  return { ok: problems.length === 0, client, withinLimit, pastLimit, otherClientStatus, problems }
}
