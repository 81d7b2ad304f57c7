import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Db } from '@hold-dialer/db'
import type { PbxSim } from '@hold-dialer/pbx-sim'
import { helpOrRefusal } from './bench-options.js'
import {
  agentExtensions,
  keepPanelsAlive,
  seedAgents,
  startDialer,
  startSim,
  worstConcurrentCallsPerNumber,
} from './dialer/fleet.js'
import { BENCH_SECRET, startApi } from './lib/api-process.js'
import { type Child, ROOT } from './lib/child.js'
import {
  dropCreatedDatabases,
  dropDatabasesOnSignal,
  mariadbSettings,
  withFreshDatabase,
} from './lib/databases.js'
import { runHttpLoad } from './lib/http-load.js'
import { describeMachine, machineInfo } from './lib/machine.js'
import { nowStamp } from './lib/master-row.js'
import { phase, step } from './lib/progress.js'
import { redisAnswers } from './lib/redis-ping.js'
import { checkSharedRateLimit } from './scale/rate-limit-check.js'
import {
  agentOverlaps,
  attemptsByDialer,
  callsForAnotherPbx,
  lostLeads,
  numbersOnTwoDialersAtOnce,
} from './scale/scale-checks.js'
import { parseScaleOptions, SCALE_OPTIONS, SCALE_USAGE, type ScaleOptions } from './scale/scale-options.js'
import { ScalePushes } from './scale/scale-plan.js'

const say = (line = '') => process.stdout.write(`${line}\n`)
/** A lead of a priority no dialer takes (3, Final Disposal): the rate-limit check's target, never live. */
const RATE_LIMIT_TARGET = 'RL-TARGET'

async function main(): Promise<void> {
  const o = parseScaleOptions(process.argv.slice(2))
  const started = new Date()
  say(
    `hold-dialer scale-out run${o.smoke ? ' (smoke)' : ''}: ${o.apiInstances} API instances sharing Redis, ${o.dialers} dialers sharing MariaDB${o.pbxs > 1 ? ` and ${o.pbxs} PBXs` : ''}, ${o.seconds} s`,
  )
  say(`machine: ${describeMachine(machineInfo())}`)
  const mariadb = await mariadbSettings()
  say(
    `MariaDB: ${Object.entries(mariadb)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  )
  if (!(await redisAnswers(o.redisUrl)))
    throw new Error(`no Redis answers at ${o.redisUrl} (--redis or REDIS_URL)`)

  await withFreshDatabase('mysql', 'scale', (url, db) => scaleRun(o, started, mariadb, url, db))
}

/** The run on its fresh database, which the caller drops whatever happens. */
async function scaleRun(
  o: ScaleOptions,
  started: Date,
  mariadb: Record<string, string>,
  url: string,
  db: Db,
): Promise<void> {
  const extensions = agentExtensions(o.agents)
  await seedAgents(db.kysely, extensions)
  // Several PBXs: agent i on PBX i mod pbxs; every sim has every desk (callsForAnotherPbx).
  const pbxName = (k: number) => (o.pbxs > 1 ? `pbx-${k + 1}` : 'default')
  const pbxOf = new Map(extensions.map((ext, i) => [ext, i % o.pbxs]))
  for (let k = 0; k < o.pbxs && o.pbxs > 1; k++) {
    await db.kysely
      .updateTable('dialer_employee')
      .set({ pbx: pbxName(k) })
      .where(
        'extension',
        'in',
        extensions.filter((ext) => pbxOf.get(ext) === k),
      )
      .execute()
  }
  const stamp = nowStamp()
  await db.kysely
    .insertInto('hold_dialer_master_data')
    .values({
      oli_id: RATE_LIMIT_TARGET,
      phone_number: '99900000000',
      phone_e164: '',
      client_name: 'Rate limit check',
      form_type: 'hold',
      priority_id: 3,
      dial_status: 'Pending',
      call_count: 0,
      isReserved: 0,
      isRnrSent: 0,
      status: 1,
      push_date: stamp,
      created_at: stamp,
    })
    .execute()
  const sims: PbxSim[] = []
  for (let k = 0; k < o.pbxs; k++) sims.push(await startSim(extensions))
  const originates = () => sims.reduce((n, sim) => n + sim.originateCount(), 0)
  const stopPanels = keepPanelsAlive(db.kysely)
  const children: Child[] = []
  try {
    const apis: Child[] = []
    for (let i = 0; i < o.apiInstances; i++) {
      const api = await startApi({
        name: `api-${i + 1}`,
        databaseUrl: url,
        port: o.port + i,
        logLevel: o.logLevel,
        redisUrl: o.redisUrl,
        trustProxy: true,
      })
      apis.push(api)
      children.push(api)
    }
    const dialers: Child[] = []
    for (let i = 0; i < o.dialers; i++) {
      // Dialer i serves PBX i mod pbxs (several dialers may serve one PBX).
      const k = i % o.pbxs
      const dialer = startDialer({
        id: `scale-dialer-${i + 1}`,
        databaseUrl: url,
        sim: sims[k]!,
        logLevel: o.logLevel,
        ...(o.pbxs > 1 ? { env: { PBX_NAME: pbxName(k) } } : {}),
      })
      dialers.push(dialer)
      children.push(dialer)
    }
    const bases = apis.map((_, i) => `http://127.0.0.1:${o.port + i}`)
    const pushes = new ScalePushes()
    const originatesBefore = originates()
    const loadStarted = Date.now()
    say(
      `--- push load on ${bases.length} instances (${o.connections} connections each, ${o.batch} leads per request) and dialing, ${o.seconds} s`,
    )
    const rateLimit = new Promise<Awaited<ReturnType<typeof checkSharedRateLimit>>>(
      (resolveCheck, reject) => {
        setTimeout(
          () => checkSharedRateLimit(bases, RATE_LIMIT_TARGET).then(resolveCheck, reject),
          (o.seconds * 1000) / 2,
        )
      },
    )
    const loads = await phase('scale-out load', () => {
      step(
        () =>
          `${pushes.pushed.length} oli_ids pushed, ${originates() - originatesBefore} calls placed, ${Math.round((Date.now() - loadStarted) / 1000)} of ${o.seconds} s`,
      )
      return Promise.all(
        bases.map((base) =>
          runHttpLoad({
            url: `${base}/api/leads`,
            connections: o.connections,
            seconds: o.seconds,
            headers: { authorization: `Bearer ${BENCH_SECRET}` },
            next: pushes.plan(o.batch),
          }),
        ),
      )
    })
    const rate = await rateLimit
    const seconds = (Date.now() - loadStarted) / 1000
    const calls = originates() - originatesBefore
    for (const child of children)
      if (child.exited()) throw new Error(`${child.name} exited:\n${child.tail()}`)
    const rss = Object.fromEntries(children.map((c) => [c.name, c.peakRssMiB()]))
    const privateMiB = Object.fromEntries(children.map((c) => [c.name, c.peakMemory().anonMiB]))
    const byDialer = await attemptsByDialer(db.kysely)
    const lost = await lostLeads(db.kysely, pushes.pushed)
    const worstPerNumber = Math.max(...sims.map(worstConcurrentCallsPerNumber))
    const overlaps = sims.reduce((n, sim) => n + agentOverlaps(sim), 0)
    const otherPbx = callsForAnotherPbx(sims, pbxOf)
    const acrossPbxs = o.pbxs > 1 ? await numbersOnTwoDialersAtOnce(db.kysely) : 0

    say()
    say('| instance | requests/s | leads/s | p50 ms | p99 ms | peak RSS MiB | private MiB |')
    say('|---|---|---|---|---|---|---|')
    loads.forEach((r, i) => {
      const name = apis[i]!.name
      say(
        `| ${name} | ${r.requestsPerSec.toFixed(0)} | ${r.rowsPerSec.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${rss[name]!.toFixed(1)} | ${privateMiB[name]!.toFixed(1)} |`,
      )
    })
    say()
    say('| dialer | calls settled | calls/s | peak RSS MiB | private MiB |')
    say('|---|---|---|---|---|')
    for (const d of dialers) {
      const n = byDialer[d.name] ?? 0
      say(
        `| ${d.name} | ${n} | ${(n / seconds).toFixed(1)} | ${rss[d.name]!.toFixed(1)} | ${privateMiB[d.name]!.toFixed(1)} |`,
      )
    }
    say(`calls placed (pbx-sim originates): ${calls} (${(calls / seconds).toFixed(1)}/s)`)
    say()
    const failures = [
      ...loads.flatMap((r, i) => r.failures.map((f) => `${apis[i]!.name}: ${f}`)),
      ...rate.problems.map((p) => `rate limit: ${p}`),
      ...(worstPerNumber > 1 ? [`double claim: a number had ${worstPerNumber} calls at once`] : []),
      ...(overlaps > 0 ? [`double booking: ${overlaps} overlapping calls on one agent`] : []),
      ...(otherPbx > 0 ? [`wrong PBX: ${otherPbx} calls placed for another PBX's agent`] : []),
      ...(acrossPbxs > 0 ? [`double claim across PBXs: ${acrossPbxs} numbers on two dialers at once`] : []),
      ...(lost.length > 0 ? [`lost leads: ${lost.length} (e.g. ${lost.slice(0, 5).join(', ')})`] : []),
    ]
    say(
      `rate limit across instances: ${rate.ok ? 'correct' : 'WRONG'}: client ${rate.client}, first 120 ${JSON.stringify(rate.withinLimit)}, next 10 ${JSON.stringify(rate.pastLimit)}, another client ${rate.otherClientStatus}`,
    )
    say(
      `double claims: ${worstPerNumber > 1 ? 'YES' : 'none'} (most calls at once to one number: ${worstPerNumber}); agents on two calls at once: ${overlaps}`,
    )
    if (o.pbxs > 1) {
      say(
        `PBXs: ${sims.map((sim, k) => `${pbxName(k)} ${sim.originateCount()} calls`).join(', ')}; calls for another PBX's agent: ${otherPbx}; numbers on two dialers at once: ${acrossPbxs}`,
      )
    }
    say(
      `lost leads: ${lost.length} of ${pushes.pushed.length} pushed oli_ids (checked against master and disposed)`,
    )
    say(
      failures.length === 0
        ? 'scale-out run: every check passed'
        : `scale-out run FAILED:\n  ${failures.join('\n  ')}`,
    )

    const out = resolve(ROOT, o.out)
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(
      out,
      `${JSON.stringify({ startedAt: started.toISOString(), seconds, options: o, mariadb, loads, byDialer, calls, rss, privateMiB, rateLimit: rate, worstPerNumber, overlaps, otherPbx, acrossPbxs, lost: lost.length, pushed: pushes.pushed.length, failures }, null, 2)}\n`,
    )
    say(`figures written to ${o.out}`)
    if (failures.length > 0) process.exitCode = 1
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    stopPanels()
    await Promise.all(sims.map((sim) => sim.close()))
  }
}

const code = helpOrRefusal(
  process.argv.slice(2),
  { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) },
  { options: SCALE_OPTIONS, usage: SCALE_USAGE },
)
if (code !== undefined) process.exit(code)
dropDatabasesOnSignal()
main().then(
  () => process.exit(process.exitCode ?? 0),
  async (error: unknown) => {
    process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}\n`)
    await dropCreatedDatabases()
    process.exit(1)
  },
)
