import { Counter, Registry } from 'prom-client'

/** Counters since start, shown in the detailed health and served as Prometheus text at /metrics. */
export class ApiMetrics {
  readonly registry = new Registry()
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

  /** A flat `{ "name{label=value}": n }` view for the health body. */
  async snapshot(): Promise<Record<string, number>> {
    const out: Record<string, number> = {}
    for (const metric of await this.registry.getMetricsAsJSON()) {
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
