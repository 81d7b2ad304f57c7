import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/**
 * Counters since start, shown in the detailed health and served as Prometheus text at /metrics with
 * the request durations and, for a server, the process defaults (docs/metrics.md).
 */
export class ApiMetrics {
  readonly registry = new Registry()
  readonly requestSeconds = new Histogram({
    name: 'hold_dialer_api_request_duration_seconds',
    help: 'Time to answer a request, by route pattern and HTTP status',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  })
  readonly responses = new Counter({
    name: 'hold_dialer_api_responses_total',
    help: 'Responses by route and HTTP status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  })
  readonly leads = new Counter({
    name: 'hold_dialer_api_leads_total',
    help: 'Pushed leads by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })
  readonly ticketWrites = new Counter({
    name: 'hold_dialer_api_lead_writes_total',
    help: 'Ticket and callback writes by action',
    labelNames: ['action'] as const,
    registers: [this.registry],
  })
  readonly dbRetries = new Counter({
    name: 'hold_dialer_api_db_retries_total',
    help: 'Transactions run again after a retryable database error',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  })

  /** `defaultMetrics`: the process's own (CPU, memory, event loop, ...), for a server. */
  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry })
  }

  /** A flat `{ "name{label=value}": n }` view of the API's counters for the health body. */
  async snapshot(): Promise<Record<string, number>> {
    const out: Record<string, number> = {}
    for (const metric of await this.registry.getMetricsAsJSON()) {
      if (String(metric.type) !== 'counter' || !metric.name.startsWith('hold_dialer_api_')) continue
      for (const v of metric.values) {
        const labels = Object.entries(v.labels)
          .map(([k, val]) => `${k}=${val}`)
          .join(',')
        out[labels ? `${metric.name}{${labels}}` : metric.name] = v.value
      }
    }
    return out
  }
}
