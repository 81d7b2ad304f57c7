import { parseArgs } from 'node:util'

export interface ScaleOptions {
  seconds: number
  apiInstances: number
  dialers: number
  agents: number
  /**
   * PBXs (pbx-sims): agents and dialers are shared out among them in turn (PBX_NAME `pbx-1`...);
   * 1 is the one-PBX centre (no PBX_NAME set).
   */
  pbxs: number
  /** autocannon connections per API instance. */
  connections: number
  /** Leads per push request: half new, half already pushed. */
  batch: number
  redisUrl: string
  logLevel: string
  port: number
  out: string
  smoke: boolean
}

export const SCALE_USAGE = `Usage: pnpm bench:scale [--duration 3m] [--connections 2] [--batch 20] [--agents 30] [--pbxs 1]
  [--redis redis://127.0.0.1:6379] [--log-level warn] [--port 3200] [--out bench-results/scale.json] [--smoke]`

export const SCALE_OPTIONS = {
  duration: { type: 'string' },
  connections: { type: 'string' },
  batch: { type: 'string' },
  agents: { type: 'string' },
  pbxs: { type: 'string' },
  redis: { type: 'string' },
  'log-level': { type: 'string' },
  port: { type: 'string' },
  out: { type: 'string' },
  smoke: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

/** `3m`, `90s` or a plain number of seconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(raw.trim())
  if (!m) throw new Error(`--duration: expected e.g. 3m, 90s or 90, got ${raw}\n${SCALE_USAGE}`)
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1)
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`--${name}: expected a whole number > 0, got ${raw}\n${SCALE_USAGE}`)
  return n
}

export function parseScaleOptions(argv: string[]): ScaleOptions {
  const { values } = parseArgs({
    // `pnpm bench:scale -- --duration 10m` passes the `--` on.
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: SCALE_OPTIONS,
    strict: true,
  })
  if (values.help) throw new Error(SCALE_USAGE)
  const smoke = values.smoke ?? false
  return {
    seconds: parseDuration(values.duration ?? (smoke ? '15s' : '3m')),
    apiInstances: 2,
    dialers: 3,
    agents: positive('agents', values.agents, 30),
    pbxs: positive('pbxs', values.pbxs, 1),
    connections: positive('connections', values.connections, 2),
    batch: positive('batch', values.batch, 20),
    redisUrl: values.redis ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    logLevel: values['log-level'] ?? 'warn',
    port: positive('port', values.port, 3200),
    out: values.out ?? (smoke ? 'bench-results/scale-smoke.json' : 'bench-results/scale.json'),
    smoke,
  }
}
