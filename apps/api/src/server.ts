import { readFileSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { connectOrExit, DatabaseAvailability } from '@hold-dialer/db'
import {
  ConfigError,
  chooseLogFormat,
  daemonCommandLine,
  describeConfig,
  parseConfig,
} from '@hold-dialer/rules'
import { Redis } from 'ioredis'
import pino from 'pino'
import pretty from 'pino-pretty'
import { amiHealthConnection } from './ami-status.js'
import { buildApp } from './app.js'
import { WarnLogBuffer } from './log-buffer.js'
import { ApiMetrics } from './metrics.js'

// The old generation may grow to 1.5 times what the last full collection left, instead of V8's own
// factor (up to 4). Under 500-lead batch pushes each request's data outlives a young collection or
// two and is promoted: the heap went to 115 MiB of old space with 40 MiB live, and the process's
// peak resident set to 160-230 MiB from one run to the next. With this factor it was 148-171 MiB in
// six runs across both engines, batch ratios unchanged. V8 reads the factor each time it sets the
// next limit, so setting it here, before any load, takes effect in every way the API is started.
setFlagsFromString('--heap-growing-percent=50')

const commandLine = daemonCommandLine('api', process.argv.slice(2))
if (commandLine) {
  ;(commandLine.exitCode === 0 ? process.stdout : process.stderr).write(`${commandLine.text}\n`)
  process.exit(commandLine.exitCode)
}

/** Process concerns only: configuration, logger, listen, graceful shutdown. */
const version = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

function loadConfig() {
  try {
    const config = parseConfig(process.env, { hostZone: Intl.DateTimeFormat().resolvedOptions().timeZone })
    if (!config.wsSecret)
      throw new ConfigError(['WS_SECRET must be set: the API refuses to start without a shared secret'])
    return config
  } catch (error) {
    process.stderr.write(`api: configuration error: ${(error as Error).message}\n`)
    process.exit(2)
  }
}

const config = loadConfig()
const logs = new WarnLogBuffer(50)
const logger = pino(
  {
    level: config.logLevel,
    name: 'api',
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-access-key"]',
        '*.secret',
        '*.password',
      ],
      censor: '[redacted]',
    },
  },
  pino.multistream([
    {
      // LOG_FORMAT, or by default pretty on a terminal and JSON for systemd and pipes.
      stream:
        chooseLogFormat(config.logFormat, process.stdout.isTTY === true) === 'pretty'
          ? pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
          : process.stdout,
    },
    { level: 'warn', stream: logs },
  ]),
)

const db = connectOrExit(config.databaseUrl, logger)
// The API starts whether or not the database answers (DECISIONS section 3): requests get 503
// `database_unavailable` until it does, and migrations run as soon as it does. One try is awaited
// before listening, so a database that is up is ready by the time the first request comes.
const availability = new DatabaseAvailability({ db, log: logger, migrate: config.dbMigrateOnStart })
const databaseStarted = availability.start()
await availability.firstTry
const ami = amiHealthConnection(config)
const redis = config.redisUrl
  ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
  : undefined
redis?.on('error', (err) => logger.warn({ err }, 'redis error (rate limit falls open)'))
const app = await buildApp(
  {
    config,
    db,
    availability,
    ami,
    metrics: new ApiMetrics({ defaultMetrics: true }),
    logs,
    now: () => new Date(),
    version,
    startedAt: new Date(),
  },
  { logger, ...(redis ? { redis } : {}) },
)

let closing = false
async function shutdown(signal: string) {
  if (closing) return
  closing = true
  logger.info({ signal }, 'shutting down: no new requests, finishing in-flight ones')
  const force = setTimeout(() => {
    logger.error('shutdown took over 10 s; exiting')
    process.exit(1)
  }, 10_000)
  force.unref()
  // Keep-alive connections that finish their last request after close() began would otherwise
  // linger for the keep-alive timeout; close each as soon as it is idle.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100)
  await app.close()
  clearInterval(sweep)
  availability.close()
  await ami.close()
  redis?.disconnect()
  await db.close()
  logger.info('stopped')
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))

if (config.trustProxy === true) {
  logger.warn(
    'TRUST_PROXY=true trusts every X-Forwarded-For hop: clients then choose their own address, and with it ' +
      "their rate-limit bucket. Set the proxy hop count or the proxies' addresses instead.",
  )
}
try {
  await app.listen({ host: config.host, port: config.port })
} catch (err) {
  // The port taken (another API, or another program), or one this user may not open: one line that
  // says what to do, the error whole with it, and a stop (systemd restarts it; `pnpm start` stops).
  const code = (err as NodeJS.ErrnoException).code
  const where = `${config.host}:${config.port}`
  logger.fatal(
    { err },
    code === 'EADDRINUSE'
      ? `cannot listen on ${where}: the port is in use; stop what listens there, or set PORT (or HOST)`
      : `cannot listen on ${where} (${code ?? 'error'}): set PORT and HOST to an address this user may open`,
  )
  process.exit(1)
}
// One line at info (where it listens, on which database); the whole configuration, secrets masked,
// at debug: pretty-printed at a terminal it was some 75 lines before the system was ready.
const shown = describeConfig(config)
logger.info({ url: `http://${config.host}:${config.port}`, database: shown.databaseUrl }, 'api listening')
logger.debug({ config: shown }, 'configuration')
databaseStarted.then(
  (result) =>
    logger.info(
      { applied: result?.applied.length ?? 0 },
      config.dbMigrateOnStart ? 'database migrated' : 'database ready',
    ),
  (err: unknown) => {
    // Not an availability problem (a migration that fails, say): waiting will not fix it.
    logger.fatal({ err }, 'database start-up failed; stopping')
    process.exitCode = 1
    void shutdown('database start-up failure')
  },
)
