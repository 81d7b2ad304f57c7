import { median } from '../lib/stats.js'

/** One run's figures: a rate and the latency of one unit of work (a request, a claim). */
export interface RunFigures {
  rate: number
  p50Ms: number
  p99Ms: number
}

/** Medians over the rounds of one side (the product or its ceiling). */
export interface SideSummary {
  rate: number
  p50Ms: number
  p99Ms: number
  rounds: RunFigures[]
}

export function summarise(rounds: RunFigures[]): SideSummary {
  return {
    rate: median(rounds.map((r) => r.rate)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    rounds,
  }
}

/**
 * CPU per unit of a case (a request answered, or a row of a batch), in microseconds, of each process a run keeps busy: the API (product runs
 * only), the bench's own process (autocannon in a product run, the plain script in a ceiling run)
 * and MariaDB (null on SQLite, or when its /proc entry cannot be read).
 */
export interface CpuPerRequest {
  api: number | null
  bench: number
  db: number | null
  /** False when a reading the side needs is missing (e.g. MariaDB on another host): no total then. */
  complete: boolean
}

/** What one run of the HTTP floor measured (`push/http-floor.ts`). */
export interface HttpFloor {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  /** CPU the floor process used per request answered (user + system, all threads), microseconds. */
  cpuUsPerRequest: number
  /** The same for its main thread alone: what the bound on SQLite's ratio is made of. */
  threadCpuUsPerRequest: number
}

export interface ComparedCase {
  name: string
  unit: string
  product: SideSummary
  ceiling: SideSummary
  ratio: number
  target: string
  met: boolean
  note: string
  /** Push cases: each process's CPU per unit of the case, medians of each side's rounds. */
  cpu?: { product: CpuPerRequest; ceiling: CpuPerRequest }
  /** Single-lead pushes: the bare Fastify route under the same load (`push/http-floor.ts`). */
  httpFloor?: HttpFloor & {
    /** SQLite: the most the product can reach of the ceiling, given the floor. */
    bound?: number
  }
}

export interface MemoryCase {
  name: string
  peakRssMiB: number
  /** Peak private memory (RssAnon) and peak file pages mapped (RssFile), sampled. */
  anonMiB: number
  fileMiB: number
  limitMiB: number
  met: boolean
  note: string
}
