import { deployedNodeFlags, startNode, waitFor } from '../lib/child.js'
import { runHttpLoad } from '../lib/http-load.js'
import type { LeadMix } from '../lib/lead-mix.js'
import { assertPortFree } from '../lib/port-free.js'
import { mainThreadCpuMs, processCpuMs } from '../lib/proc-status.js'
import type { HttpFloor } from '../report/figures.js'
import { singlePlan } from './push-plan.js'

/**
 * One run of the same single-lead load as the product's against the bare Fastify app of
 * `http-floor-server.ts`, started with the API's Node flags; its CPU per request is read from
 * /proc before and after. `rate` holds the load to the product's rate: a server answering fewer
 * requests per second spends more CPU on each (fewer share each turn of the event loop), so the
 * floor is measured where the product runs. The API stays up, idle, meanwhile.
 */
export async function measureHttpFloor(o: {
  port: number
  connections: number
  seconds: number
  mix: LeadMix
  rate?: number
}): Promise<HttpFloor> {
  await assertPortFree(o.port)
  const server = startNode(
    'http-floor',
    'bench/dist/push/http-floor-server.js',
    { PORT: String(o.port) },
    deployedNodeFlags('apps/api/dist/server.js'),
  )
  try {
    const url = `http://127.0.0.1:${o.port}/api/leads`
    await waitFor(
      `the HTTP floor on port ${o.port}`,
      async () => (await fetch(url, { method: 'POST', body: '{}' })).status > 0,
      20_000,
      server,
    )
    const load = (seconds: number) =>
      runHttpLoad({
        url,
        connections: o.connections,
        seconds,
        ...(o.rate === undefined ? {} : { rate: o.rate }),
        headers: {},
        next: singlePlan(o.mix),
      })
    await load(Math.min(2, o.seconds))
    const read = () => ({ process: processCpuMs(server.pid), thread: mainThreadCpuMs(server.pid) })
    const before = read()
    const r = await load(o.seconds)
    const after = read()
    if (r.failures.length > 0) throw new Error(`HTTP floor run failed:\n  ${r.failures.join('\n  ')}`)
    const perRequest = (a: number | null, b: number | null) => {
      if (a === null || b === null) throw new Error('the HTTP floor: its CPU time is not readable')
      return ((b - a) * 1000) / r.requests
    }
    return {
      requestsPerSec: r.requestsPerSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      cpuUsPerRequest: perRequest(before.process, after.process),
      threadCpuUsPerRequest: perRequest(before.thread, after.thread),
    }
  } finally {
    await server.stop()
  }
}

/**
 * The most a single-lead push on SQLite can reach of its ceiling, given the floor: the API writes
 * SQLite on the thread that serves HTTP (better-sqlite3 is synchronous), so each request costs that
 * thread at least the ceiling's own time per lead plus the floor's main-thread CPU per request.
 */
export function sqliteSingleBound(ceilingPerSec: number, floorCpuUsPerRequest: number): number {
  const ceilingUs = 1e6 / ceilingPerSec
  return ceilingUs / (ceilingUs + floorCpuUsPerRequest)
}
