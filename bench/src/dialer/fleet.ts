import type { Database } from '@hold-dialer/db'
import { type PbxSim, type PbxSimOptions, startPbxSim } from '@hold-dialer/pbx-sim'
import type { Kysely } from 'kysely'
import { type Child, startNode } from '../lib/child.js'
import { nowStamp } from '../lib/master-row.js'

const AMI_USER = 'dialer'
const AMI_SECRET = 'dialer-pass'

/** Desk extensions of `count` agents: 6001, 6002, ... */
export const agentExtensions = (count: number) => Array.from({ length: count }, (_, i) => String(6001 + i))

/**
 * A simulated PBX with every agent's desk idle. Calls run 200x faster than real time (a 3 s ring and
 * 8 s talk take about 55 ms), so a few dozen agents produce a claim load in the hundreds per second.
 * `options` are laid over these (a port, the customers' own outcomes, a seed).
 */
export function startSim(
  extensions: readonly string[],
  timeScale = 200,
  options: PbxSimOptions = {},
): Promise<PbxSim> {
  return startPbxSim({
    port: 0,
    users: { [AMI_USER]: AMI_SECRET },
    timeScale,
    agentExtensions: [...extensions],
    agentAnswerSeconds: 1,
    defaultOutcome: {
      kind: 'random',
      answerProbability: 0.4,
      busyProbability: 0.3,
      ringSeconds: { mean: 3 },
      talkSeconds: { mean: 8 },
    },
    ...options,
  })
}

/** Ready agents on the roster, one per desk. */
export async function seedAgents(db: Kysely<Database>, extensions: readonly string[]): Promise<void> {
  await db
    .insertInto('dialer_employee')
    .values(
      extensions.map((extension) => ({
        name: `Agent ${extension}`,
        extension,
        email: `${extension}@example.test`,
        presence: 'ready' as const,
        panel_seen_at: nowStamp(),
        wrap_until: null,
      })),
    )
    .execute()
}

/** Stands for the agents' panels: an agent counts as present while seen in the last 30 s. */
export function keepPanelsAlive(db: Kysely<Database>): () => void {
  const timer = setInterval(() => {
    void db
      .updateTable('dialer_employee')
      .set({ panel_seen_at: nowStamp() })
      .execute()
      .catch((err: unknown) => process.stderr.write(`agents' panels not refreshed: ${String(err)}\n`))
  }, 5_000)
  return () => clearInterval(timer)
}

/** How a dialer process is started: the build (`apps/dialer/dist/main.js`) or the sources through tsx. */
export type DialerSource = 'dist' | 'src'

/**
 * Runs the built dialer (`node apps/dialer/dist/main.js`) against the simulator; `source: 'src'` runs
 * its sources instead (`--conditions=hold-dialer-src --import tsx`, as the dialer's own fault tests do),
 * so a test exercises the code as it is rather than its last build. `env` is laid over the defaults.
 */
export function startDialer(o: {
  id: string
  databaseUrl: string
  sim: PbxSim
  logLevel: string
  env?: Record<string, string>
  source?: DialerSource
  onLine?: (line: string) => void
}): Child {
  const env = {
    DATABASE_URL: o.databaseUrl,
    DIALER_ID: o.id,
    // Other dialers run on this host at the same time: this one does not listen (DIALER_HTTP_PORT).
    DIALER_HTTP_PORT: '0',
    AMI_HOST: '127.0.0.1',
    AMI_PORT: String(o.sim.port),
    AMI_USERNAME: AMI_USER,
    AMI_SECRET: AMI_SECRET,
    TIMEZONE: 'UTC',
    WORK_START: '00:00',
    WORK_END: '23:59',
    // Numbers are dialed at any hour here: the customers' calling hours are off too.
    CALLING_HOURS: 'off',
    WRAP_SECONDS: '0',
    RETRY_SECONDS: '0',
    RETRY_PATTERN: '[3]',
    MAX_TRIES: '3',
    DB_MIGRATE_ON_START: 'false',
    LOG_LEVEL: o.logLevel,
    ...o.env,
  }
  return o.source === 'src'
    ? startNode(
        o.id,
        'apps/dialer/src/main.ts',
        env,
        ['--conditions=hold-dialer-src', '--import', 'tsx'],
        o.onLine,
      )
    : startNode(o.id, 'apps/dialer/dist/main.js', env, [], o.onLine)
}

/**
 * The worst number of simultaneous calls to any one number the simulator saw. Every lead has its own
 * number, so anything above 1 is a lead dialed twice at once: a double claim.
 */
export function worstConcurrentCallsPerNumber(sim: PbxSim): number {
  return Math.max(0, ...numbersCalledAtOnce(sim).values())
}

/** The numbers the simulator saw more than one call to at a time, with the most at once. */
export function numbersCalledAtOnce(sim: PbxSim): Map<string, number> {
  const out = new Map<string, number>()
  for (const n of new Set(sim.calls.flatMap((c) => (c.number ? [c.number] : [])))) {
    const most = sim.maxConcurrentCallsTo(n)
    if (most > 1) out.set(n, most)
  }
  return out
}
