import { AmiClient } from '@hold-dialer/ami'
import type { Config } from '@hold-dialer/rules'
import type { AmiStatusSource } from './context.js'

/** With no AMI_HOST the API reports `ami: false` (never pretends a PBX is there). */
export function notConfiguredAmi(): AmiStatusSource {
  return {
    status: () => ({
      configured: false,
      connected: false,
      host: null,
      port: null,
      lastPingMs: null,
      lastPingAt: null,
      lastError: 'AMI_HOST is not set',
      since: null,
    }),
    close: async () => {},
  }
}

/**
 * The API's own AMI connection, for health only: events off, Ping every AMI_PING_SECONDS, reconnect
 * with capped backoff. It never originates. Not awaited at start: the API serves leads while the PBX
 * is down and reports it in the health endpoints.
 */
export function amiHealthConnection(config: Config): AmiStatusSource {
  if (!config.ami.host) return notConfiguredAmi()
  const client = new AmiClient({
    host: config.ami.host,
    port: config.ami.port,
    username: config.ami.username ?? '',
    secret: config.ami.secret ?? '',
    events: false,
    pingIntervalMs: config.amiPingSeconds * 1000,
    actionTimeoutMs: config.amiActionTimeoutMs,
    actionIdPrefix: `api-${process.pid}`,
  })
  void client.start()
  return {
    status: () => {
      const s = client.status()
      return {
        configured: true,
        connected: s.state === 'connected',
        host: s.host,
        port: s.port,
        lastPingMs: s.lastPingMs,
        lastPingAt: s.lastPingAt,
        lastError: s.lastError,
        since: s.since,
      }
    },
    close: () => client.close(),
  }
}
