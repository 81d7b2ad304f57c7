import autocannon from 'autocannon'

/** One request to send and how to judge its answer (a message when wrong, undefined when right). */
export interface PlannedRequest {
  body: string
  /** Rows the request carries, counted only when the answer checks out. */
  rows: number
  check(status: number, body: string): string | undefined
}

export interface HttpLoadOptions {
  url: string
  connections: number
  seconds: number
  /** Requests per second over all connections (autocannon's `overallRate`); no limit when absent. */
  rate?: number
  headers: Record<string, string>
  next(): PlannedRequest
}

export interface HttpLoadResult {
  requests: number
  rows: number
  seconds: number
  rowsPerSec: number
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  /** Wrong status, wrong body, connection errors and timeouts: any of these fails the run. */
  failures: string[]
}

interface Context {
  planned?: PlannedRequest
}

/**
 * Drives one endpoint with autocannon for `seconds`: every request gets a fresh body from `next`, and
 * every answer is checked against what that body should produce. Requests still in flight when the
 * time is up are not counted.
 */
export async function runHttpLoad(o: HttpLoadOptions): Promise<HttpLoadResult> {
  const failures: string[] = []
  let rows = 0
  let ok = 0
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.seconds,
    ...(o.rate === undefined ? {} : { overallRate: o.rate }),
    timeout: 30,
    headers: { 'content-type': 'application/json', ...o.headers },
    requests: [
      {
        method: 'POST',
        setupRequest: (req, context) => {
          const planned = o.next()
          ;(context as Context).planned = planned
          return { ...req, body: planned.body }
        },
        onResponse: (status, body, context) => {
          const planned = (context as Context).planned
          const problem = planned ? planned.check(status, body) : 'answer to no request'
          if (problem !== undefined) {
            if (failures.length < 20) failures.push(problem)
            return
          }
          ok += 1
          rows += planned!.rows
        },
      },
    ],
  })
  if (result.errors > 0) failures.push(`${result.errors} connection errors`)
  if (result.timeouts > 0) failures.push(`${result.timeouts} timeouts`)
  return {
    requests: ok,
    rows,
    seconds: result.duration,
    rowsPerSec: rows / result.duration,
    requestsPerSec: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures,
  }
}
