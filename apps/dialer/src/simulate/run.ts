import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AmiClient } from '@hold-dialer/ami'
import { connect, migrate } from '@hold-dialer/db'
import { startPbxSim } from '@hold-dialer/pbx-sim'
import { parseConfig, toDbTime } from '@hold-dialer/rules'
import pino from 'pino'
import { Dialer } from '../dialer.js'
import { type ModeResult, type Sample, summarise } from './metrics.js'
import type { SimParams } from './params.js'

/** The simulated shift starts at a fixed instant, so every run sees the same calendar. */
const SHIFT_START = Date.parse('2026-11-23T09:00:00.000Z')

/**
 * One mode on one fresh SQLite database: the real dialer (in this process) against pbx-sim over TCP,
 * both on the simulator's accelerated clock, the real claim/settle code and the real AMI protocol.
 */
export async function runMode(
  mode: 'progressive' | 'predictive',
  p: SimParams,
  onProgress?: (minute: number) => void,
): Promise<ModeResult> {
  // The database lives in memory-backed storage where there is one: at 20x, a 5 ms fsync is 100
  // simulated ms, and a burst of claims would hold up the next bridge past COMPLIANCE_SECONDS, an
  // artefact of the accelerated clock that a deployment running in real time does not have.
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'hd-sim-'))
  const handle = connect(`sqlite:${join(dir, 'sim.sqlite')}`)
  await migrate(handle)
  const random = (answerProbability: number) => ({
    kind: 'random' as const,
    answerProbability,
    busyProbability: 0,
    ringSeconds: { mean: p.ringMeanSeconds },
    talkSeconds: { mean: p.talkMeanSeconds },
    patienceSeconds: { mean: p.patienceMeanSeconds, min: p.patienceMinSeconds },
  })
  const sim = await startPbxSim({
    port: 0,
    users: { sim: 'sim' },
    timeScale: p.timeScale,
    seed: p.seed,
    clockStart: SHIFT_START,
    defaultOutcome: random(p.answerRate),
    agentAnswerSeconds: 0.5,
  })
  const now = () => new Date(sim.now())
  const db = handle.db
  const extensions = Array.from({ length: p.agents }, (_, i) => String(8001 + i))
  for (const ext of extensions) {
    sim.addAgent(ext)
    await db
      .insertInto('dialer_employee')
      .values({
        name: `Agent ${ext}`,
        extension: ext,
        email: null,
        presence: 'ready',
        panel_seen_at: toDbTime(now()),
        wrap_until: null,
      })
      .execute()
  }
  for (let i = 0; i < p.leads; i += 500) {
    const stamp = toDbTime(new Date(SHIFT_START - 3_600_000 + i))
    await db
      .insertInto('hold_dialer_master_data')
      .values(
        Array.from({ length: Math.min(500, p.leads - i) }, (_, k) => ({
          oli_id: `SIM-${i + k}`,
          phone_number: `1555${String(i + k).padStart(7, '0')}`,
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
  if (p.historyAnswered > 0) {
    await db
      .insertInto('hold_dialer_abandon_stats')
      .values({
        bucket_start: toDbTime(new Date(SHIFT_START - 10 * 86_400_000)),
        dialer_id: 'history',
        answered: Math.round(p.historyAnswered),
        abandoned: Math.round(p.historyAnswered * p.historyAbandonRate),
      })
      .execute()
  }
  const config = parseConfig(
    {
      DATABASE_URL: `sqlite:${join(dir, 'sim.sqlite')}`,
      DIAL_MODE: mode,
      TIMEZONE: 'UTC',
      WORK_START: '00:00',
      WORK_END: '23:59',
      WRAP_SECONDS: String(p.wrapSeconds),
      // No retry inside the shift: every lead gets at most one call, so both modes face the same list.
      RETRY_SECONDS: '86400',
      RING_TIMEOUT_SECONDS: '30',
      HOLD_TIMEOUT_SECONDS: '30',
      ABANDON_RATE_MAX: String(p.abandonRateMax),
      MAX_DIAL_LEVEL: String(p.maxDialLevel),
      HEARTBEAT_SECONDS: '3600',
      AMI_HOST: '127.0.0.1',
      AMI_PORT: String(sim.port),
      AMI_USERNAME: 'sim',
      AMI_SECRET: 'sim',
    },
    { hostZone: 'UTC' },
  )
  const ami = new AmiClient({
    host: '127.0.0.1',
    port: sim.port,
    username: 'sim',
    secret: 'sim',
    events: true,
  })
  const dialer = new Dialer({
    config,
    db: handle,
    ami,
    logger: pino({ level: 'silent' }),
    dialerId: `sim-${mode}`,
    hostname: 'sim',
    now,
    timing: { claimIdleMs: 20, rosterMs: 50, staleMs: 60_000, expireMs: 25, settleRetryMs: 200 },
  })
  await dialer.start()
  await ami.start()

  const end = SHIFT_START + p.durationMinutes * 60_000
  const shiftAt = SHIFT_START + p.shiftAt * (end - SHIFT_START)
  const samples: Sample[] = []
  let shifted = false
  let nextSample = SHIFT_START
  while (sim.now() < end) {
    const t = sim.now()
    await db
      .updateTable('dialer_employee')
      .set({ panel_seen_at: toDbTime(new Date(t)) })
      .execute()
    if (!shifted && t >= shiftAt) {
      sim.setDefaultOutcome(random(p.answerRateAfter))
      shifted = true
    }
    if (t >= nextSample) {
      const so = summarise(sim.calls, {
        start: SHIFT_START,
        end: t,
        shiftAt,
        agents: p.agents,
        wrapMs: 0,
        complianceMs: config.complianceSeconds * 1000,
      })
      const busy = extensions.filter((e) => sim.agentDeviceState(e) !== 'NOT_INUSE').length
      samples.push({
        minute: Math.round((t - SHIFT_START) / 6000) / 10,
        dialLevel: dialer.governor()?.dialLevel ?? 1,
        abandonRate: so.abandonRate,
        occupancy: busy / p.agents,
      })
      nextSample += p.sampleSeconds * 1000
      onProgress?.((t - SHIFT_START) / 60_000)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  const calls = [...sim.calls]
  // Calls still up at the end finish (they are outside the figures) so every lead is settled.
  await dialer.stop(120_000)
  await ami.close()
  const finished = await db
    .selectFrom('hold_dialer_master_data')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('dial_status', 'in', ['Received', 'Rejected', 'Disposed'])
    .executeTakeFirstOrThrow()
  const archived = await db
    .selectFrom('hold_dialer_disposed')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  const onMaster = await db
    .selectFrom('hold_dialer_master_data')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  const stillReserved = await db
    .selectFrom('hold_dialer_master_data')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('isReserved', '=', 1)
    .executeTakeFirstOrThrow()
  const numbers = new Set(calls.flatMap((c) => (c.number ? [c.number] : [])))
  let worstConcurrency = 0
  for (const n of numbers) worstConcurrency = Math.max(worstConcurrency, sim.maxConcurrentCallsTo(n))
  await sim.close()
  await handle.close()
  await rm(dir, { recursive: true, force: true })
  const figures = summarise(calls, {
    start: SHIFT_START,
    end,
    shiftAt,
    agents: p.agents,
    wrapMs: p.wrapSeconds * 1000,
    complianceMs: config.complianceSeconds * 1000,
  })
  return {
    mode,
    ...figures,
    leadsFinished: Number(finished.n) + Number(archived.n),
    leadsAccounted: Number(onMaster.n) + Number(archived.n),
    leadsStillReserved: Number(stillReserved.n),
    worstConcurrency,
    samples,
  }
}
