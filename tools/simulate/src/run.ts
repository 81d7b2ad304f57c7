import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AmiClient } from '@hold-dialer/ami'
import { connect, type Db, migrate } from '@hold-dialer/db'
import { Dialer } from '@hold-dialer/dialer'
import { type CallRecord, type PbxSim, startPbxSim } from '@hold-dialer/pbx-sim'
import { type Config, parseConfig, toDbTime } from '@hold-dialer/rules'
import pino from 'pino'
import {
  type Mode,
  type ModeResult,
  type Progress,
  physicalCeiling,
  type Sample,
  summarise,
} from './metrics.js'
import type { SimParams } from './params.js'

/** The simulated shift starts at a fixed instant, so every run sees the same calendar. */
const SHIFT_START = Date.parse('2026-11-23T09:00:00.000Z')

export interface RunOptions {
  /** Called about every `progressMinutes` simulated minutes (and not at all when it is 0). */
  onProgress?: (p: Progress) => void
  progressMinutes?: number
}

/** One mode's running parts: its database, the simulator, the AMI client and the dialer. */
interface ModeRun {
  mode: Mode
  p: SimParams
  dir: string
  handle: Db
  sim: PbxSim
  ami: AmiClient
  dialer: Dialer
  config: Config
  extensions: string[]
  end: number
  shiftAt: number
  /** The dialer and the AMI client have been stopped. */
  stopped: boolean
}

/**
 * One mode on one fresh SQLite database: the real dialer (in this process) against pbx-sim over TCP,
 * both on the simulator's accelerated clock, the real claim/settle code and the real AMI protocol.
 * Whatever happens, the simulator, the database and its folder are gone when it returns.
 */
export async function runMode(mode: Mode, p: SimParams, o: RunOptions = {}): Promise<ModeResult> {
  const run = await setupMode(mode, p)
  try {
    const samples = await driveMode(run, o)
    return await collectMode(run, samples)
  } finally {
    await teardown(run)
  }
}

const randomOutcome = (p: SimParams, answerProbability: number) => ({
  kind: 'random' as const,
  answerProbability,
  busyProbability: 0,
  ringSeconds: { mean: p.ringMeanSeconds },
  talkSeconds: { mean: p.talkMeanSeconds },
  patienceSeconds: { mean: p.patienceMeanSeconds, min: p.patienceMinSeconds },
})

/** Creates and seeds the database, starts pbx-sim and the dialer; nothing is dialed before this returns. */
async function setupMode(mode: Mode, p: SimParams): Promise<ModeRun> {
  // The database lives in memory-backed storage where there is one: at 20x, a 5 ms fsync is 100
  // simulated ms, and a burst of claims would hold up the next bridge past COMPLIANCE_SECONDS, an
  // artefact of the accelerated clock that a deployment running in real time does not have.
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'hd-sim-'))
  const databaseUrl = `sqlite:${join(dir, 'sim.sqlite')}`
  const handle = connect(databaseUrl)
  let sim: PbxSim | undefined
  try {
    await migrate(handle)
    sim = await startPbxSim({
      port: 0,
      users: { sim: 'sim' },
      timeScale: p.timeScale,
      seed: p.seed,
      clockStart: SHIFT_START,
      defaultOutcome: randomOutcome(p, p.answerRate),
      agentAnswerSeconds: 0.5,
    })
    const extensions = Array.from({ length: p.agents }, (_, i) => String(8001 + i))
    for (const ext of extensions) sim.addAgent(ext)
    await seedAgents(handle, extensions, toDbTime(new Date(sim.now())))
    await seedLeads(handle, p.leads)
    if (p.historyAnswered > 0) await seedHistory(handle, p)
    const config = modeConfig(mode, p, databaseUrl, sim.port)
    const ami = new AmiClient({
      host: '127.0.0.1',
      port: sim.port,
      username: 'sim',
      secret: 'sim',
      events: true,
    })
    const clock = sim
    const dialer = new Dialer({
      config,
      db: handle,
      ami,
      logger: pino({ level: 'silent' }),
      dialerId: `sim-${mode}`,
      hostname: 'sim',
      now: () => new Date(clock.now()),
      timing: { claimIdleMs: 20, rosterMs: 50, staleMs: 60_000, expireMs: 25, settleRetryMs: 200 },
    })
    await dialer.start()
    await ami.start()
    const end = SHIFT_START + p.durationMinutes * 60_000
    return {
      mode,
      p,
      dir,
      handle,
      sim,
      ami,
      dialer,
      config,
      extensions,
      end,
      shiftAt: SHIFT_START + p.shiftAt * (end - SHIFT_START),
      stopped: false,
    }
  } catch (error) {
    await sim?.close()
    await handle.close()
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

async function seedAgents(handle: Db, extensions: string[], seenAt: string): Promise<void> {
  for (const ext of extensions) {
    await handle.kysely
      .insertInto('dialer_employee')
      .values({
        name: `Agent ${ext}`,
        extension: ext,
        email: null,
        presence: 'ready',
        panel_seen_at: seenAt,
        wrap_until: null,
      })
      .execute()
  }
}

async function seedLeads(handle: Db, leads: number): Promise<void> {
  for (let i = 0; i < leads; i += 500) {
    const stamp = toDbTime(new Date(SHIFT_START - 3_600_000 + i))
    await handle.kysely
      .insertInto('hold_dialer_master_data')
      .values(
        Array.from({ length: Math.min(500, leads - i) }, (_, k) => ({
          oli_id: `SIM-${i + k}`,
          phone_number: `1555${String(i + k).padStart(7, '0')}`,
          phone_e164: `+1555${String(i + k).padStart(7, '0')}`,
          client_name: `Lead ${i + k}`,
          form_type: 'sim',
          priority_id: 1,
          agent_id: null,
          dial_status: 'Pending' as const,
          call_count: 0,
          isReserved: 0,
          isRnrSent: 0,
          push_date: stamp,
          status: 1,
          created_at: stamp,
        })),
      )
      .execute()
  }
}

/** The centre's earlier days inside the governor's window, as one hourly bucket ten days back. */
async function seedHistory(handle: Db, p: SimParams): Promise<void> {
  await handle.kysely
    .insertInto('hold_dialer_abandon_stats')
    .values({
      bucket_start: toDbTime(new Date(SHIFT_START - 10 * 86_400_000)),
      dialer_id: 'history',
      answered: Math.round(p.historyAnswered),
      abandoned: Math.round(p.historyAnswered * p.historyAbandonRate),
    })
    .execute()
}

function modeConfig(mode: Mode, p: SimParams, databaseUrl: string, amiPort: number): Config {
  return parseConfig(
    {
      DATABASE_URL: databaseUrl,
      DIAL_MODE: mode,
      TIMEZONE: 'UTC',
      WORK_START: '00:00',
      WORK_END: '23:59',
      // Numbers are dialed at any hour here: the customers' calling hours are off too.
      CALLING_HOURS: 'off',
      WRAP_SECONDS: String(p.wrapSeconds),
      // No retry inside the shift: every lead gets at most one call, so both modes face the same list.
      RETRY_SECONDS: '86400',
      RING_TIMEOUT_SECONDS: '30',
      HOLD_TIMEOUT_SECONDS: '30',
      ABANDON_RATE_MAX: String(p.abandonRateMax),
      MAX_DIAL_LEVEL: String(p.maxDialLevel),
      HEARTBEAT_SECONDS: '3600',
      AMI_HOST: '127.0.0.1',
      AMI_PORT: String(amiPort),
      AMI_USERNAME: 'sim',
      AMI_SECRET: 'sim',
    },
    { hostZone: 'UTC' },
  )
}

/**
 * Lets the shift run to its end on the simulated clock: keeps every agent's panel alive, switches the
 * answer rate at the shift point, takes a chart sample every `sampleSeconds` and reports progress.
 */
async function driveMode(run: ModeRun, o: RunOptions): Promise<Sample[]> {
  const { p, sim, dialer, extensions } = run
  const samples: Sample[] = []
  const progressMs = (o.progressMinutes ?? 0) * 60_000
  let shifted = false
  let nextSample = SHIFT_START
  let nextProgress = SHIFT_START + progressMs
  for (;;) {
    const t = sim.now()
    if (t >= run.end) break
    await run.handle.kysely
      .updateTable('dialer_employee')
      .set({ panel_seen_at: toDbTime(new Date(t)) })
      .execute()
    if (!shifted && t >= run.shiftAt) {
      sim.setDefaultOutcome(randomOutcome(p, p.answerRateAfter))
      shifted = true
    }
    const sampleDue = t >= nextSample
    const progressDue = o.onProgress !== undefined && progressMs > 0 && t >= nextProgress
    if (sampleDue || progressDue) {
      if (sampleDue) {
        const so = figuresSoFar(run, sim.calls, t)
        const busy = extensions.filter((e) => sim.agentDeviceState(e) !== 'NOT_INUSE').length
        samples.push({
          minute: Math.round((t - SHIFT_START) / 6000) / 10,
          dialLevel: dialer.governor()?.dialLevel ?? 1,
          abandonRate: so.abandonRate,
          occupancy: busy / p.agents,
        })
        nextSample += p.sampleSeconds * 1000
      }
      if (progressDue) {
        // Calls answered within the compliance time are left out: whether they are abandoned is not
        // known yet (the chart's samples count them as abandoned until an agent joins).
        const settled = figuresSoFar(run, sim.calls, t - run.config.complianceSeconds * 1000)
        o.onProgress?.({
          mode: run.mode,
          minute: (t - SHIFT_START) / 60_000,
          calls: sim.calls.filter((c) => c.startedAt < t).length,
          answered: settled.answered,
          abandoned: settled.abandoned,
          abandonRate: settled.abandonRate,
        })
        while (nextProgress <= t) nextProgress += progressMs
      }
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return samples
}

function figuresSoFar(run: ModeRun, calls: readonly CallRecord[], t: number) {
  return summarise(calls, {
    start: SHIFT_START,
    end: t,
    shiftAt: run.shiftAt,
    agents: run.p.agents,
    wrapMs: 0,
    complianceMs: run.config.complianceSeconds * 1000,
  })
}

/**
 * Stops the dialer (calls still up at the end finish, outside the figures, so every lead is settled),
 * then reads the figures from the call log and the invariants from the database.
 */
async function collectMode(run: ModeRun, samples: Sample[]): Promise<ModeResult> {
  const { p, sim } = run
  const calls = [...sim.calls]
  await run.dialer.stop(120_000)
  await run.ami.close()
  run.stopped = true
  const db = run.handle.kysely
  const count = () =>
    db.selectFrom('hold_dialer_master_data').select((eb) => eb.fn.countAll<number>().as('n'))
  const finished = await count()
    .where('dial_status', 'in', ['Received', 'Rejected', 'Disposed'])
    .executeTakeFirstOrThrow()
  const onMaster = await count().executeTakeFirstOrThrow()
  const stillReserved = await count().where('isReserved', '=', 1).executeTakeFirstOrThrow()
  const archived = await db
    .selectFrom('hold_dialer_disposed')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  const numbers = new Set(calls.flatMap((c) => (c.number ? [c.number] : [])))
  let worstConcurrency = 0
  for (const n of numbers) worstConcurrency = Math.max(worstConcurrency, sim.maxConcurrentCallsTo(n))
  const figures = summarise(calls, {
    start: SHIFT_START,
    end: run.end,
    shiftAt: run.shiftAt,
    agents: p.agents,
    wrapMs: p.wrapSeconds * 1000,
    complianceMs: run.config.complianceSeconds * 1000,
  })
  return {
    mode: run.mode,
    ...figures,
    ceilingShare: figures.talkMinutesPerAgentHour / physicalCeiling(p),
    leadsFinished: Number(finished.n) + Number(archived.n),
    leadsAccounted: Number(onMaster.n) + Number(archived.n),
    leadsStillReserved: Number(stillReserved.n),
    worstConcurrency,
    samples,
  }
}

/** Stops whatever still runs (after a failure, the dialer without waiting for its calls) and removes the database. */
async function teardown(run: ModeRun): Promise<void> {
  if (!run.stopped) {
    // Already failing: a second error while stopping is reported, and the first one still decides.
    await run.dialer
      .stop(0)
      .catch((err: unknown) => process.stderr.write(`stopping the dialer: ${String(err)}\n`))
    await run.ami.close().catch((err: unknown) => process.stderr.write(`closing AMI: ${String(err)}\n`))
  }
  await run.sim.close()
  await run.handle.close()
  await rm(run.dir, { recursive: true, force: true })
}
