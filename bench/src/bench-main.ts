import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Dialect } from '@hold-dialer/db'
import { type BenchOptions, helpOrRefusal, parseBenchOptions } from './bench-options.js'
import { claimCases } from './claims/claim-cases.js'
import { CLAIMERS, claimPoolSize, seedClaimPool } from './claims/claim-pool.js'
import { DIALER_AGENTS, dialerRss } from './dialer/dialer-rss.js'
import { startApi } from './lib/api-process.js'
import { ROOT } from './lib/child.js'
import {
  dropCreatedDatabases,
  dropDatabasesOnSignal,
  mariadbSettings,
  withFreshDatabase,
} from './lib/databases.js'
import { describeMachine, machineInfo } from './lib/machine.js'
import { assertPortFree } from './lib/port-free.js'
import { phase, step } from './lib/progress.js'
import { seedPushPools } from './lib/seed.js'
import { pushCases } from './push/push-cases.js'
import type { ComparedCase, MemoryCase } from './report/figures.js'
import { scaleoutLimit, scaleoutTable } from './report/scaleout-table.js'
import { comparedTable, cpuTable, httpFloorTable, memoryTable } from './report/table.js'
import { SCALEOUT_SETTINGS, type ScaleoutSetting, scaleoutCases } from './scaleout/scaleout-cases.js'

const API_RSS_LIMIT_MIB = 120
const DIALER_RSS_LIMIT_MIB = 100
const DIALER_LEADS = 20_000

const say = (line = '') => process.stdout.write(`${line}\n`)

async function benchDialect(
  dialect: Dialect,
  o: BenchOptions,
  compared: ComparedCase[],
  memory: MemoryCase[],
  scaleout: ScaleoutSetting[],
) {
  if (o.only.includes('push')) await phase(`${dialect} push`, () => benchPush(dialect, o, compared, memory))
  if (o.only.includes('claims')) await phase(`${dialect} claims`, () => benchClaims(dialect, o, compared))
  if (o.only.includes('dialer')) await phase(`${dialect} dialer`, () => benchDialer(dialect, o, memory))
  if (dialect === 'mysql' && o.only.includes('scaleout')) {
    await phase('mysql scale-out claims', () => benchScaleout(o, scaleout))
  }
}

async function benchScaleout(o: BenchOptions, scaleout: ScaleoutSetting[]) {
  say(
    `--- mysql: scale-out (${SCALEOUT_SETTINGS.join(', ')} dialer processes, ${CLAIMERS} agents shared out)`,
  )
  await withFreshDatabase(
    'mysql',
    'scaleout',
    async (url, db) => {
      const agents = await seedClaimPool(db.kysely, claimPoolSize(o.seconds))
      scaleout.push(
        ...(await scaleoutCases({ databaseUrl: url, db, agents, rounds: o.rounds, seconds: o.seconds })),
      )
    },
    // The pool only seeds and resets here; each dialer process opens its own.
    4,
  )
}

async function benchPush(dialect: Dialect, o: BenchOptions, compared: ComparedCase[], memory: MemoryCase[]) {
  say(
    `--- ${dialect}: push (API process vs plain ${dialect === 'mysql' ? 'mysql2' : 'better-sqlite3'} script)`,
  )
  await withFreshDatabase(dialect, 'push', async (pushUrl, pushDb) => {
    step('seeding the lead pools')
    await seedPushPools(pushDb.kysely)
    // The HTTP floor's server takes the next port: refused now, not after the push rounds.
    await assertPortFree(o.port + 1)
    step('starting the API')
    const api = await startApi({
      databaseUrl: pushUrl,
      port: o.port,
      logLevel: o.logLevel,
      ...(o.profile
        ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${resolve(ROOT, 'bench-results/prof')}`] }
        : {}),
    })
    try {
      const cases = await pushCases({
        dialect,
        databaseUrl: pushUrl,
        db: pushDb,
        apiBase: `http://127.0.0.1:${o.port}`,
        rounds: o.rounds,
        seconds: o.seconds,
        batchConnections: o.batchConnections,
        singleConnections: o.singleConnections,
        apiPid: api.pid,
        floorPort: o.port + 1,
      })
      compared.push(...cases)
      const peak = api.peakRssMiB()
      memory.push({
        name: `api (${dialect})`,
        peakRssMiB: peak,
        ...api.peakMemory(),
        limitMiB: API_RSS_LIMIT_MIB,
        met: peak < API_RSS_LIMIT_MIB,
        note: 'after every push run of this dialect',
      })
    } finally {
      await api.stop()
    }
  })
}

async function benchClaims(dialect: Dialect, o: BenchOptions, compared: ComparedCase[]) {
  say(`--- ${dialect}: claims (dialer claim code vs raw loop, ${CLAIMERS} claimers)`)
  await withFreshDatabase(
    dialect,
    'claims',
    async (claimUrl, claimDb) => {
      const agents = await seedClaimPool(claimDb.kysely, claimPoolSize(o.seconds))
      const { cases } = await claimCases({
        dialect,
        databaseUrl: claimUrl,
        db: claimDb,
        agents,
        rounds: o.rounds,
        seconds: o.seconds,
      })
      compared.push(...cases)
    },
    CLAIMERS,
  )
}

async function benchDialer(dialect: Dialect, o: BenchOptions, memory: MemoryCase[]) {
  say(`--- ${dialect}: dialer process, ${DIALER_AGENTS} agents on pbx-sim, ${o.dialerSeconds} s`)
  await withFreshDatabase(dialect, 'dialer', async (dialerUrl, dialerDb) => {
    const r = await dialerRss(dialerDb, dialerUrl, {
      seconds: o.dialerSeconds,
      leads: DIALER_LEADS,
      logLevel: o.logLevel,
    })
    if (r.worstCallsPerNumber > 1) throw new Error(`${dialect} dialer: a number was dialed twice at once`)
    memory.push({
      name: `dialer (${dialect})`,
      peakRssMiB: r.peakRssMiB,
      anonMiB: r.anonMiB,
      fileMiB: r.fileMiB,
      limitMiB: DIALER_RSS_LIMIT_MIB,
      met: r.peakRssMiB < DIALER_RSS_LIMIT_MIB,
      note: `${r.calls} calls in ${r.seconds.toFixed(0)} s (${r.callsPerSec.toFixed(0)}/s), most calls per number ${r.worstCallsPerNumber}`,
    })
  })
}

async function main(): Promise<void> {
  const o = parseBenchOptions(process.argv.slice(2))
  const machine = machineInfo()
  const started = new Date()
  say(`hold-dialer bench${o.smoke ? ' (smoke: proves it runs, measures nothing)' : ''}`)
  say(`machine: ${describeMachine(machine)}`)
  let mariadb: Record<string, string> = {}
  if (o.dialects.includes('mysql')) {
    mariadb = await mariadbSettings()
    say(
      `MariaDB: ${Object.entries(mariadb)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    )
  }
  say(
    `rounds ${o.rounds} x ${o.seconds} s per side, alternating; batch ${o.batchConnections} clients, single ${o.singleConnections}, claims ${CLAIMERS}; API and dialer LOG_LEVEL=${o.logLevel}`,
  )
  const compared: ComparedCase[] = []
  const memory: MemoryCase[] = []
  const scaleout: ScaleoutSetting[] = []
  for (const dialect of o.dialects) await benchDialect(dialect, o, compared, memory, scaleout)
  const seconds = (Date.now() - started.getTime()) / 1000

  // The smoke run's 1-second rounds measure nothing: its tables carry no target and it states no verdict.
  const verdict = !o.smoke
  say()
  say(comparedTable(compared, { verdict }))
  say()
  for (const table of [cpuTable(compared), httpFloorTable(compared)]) {
    if (table) {
      say(table)
      say()
    }
  }
  say(memoryTable(memory, { verdict }))
  say()
  if (scaleout.length > 0) {
    say(scaleoutTable(scaleout, { verdict }))
    say(scaleoutLimit(scaleout))
    say()
  } else if (o.only.includes('scaleout')) {
    say('scale-out part not run: it needs MariaDB (--dialects mysql)')
    say()
  }
  if (verdict) {
    const missed = [
      ...[...compared, ...memory].filter((c) => !c.met).map((c) => c.name),
      ...scaleout.filter((s) => !s.met).map((s) => `scale-out, ${s.dialers} dialers`),
    ]
    say(missed.length === 0 ? 'every target met' : `targets missed: ${missed.join('; ')}`)
  } else {
    say('smoke run: it ran; no figure above is a measurement, so no target is checked')
  }
  say(`finished in ${seconds.toFixed(0)} s`)

  const out = resolve(ROOT, o.out)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    `${JSON.stringify({ startedAt: started.toISOString(), seconds, machine, mariadb, options: o, compared, memory, scaleout }, null, 2)}\n`,
  )
  say(`figures written to ${o.out}`)
}

const code = helpOrRefusal(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
})
if (code !== undefined) process.exit(code)
dropDatabasesOnSignal()
main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
    await dropCreatedDatabases()
    process.exit(1)
  },
)
