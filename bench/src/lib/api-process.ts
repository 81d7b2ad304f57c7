import { type Child, startNode, waitFor } from './child.js'
import { assertPortFree } from './port-free.js'

export const BENCH_SECRET = 'bench-secret'

export interface ApiOptions {
  databaseUrl: string
  port: number
  logLevel: string
  redisUrl?: string
  /** Honour X-Forwarded-For, so one load generator can act as many clients. */
  trustProxy?: boolean
  name?: string
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[]
}

/**
 * Runs the built API as its own process (`node apps/api/dist/server.js`), as deployed. The working
 * window is open all day so a push's reset is the same at any hour the bench runs.
 */
export async function startApi(o: ApiOptions): Promise<Child> {
  await assertPortFree(o.port)
  const api = startNode(
    o.name ?? 'api',
    'apps/api/dist/server.js',
    {
      DATABASE_URL: o.databaseUrl,
      WS_SECRET: BENCH_SECRET,
      HOST: '127.0.0.1',
      PORT: String(o.port),
      LOG_LEVEL: o.logLevel,
      TIMEZONE: 'UTC',
      WORK_START: '00:00',
      WORK_END: '23:59',
      DB_MIGRATE_ON_START: 'false',
      ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
      ...(o.trustProxy ? { TRUST_PROXY: 'true' } : {}),
    },
    o.nodeArgs,
  )
  await waitFor(
    `${api.name} on port ${o.port}`,
    async () => (await fetch(`http://127.0.0.1:${o.port}/healthz`)).status > 0,
    20_000,
    api,
  )
  return api
}
