import type { Db, Dialect } from '@hold-dialer/db'
import { alternate } from '../lib/alternate.js'
import { BENCH_SECRET } from '../lib/api-process.js'
import { runHttpLoad } from '../lib/http-load.js'
import { LeadMix } from '../lib/lead-mix.js'
import { mariadbPid, processCpuMs } from '../lib/proc-status.js'
import { step } from '../lib/progress.js'
import { resetLivePool } from '../lib/seed.js'
import { median } from '../lib/stats.js'
import { type ComparedCase, type CpuPerRequest, type RunFigures, summarise } from '../report/figures.js'
import type { CeilingResult } from './ceiling-result.js'
import { measureHttpFloor, sqliteSingleBound } from './http-floor.js'
import { mysqlUpsertCeiling } from './mysql-ceiling.js'
import { batchPlan, singlePlan } from './push-plan.js'
import { sqliteGroupUpsertCeiling, sqliteUpsertCeiling } from './sqlite-ceiling.js'

export const BATCH_SIZE = 500

/** The performance issue's targets: ratios to the ceiling, and the single-lead p99 at 16 clients. */
const BATCH_TARGET: Record<Dialect, number> = { mysql: 0.85, sqlite: 0.8 }
const SINGLE_TARGET = 0.8
const SINGLE_P99_MS = 10

export interface PushCaseOptions {
  dialect: Dialect
  databaseUrl: string
  db: Db
  apiBase: string
  rounds: number
  seconds: number
  batchConnections: number
  singleConnections: number
  /** The API process, whose CPU per request is read around each product run. */
  apiPid: number
  /** A free port for the HTTP floor's server. */
  floorPort: number
}

/** The options with the local MariaDB's pid, looked up once per push part (none on SQLite). */
type PushRun = PushCaseOptions & { dbPid: number | undefined }

type MeasuredFigures = RunFigures & { cpu: CpuPerRequest }

/** CPU used so far, in ms, by each process a run keeps busy. */
type CpuReading = Omit<CpuPerRequest, 'complete'>

function readCpu(apiPid: number | undefined, dbPid: number | undefined): CpuReading {
  const own = process.cpuUsage()
  return {
    api: processCpuMs(apiPid),
    bench: (own.user + own.system) / 1000,
    db: processCpuMs(dbPid),
  }
}

/** CPU per unit of the case (a request, or a row of a batch), in microseconds. */
function cpuPerRequest(
  before: CpuReading,
  after: CpuReading,
  units: number,
  expected: { api: boolean; db: boolean },
): CpuPerRequest {
  const per = (a: number | null, b: number | null) =>
    a === null || b === null ? null : ((b - a) * 1000) / units
  const api = per(before.api, after.api)
  const db = per(before.db, after.db)
  // Complete when every reading the side needs is there: the API's on the product's side, and
  // MariaDB's when the engine is MariaDB (null when it runs on another host).
  const complete = (!expected.api || api !== null) && (!expected.db || db !== null)
  return { api, bench: per(before.bench, after.bench)!, db, complete }
}

/** The medians over a side's rounds of each process's CPU per request. */
function medianCpu(rounds: readonly { cpu: CpuPerRequest }[]): CpuPerRequest {
  const of = (pick: (c: CpuPerRequest) => number | null) => {
    const values = rounds.map((r) => pick(r.cpu)).filter((v): v is number => v !== null)
    return values.length === rounds.length && values.length > 0 ? median(values) : null
  }
  return {
    api: of((c) => c.api),
    bench: of((c) => c.bench) ?? 0,
    db: of((c) => c.db),
    complete: rounds.every((r) => r.cpu.complete),
  }
}

let runs = 0
/** A fresh mix per run: its new `oli_id`s and phone numbers were never pushed before. */
function nextMix(): LeadMix {
  runs += 1
  return new LeadMix(`n${runs}-`, `4${String(runs).padStart(3, '0')}`)
}

async function overHttp(
  o: PushRun,
  connections: number,
  seconds: number,
  batch: boolean,
): Promise<MeasuredFigures> {
  const mix = nextMix()
  const before = readCpu(o.apiPid, o.dbPid)
  const r = await runHttpLoad({
    url: `${o.apiBase}/api/leads`,
    connections,
    seconds,
    headers: { authorization: `Bearer ${BENCH_SECRET}` },
    next: batch ? batchPlan(mix, BATCH_SIZE) : singlePlan(mix),
  })
  if (r.failures.length > 0) {
    throw new Error(`${o.dialect} ${batch ? 'batch' : 'single'} push failed:\n  ${r.failures.join('\n  ')}`)
  }
  const cpu = cpuPerRequest(before, readCpu(o.apiPid, o.dbPid), batch ? r.rows : r.requests, {
    api: true,
    db: o.dialect === 'mysql',
  })
  return { rate: batch ? r.rowsPerSec : r.requestsPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms, cpu }
}

async function plainScript(
  o: PushRun,
  connections: number,
  seconds: number,
  batch: boolean,
): Promise<MeasuredFigures> {
  const mix = nextMix()
  const before = readCpu(undefined, o.dbPid)
  const next = batch ? () => mix.batch(BATCH_SIZE).leads : () => [mix.single().lead]
  const r: CeilingResult =
    o.dialect === 'mysql'
      ? await mysqlUpsertCeiling(o.databaseUrl, { connections, seconds, next })
      : batch
        ? sqliteUpsertCeiling(o.databaseUrl.slice('sqlite:'.length), { seconds, next })
        : await sqliteGroupUpsertCeiling(o.databaseUrl.slice('sqlite:'.length), {
            clients: connections,
            seconds,
            next,
          })
  const cpu = cpuPerRequest(before, readCpu(undefined, o.dbPid), batch ? r.rows : r.requests, {
    api: false,
    db: o.dialect === 'mysql',
  })
  return { rate: batch ? r.rowsPerSec : r.requestsPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms, cpu }
}

/**
 * Batch push (rows/s) and single-lead push (requests/s) through the API process, each against the
 * same rows written by a plain script at the same concurrency. One short unrecorded run of each side
 * first, so neither is measured cold.
 */
export async function pushCases(options: PushCaseOptions): Promise<ComparedCase[]> {
  const o: PushRun = { ...options, dbPid: options.dialect === 'mysql' ? mariadbPid() : undefined }
  const reset = () => resetLivePool(o.db.kysely)
  const warm = Math.min(3, o.seconds)
  const cases: ComparedCase[] = []
  for (const batch of [true, false]) {
    const connections = batch ? o.batchConnections : o.singleConnections
    step(`${batch ? 'batch' : 'single'} push: warm-up`)
    await reset()
    await overHttp(o, connections, warm, batch)
    await reset()
    await plainScript(o, connections, warm, batch)
    const runs = await alternate(
      o.rounds,
      () => overHttp(o, connections, o.seconds, batch),
      () => plainScript(o, connections, o.seconds, batch),
      reset,
      `${batch ? 'batch' : 'single'} push: `,
    )
    const product = summarise(runs.product)
    const ceiling = summarise(runs.ceiling)
    const ratio = product.rate / ceiling.rate
    // The single-lead case's HTTP floor: one run of the same load against a bare Fastify route.
    const floor = batch
      ? undefined
      : await measureHttpFloor({
          port: o.floorPort,
          connections,
          seconds: o.seconds,
          mix: nextMix(),
          ...(product.rate > 0 ? { rate: Math.round(product.rate) } : {}),
        })
    const httpFloor = floor && {
      ...floor,
      ...(o.dialect === 'sqlite'
        ? { bound: sqliteSingleBound(ceiling.rate, floor.threadCpuUsPerRequest) }
        : {}),
    }
    const cpu = { product: medianCpu(runs.product), ceiling: medianCpu(runs.ceiling) }
    const clients =
      o.dialect === 'sqlite'
        ? `${connections} HTTP clients; script: ${batch ? '1 writer, a commit per request' : `${connections} clients, group commit`}`
        : `${connections} clients`
    cases.push(
      batch
        ? {
            name: `${o.dialect} batch push (${BATCH_SIZE}/req)`,
            unit: 'rows/s',
            product,
            ceiling,
            ratio,
            target: `>= ${BATCH_TARGET[o.dialect].toFixed(2)}`,
            met: ratio >= BATCH_TARGET[o.dialect],
            note: clients,
            cpu,
          }
        : {
            name: `${o.dialect} single-lead push`,
            unit: 'req/s',
            product,
            ceiling,
            ratio,
            target: `>= ${SINGLE_TARGET.toFixed(2)}, p99 < ${SINGLE_P99_MS} ms`,
            met: ratio >= SINGLE_TARGET && product.p99Ms < SINGLE_P99_MS,
            note: clients,
            cpu,
            ...(httpFloor ? { httpFloor } : {}),
          },
    )
  }
  return cases
}
