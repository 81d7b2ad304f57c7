import type { ComparedCase, MemoryCase } from './figures.js'

const num = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-')

export function render(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n')
}

/** `verdict: false` (the smoke run): no target and no met column, since nothing was measured. */
export interface TableOptions {
  verdict: boolean
}

/** Drops the columns from `from` on (target, met) when there is no verdict to give. */
export function withoutVerdict(rows: string[][], from: number, o: TableOptions): string[][] {
  return o.verdict ? rows : rows.map((r) => [...r.slice(0, from), ...r.slice(from + 2)])
}

/** The throughput table: medians of each side, their ratio, latencies and the target, as Markdown. */
export function comparedTable(cases: readonly ComparedCase[], o: TableOptions = { verdict: true }): string {
  const header = [
    'case',
    'unit',
    'product',
    'p50 ms',
    'p99 ms',
    'ceiling',
    'p50 ms',
    'p99 ms',
    'ratio',
    'target',
    'met',
    'note',
  ]
  const rows = [
    header,
    ...cases.map((c) => [
      c.name,
      c.unit,
      num(c.product.rate),
      num(c.product.p50Ms, 1),
      num(c.product.p99Ms, 1),
      num(c.ceiling.rate),
      num(c.ceiling.p50Ms, 1),
      num(c.ceiling.p99Ms, 1),
      num(c.ratio, 2),
      c.target,
      c.met ? 'yes' : 'NO',
      c.note,
    ]),
  ]
  return render(withoutVerdict(rows, 9, o))
}

export function memoryTable(cases: readonly MemoryCase[], o: TableOptions = { verdict: true }): string {
  const rows = [
    [
      'process',
      'peak RSS MiB (VmHWM)',
      'private MiB (RssAnon)',
      'file pages MiB (RssFile)',
      'limit MiB',
      'met',
      'note',
    ],
    ...cases.map((c) => [
      c.name,
      num(c.peakRssMiB, 1),
      num(c.anonMiB, 1),
      num(c.fileMiB, 1),
      num(c.limitMiB),
      c.met ? 'yes' : 'NO',
      c.note,
    ]),
  ]
  return render(withoutVerdict(rows, 4, o))
}

/**
 * The single-lead cases' HTTP floor (`push/http-floor.ts`): what a bare Fastify route answers under
 * the same load and its CPU per request, beside the API's; for SQLite, the most of the ceiling the
 * product can reach given that floor. Undefined when no case measured one.
 */
export function httpFloorTable(cases: readonly ComparedCase[]): string | undefined {
  const measured = cases.filter((c) => c.httpFloor !== undefined)
  if (measured.length === 0) return undefined
  const rows = [
    [
      'case',
      'bare Fastify req/s',
      'p99 ms',
      'its CPU us/req',
      'its main thread us/req',
      'API CPU us/req',
      'ceiling us/lead',
      'bound on the ratio',
    ],
    ...measured.map((c) => {
      const f = c.httpFloor!
      return [
        c.name,
        num(f.requestsPerSec),
        num(f.p99Ms, 1),
        num(f.cpuUsPerRequest, 1),
        num(f.threadCpuUsPerRequest, 1),
        num(c.cpu?.product.api ?? Number.NaN, 1),
        num(1e6 / c.ceiling.rate, 1),
        f.bound === undefined ? '-' : num(f.bound, 2),
      ]
    }),
  ]
  return [
    render(rows),
    "the bare app is held to the product's rate. bound (SQLite): the API writes SQLite on the thread that serves HTTP, so a request costs that thread at least the ceiling's time per lead plus the bare app's main-thread CPU: ceiling us / (ceiling us + its main thread us).",
  ].join('\n')
}

/**
 * Where the CPU of each push case went, per unit of the case (a request, or a row of a batch): the
 * API, the bench's own process (autocannon for the product, the plain script for the ceiling) and
 * MariaDB, and the cores they kept busy between them at the side's rate. On a machine whose cores
 * they share, the ceiling's side spends on MariaDB what the product's spends on HTTP.
 */
export function cpuTable(cases: readonly ComparedCase[]): string | undefined {
  const measured = cases.filter((c) => c.cpu !== undefined)
  if (measured.length === 0) return undefined
  const us = (v: number | null) => (v === null ? '-' : num(v, 1))
  const rows = [
    ['case', 'side', 'unit', 'API us', 'autocannon or script us', 'MariaDB us', 'total us', 'cores busy'],
    ...measured.flatMap((c) =>
      (['product', 'ceiling'] as const).map((side) => {
        const cpu = c.cpu![side]
        // A side missing a reading it needs (MariaDB on another host) gets no total: a partial sum
        // would read as a cheaper side.
        const total = cpu.complete ? (cpu.api ?? 0) + cpu.bench + (cpu.db ?? 0) : Number.NaN
        return [
          c.name,
          side,
          c.unit === 'rows/s' ? 'row' : 'request',
          us(cpu.api),
          us(cpu.bench),
          us(cpu.db),
          num(total, 1),
          num((total * c[side].rate) / 1e6, 2),
        ]
      }),
    ),
  ]
  return render(rows)
}
