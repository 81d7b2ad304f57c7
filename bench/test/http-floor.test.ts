import { createServer } from 'node:net'
import t from 'tap'
import { LeadMix } from '../src/lib/lead-mix.js'
import { measureHttpFloor, sqliteSingleBound } from '../src/push/http-floor.js'
import { cpuTable, httpFloorTable } from '../src/report/table.js'

/** A port nothing listens on: the kernel's pick for a listener opened and closed at once. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

t.test('the SQLite bound adds the floor to the ceiling time per lead', async (t) => {
  // A ceiling of 10,000 leads/s is 100 us a lead; 25 us of HTTP on the same thread leaves 100/125.
  t.equal(sqliteSingleBound(10_000, 25), 0.8)
  t.equal(sqliteSingleBound(10_000, 0), 1)
  t.ok(sqliteSingleBound(20_000, 25) < sqliteSingleBound(10_000, 25), 'a faster ceiling leaves less room')
})

t.test(
  'the floor table lists the cases that measured one, with a bound only where there is one',
  async (t) => {
    const side = { rate: 5000, p50Ms: 1, p99Ms: 2, rounds: [] }
    const base = { unit: 'req/s', product: side, ratio: 0.5, target: '', met: false, note: '' }
    t.equal(httpFloorTable([{ ...base, name: 'no floor', ceiling: side }]), undefined)
    const table = httpFloorTable([
      { ...base, name: 'batch', ceiling: side },
      {
        ...base,
        name: 'sqlite single-lead push',
        ceiling: { ...side, rate: 10_000 },
        httpFloor: {
          requestsPerSec: 30_000,
          p50Ms: 0,
          p99Ms: 1,
          cpuUsPerRequest: 31,
          threadCpuUsPerRequest: 25,
          bound: 0.8,
        },
        cpu: {
          product: { api: 300, bench: 50, db: null, complete: true },
          ceiling: { api: null, bench: 100, db: null, complete: true },
        },
      },
      {
        ...base,
        name: 'mysql single-lead push',
        ceiling: side,
        httpFloor: {
          requestsPerSec: 31_000,
          p50Ms: 0,
          p99Ms: 1,
          cpuUsPerRequest: 33,
          threadCpuUsPerRequest: 27,
        },
        cpu: {
          product: { api: 180, bench: 40, db: 200, complete: true },
          ceiling: { api: null, bench: 30, db: 230, complete: true },
        },
      },
    ])!
    const lines = table.split('\n')
    t.equal(lines.length, 5, 'a header, a rule, two cases and the explanation')
    t.match(
      lines[2],
      /^\| sqlite single-lead push \| 30000 .*\| 31\.0 .*\| 25\.0 .*\| 300\.0 .*\| 100\.0 .*\| 0\.80 /,
    )
    t.match(lines[3], /^\| mysql single-lead push .*\| 33\.0 .*\| 27\.0 .*\| 180\.0 .*\| 200\.0 .*\| - /)
    t.match(lines[4], /main-thread CPU/)
    t.notMatch(table, /batch/)
  },
)

t.test('the CPU table gives each side of each push case, and the cores they kept busy', async (t) => {
  const side = (rate: number) => ({ rate, p50Ms: 1, p99Ms: 2, rounds: [] })
  const base = { ratio: 0.5, target: '', met: false, note: '' }
  /** A push case: its rates and each side's CPU as [api, bench, db], complete or not. */
  const pushCase = (
    name: string,
    rates: [number, number],
    product: [number | null, number, number | null],
    ceiling: [number | null, number, number | null],
    complete = true,
  ) => {
    const cpu = ([api, bench, db]: [number | null, number, number | null]) => ({ api, bench, db, complete })
    return {
      ...base,
      name,
      unit: name.includes('batch') ? 'rows/s' : 'req/s',
      product: side(rates[0]),
      ceiling: side(rates[1]),
      cpu: { product: cpu(product), ceiling: cpu(ceiling) },
    }
  }
  t.equal(
    cpuTable([{ ...base, name: 'claims', unit: 'claims/s', product: side(1), ceiling: side(1) }]),
    undefined,
  )
  const table = cpuTable([
    pushCase('mysql batch push (500/req)', [30_000, 40_000], [20, 5, 25], [null, 5, 40]),
    pushCase('sqlite single-lead push', [4000, 10_000], [300, 60, null], [null, 100, null]),
  ])!
  const lines = table.split('\n')
  t.equal(lines.length, 6, 'a header, a rule and two sides of two cases')
  const partial = cpuTable([
    pushCase('mysql single-lead push', [4000, 7000], [150, 50, null], [null, 60, null], false),
  ])!
  t.match(
    partial.split('\n')[2],
    /\| 150\.0 .*\| 50\.0 .*\| - +\| - +\| - +\|$/,
    'MariaDB unread: no total, no cores',
  )
  // 50 us a row at 30,000 rows/s: 1.5 cores; 45 us at 40,000: 1.8.
  t.match(
    lines[2],
    /^\| mysql batch push \(500\/req\) \| product \| row .*\| 20\.0 .*\| 5\.0 .*\| 25\.0 .*\| 50\.0 .*\| 1\.50 /,
  )
  t.match(lines[3], /\| ceiling \| row .*\| - .*\| 5\.0 .*\| 40\.0 .*\| 45\.0 .*\| 1\.80 /)
  t.match(lines[4], /\| product \| request .*\| 300\.0 .*\| 60\.0 .*\| - .*\| 360\.0 .*\| 1\.44 /)
  t.match(lines[5], /\| ceiling \| request .*\| - .*\| 100\.0 .*\| - .*\| 100\.0 .*\| 1\.00 /)
})

t.test('the bare Fastify route answers the single-lead load and its CPU is counted', async (t) => {
  const floor = await measureHttpFloor({
    port: await freePort(),
    connections: 2,
    seconds: 2,
    rate: 1000,
    mix: new LeadMix('floor-', '4999'),
  })
  t.ok(floor.requestsPerSec > 0, `${floor.requestsPerSec.toFixed(0)} requests/s`)
  t.ok(floor.threadCpuUsPerRequest <= floor.cpuUsPerRequest + 1, 'the main thread is part of the process')
  t.ok(floor.requestsPerSec <= 1200, 'held to the rate asked for (unheld, it answers thousands)')
  // Microseconds: a request costs tens of them (25-45 measured), never thousands or a fraction of one.
  t.ok(
    floor.cpuUsPerRequest > 1 && floor.cpuUsPerRequest < 5000,
    `${floor.cpuUsPerRequest.toFixed(1)} us of CPU per request`,
  )
  t.ok(floor.p99Ms >= floor.p50Ms)
})
