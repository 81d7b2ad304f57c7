import { hostname } from 'node:os'
import { AmiClient } from '@hold-dialer/ami'
import { connectOrExit, DatabaseAvailability } from '@hold-dialer/db'
import { chooseLogFormat, daemonCommandLine, describeConfig, parseConfig } from '@hold-dialer/rules'
import pino from 'pino'
import pretty from 'pino-pretty'
import { Dialer } from './dialer.js'
import { agentRoutes } from './http/agent/plugin.js'
import { consoleRoutes } from './http/console/plugin.js'
import { dialerHealth, liveStateRoute, metricsRoute } from './http/routes.js'
import { startDialerHttp } from './http/server.js'
import { RnrMailer } from './mail/rnr-mailer.js'
import { DialerMetrics } from './metrics.js'

const commandLine = daemonCommandLine('dialer', process.argv.slice(2))
if (commandLine) {
  ;(commandLine.exitCode === 0 ? process.stdout : process.stderr).write(`${commandLine.text}\n`)
  process.exit(commandLine.exitCode)
}

/** Process concerns only: configuration, logger, AMI connection, graceful shutdown. */
function loadConfig() {
  try {
    const config = parseConfig(process.env, { hostZone: Intl.DateTimeFormat().resolvedOptions().timeZone })
    const missing = (['host', 'username', 'secret'] as const).filter((k) => !config.ami[k])
    if (missing.length > 0) {
      throw new Error(`the dialer needs ${missing.map((k) => `AMI_${k.toUpperCase()}`).join(', ')}`)
    }
    return config
  } catch (error) {
    process.stderr.write(`dialer: configuration error: ${(error as Error).message}\n`)
    process.exit(2)
  }
}

const config = loadConfig()
// The reservation owner must survive a restart (DECISIONS section 8: a dialer releases its own stale
// reservations when it starts), so the default is the host name, not the pid.
const dialerId = config.dialerId ?? hostname()
const logger = pino(
  {
    level: config.logLevel,
    name: 'dialer',
    base: { dialer: dialerId },
    redact: ['*.secret', '*.password'],
  },
  // LOG_FORMAT, or by default pretty on a terminal and JSON for systemd and pipes.
  chooseLogFormat(config.logFormat, process.stdout.isTTY === true) === 'pretty'
    ? pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
    : pino.destination(1),
)

const db = connectOrExit(config.databaseUrl, logger)
// The dialer starts whether or not the database answers (DECISIONS section 3, "Database
// unavailable"): it waits, logging once a minute with the host, database and the server's message,
// migrates as soon as the database answers, and only then claims anything.
const availability = new DatabaseAvailability({ db, log: logger, migrate: config.dbMigrateOnStart })

const ami = new AmiClient({
  host: config.ami.host!,
  port: config.ami.port,
  username: config.ami.username!,
  secret: config.ami.secret!,
  events: true,
  pingIntervalMs: config.amiPingSeconds * 1000,
  actionTimeoutMs: config.amiActionTimeoutMs,
  actionIdPrefix: `${dialerId}-${process.pid}`,
})
const metrics = new DialerMetrics({ defaultMetrics: true })
const dialer = new Dialer({ config, db, ami, logger, dialerId, hostname: hostname(), availability, metrics })
const mailer = new RnrMailer({ db: db.kysely, smtp: config.smtp, logger })
let http: Awaited<ReturnType<typeof startDialerHttp>>
try {
  http = await startDialerHttp({
    host: config.dialerHttpHost,
    port: config.dialerHttpPort,
    secret: config.dialerHttpSecret,
    trustProxy: config.trustProxy,
    logger,
    health: () => dialerHealth(dialer, ami),
    secured: [liveStateRoute(dialer), metricsRoute(dialer)],
    ownAuth: [
      consoleRoutes({
        db: db.kysely,
        live: () => dialer.liveState(),
        timezone: config.timezone,
        pbx: config.pbxName,
        logger: logger.child({ component: 'console' }),
      }),
    ],
    open: [
      agentRoutes({
        db: db.kysely,
        live: () => dialer.liveState(),
        pauseReasons: config.agentPauseReasons,
        callbackMode: config.callbackMode,
        timezone: config.timezone,
        logger: logger.child({ component: 'agent-interface' }),
      }),
    ],
  })
} catch (err) {
  // The port taken (a second dialer on this host without its own DIALER_HTTP_PORT, say): dialing
  // is the dialer's work and goes on; what is lost is /healthz and /metrics, which a scrape shows.
  logger.error(
    { err },
    'the dialer HTTP listener did not start: no /healthz or /metrics (set DIALER_HTTP_PORT)',
  )
}
// The listener is up before the wait for the database, so /healthz reports a database that does not
// answer (and /metrics the dialer's state) instead of refusing connections.
try {
  const result = await availability.start()
  logger.info(
    { applied: result?.applied.length ?? 0 },
    config.dbMigrateOnStart ? 'database migrated' : 'database ready',
  )
} catch (err) {
  // Not an availability problem (a migration that fails, say): waiting will not fix it.
  logger.fatal({ err }, 'database start-up failed; stopping')
  process.exit(1)
}

await dialer.start()
mailer.start()
void ami.start()
// One line at info; the whole configuration, secrets masked, at debug (see the API's server.ts).
const shown = describeConfig(config)
logger.info(
  {
    http: http?.url ?? 'off',
    mode: config.dialMode,
    ami: `${config.ami.host}:${config.ami.port}`,
    database: shown.databaseUrl,
  },
  'dialer started',
)
logger.debug({ config: shown }, 'configuration')
if (!config.outboundCallerId) {
  logger.warn(
    'OUTBOUND_CALLER_ID is unset: customers are called with no caller ID from the dialer (the trunk may set its own)',
  )
}

let closing = false
async function shutdown(signal: string) {
  if (closing) return
  closing = true
  logger.info(
    { signal, activeCalls: dialer.activeCalls },
    'stopping: no new claims, letting calls in progress finish',
  )
  await dialer.stop(15_000)
  // Closed after the calls in progress are settled, so their end can still be scraped.
  await http?.app.close()
  await mailer.stop()
  availability.close()
  await ami.close()
  await db.close()
  logger.info('stopped')
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
