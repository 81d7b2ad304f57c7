import type { FastifyInstance } from 'fastify'
import type { Dialer } from '../dialer.js'
import type { DialerHealth } from './server.js'

/** /healthz's body: the AMI connection's and the database's state. */
export function dialerHealth(dialer: Dialer, ami: { state: string }): DialerHealth {
  return {
    dialer: dialer.dialerId,
    ami: ami.state,
    database: dialer.databaseAvailable ? 'available' : 'unavailable',
    trunk: dialer.trunk(),
    idle: dialer.idle(),
  }
}

/** GET /live-state (secured): the dialer's live state as JSON (http/live-state.ts). */
export function liveStateRoute(dialer: Dialer) {
  return (app: FastifyInstance) => {
    app.get('/live-state', async () => dialer.liveState())
  }
}

/** GET /metrics (secured): the dialer's metrics in Prometheus text format (docs/metrics.md). */
export function metricsRoute(dialer: Dialer) {
  return (app: FastifyInstance) => {
    app.get('/metrics', async (_request, reply) => {
      reply.type(dialer.metrics.registry.contentType)
      return dialer.metrics.text()
    })
  }
}
