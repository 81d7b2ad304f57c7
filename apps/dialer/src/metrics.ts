import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { AGENT_STATES, CALL_PHASES, type LiveState } from './http/live-state.js'
import type { QueueStats } from './sql/queue-stats.js'

/** What the gauges read at each scrape. */
export interface GaugeSources {
  liveState(): LiveState
  /** The lead queue, or undefined when the database did not answer in time. */
  queue(): Promise<QueueStats | undefined>
  databaseAvailable(): boolean
}

/**
 * The dialer's Prometheus metrics (docs/metrics.md), on a registry of its own served at /metrics.
 * Counters and histograms are counted where things happen; gauges are read at scrape time from the
 * live state and one query of the lead queue.
 */
export class DialerMetrics {
  readonly registry = new Registry()
  readonly originates = new Counter({
    name: 'hold_dialer_dialer_originates_total',
    help: 'Originate actions sent, by dial mode and whether the PBX accepted them',
    labelNames: ['mode', 'result'] as const,
    registers: [this.registry],
  })
  readonly outcomes = new Counter({
    name: 'hold_dialer_dialer_outcomes_total',
    help: 'Placed calls settled, by outcome (Received, Not Connected, Rejected, Abandoned, Machine)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  })
  readonly amdVerdicts = new Counter({
    name: 'hold_dialer_dialer_amd_verdicts_total',
    help: 'Answering machine detection verdicts on answered predictive calls, by AMDSTATUS (HUMAN, MACHINE, NOTSURE; none: AMD could not run)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  })
  readonly amdSeconds = new Histogram({
    name: 'hold_dialer_dialer_amd_seconds',
    help: 'Seconds from the answer to the answering machine detection verdict (they count toward COMPLIANCE_SECONDS)',
    buckets: [0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5],
    registers: [this.registry],
  })
  readonly claims = new Counter({
    name: 'hold_dialer_dialer_claims_total',
    help: 'Leads claimed (reserved) by this dialer, by dial mode',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  })
  readonly restores = new Counter({
    name: 'hold_dialer_dialer_restores_total',
    help: 'Leads restored to their previous status because the call was never placed',
    registers: [this.registry],
  })
  readonly releases = new Counter({
    name: 'hold_dialer_dialer_releases_total',
    help: 'Expired reservations released by this dialer, by kind (lead, agent)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  readonly lateResults = new Counter({
    name: 'hold_dialer_dialer_late_results_total',
    help: 'Call results that came back after their lead was released or claimed again (kept on the attempt row, not written to the lead)',
    registers: [this.registry],
  })
  readonly lostResults = new Counter({
    name: 'hold_dialer_dialer_lost_results_total',
    help: 'Calls whose result was lost (crash or pause) when their reservation was released: counted as attempts with result Unknown',
    registers: [this.registry],
  })
  readonly amiReconnects = new Counter({
    name: 'hold_dialer_dialer_ami_reconnects_total',
    help: 'AMI logins after the first',
    registers: [this.registry],
  })
  readonly settleRetries = new Counter({
    name: 'hold_dialer_dialer_settle_retries_total',
    help: 'Call results written again after a failed write',
    registers: [this.registry],
  })
  readonly legsNotCreated = new Counter({
    name: 'hold_dialer_dialer_customer_legs_not_created_total',
    help: 'Calls whose customer channel could not be created (trunk down), by dial mode',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  })
  readonly trunkBreakerTrips = new Counter({
    name: 'hold_dialer_dialer_trunk_breaker_trips_total',
    help: 'Times the trunk breaker opened (TRUNK_BREAKER_FAILURES customer legs in a row not created)',
    registers: [this.registry],
  })
  readonly claimSeconds = new Histogram({
    name: 'hold_dialer_dialer_claim_seconds',
    help: 'Time a claim took in the database, by dial mode and result (claimed, none, error)',
    labelNames: ['mode', 'result'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  })
  readonly ringSeconds = new Histogram({
    name: 'hold_dialer_dialer_ring_seconds',
    help: 'From the originate to the customer answering, answered calls, by dial mode',
    labelNames: ['mode'] as const,
    buckets: [1, 2, 5, 10, 15, 20, 30, 45, 60],
    registers: [this.registry],
  })
  readonly talkSeconds = new Histogram({
    name: 'hold_dialer_dialer_talk_seconds',
    help: 'From the customer and agent being connected to the end of the call, by dial mode',
    labelNames: ['mode'] as const,
    buckets: [5, 15, 30, 60, 120, 300, 600, 1200, 3600],
    registers: [this.registry],
  })
  readonly holdSeconds = new Histogram({
    name: 'hold_dialer_dialer_hold_seconds',
    help: 'Predictive: an answered customer on hold before an agent, by result (connected, abandoned)',
    labelNames: ['result'] as const,
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60],
    registers: [this.registry],
  })

  /** Counts scrapes (`text()`): the gauges of one scrape read their sources once, together. */
  #scrape = 0

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry })
  }

  /** The metrics page: every gauge of it read from the same live state and queue query. */
  text(): Promise<string> {
    this.#scrape += 1
    return this.registry.metrics()
  }

  /**
   * Reads a source once per scrape: the gauges are collected concurrently and share the reading. A
   * collection not started by `text()` (the registry read directly) reads again after 250 ms.
   */
  #oncePerScrape<T>(read: () => T): () => T {
    let scrape = -1
    let at = Number.NEGATIVE_INFINITY
    let value: T
    return () => {
      const now = performance.now()
      if (scrape !== this.#scrape || now - at > 250) {
        value = read()
        scrape = this.#scrape
        at = now
      }
      return value
    }
  }

  /** Registers the gauges, read from `sources` at each scrape. */
  watch(sources: GaugeSources, options: { predictive: boolean; pbx?: string }): void {
    const live = this.#oncePerScrape(() => sources.liveState())
    const queue = this.#oncePerScrape(() => sources.queue())
    const r = [this.registry]
    // Always 1: the PBX this dialer serves (PBX_NAME), to group the other series by PBX.
    new Gauge({
      name: 'hold_dialer_dialer_pbx',
      help: 'The PBX this dialer serves (PBX_NAME), as its label; always 1',
      labelNames: ['pbx'] as const,
      registers: r,
    }).set({ pbx: options.pbx ?? 'default' }, 1)
    new Gauge({
      name: 'hold_dialer_dialer_agents',
      help: 'Agents on the roster by state (idle, ringing, talking, wrap-up, paused, resting, unavailable)',
      labelNames: ['state'] as const,
      registers: r,
      collect() {
        const counts = new Map<string, number>(AGENT_STATES.map((s) => [s, 0]))
        for (const a of live().agents) counts.set(a.state, (counts.get(a.state) ?? 0) + 1)
        for (const [state, n] of counts) this.set({ state }, n)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_calls',
      help: "This dialer's calls in progress by phase (dialing, ringing, answered, on-hold, connected)",
      labelNames: ['phase'] as const,
      registers: r,
      collect() {
        const counts = new Map<string, number>(CALL_PHASES.map((p) => [p, 0]))
        for (const c of live().calls) counts.set(c.phase, (counts.get(c.phase) ?? 0) + 1)
        for (const [phase, n] of counts) this.set({ phase }, n)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_reserved_leads',
      help: 'Leads this dialer holds reserved for its calls in progress',
      registers: r,
      collect() {
        this.set(live().reservedLeads)
      },
    })
    // Progressive mode has no governor: these series are absent rather than a misleading 0.
    const predictive = (name: string, help: string, read: (s: LiveState) => number | null) =>
      options.predictive &&
      new Gauge({
        name,
        help,
        registers: r,
        collect() {
          this.set(read(live()) ?? 0)
        },
      })
    predictive('hold_dialer_dialer_dial_level', 'Predictive: lines dialed per idle agent', (s) => s.dialLevel)
    predictive(
      'hold_dialer_dialer_abandon_rate',
      'Predictive: abandoned / answered calls in the abandon window (ABANDON_WINDOW)',
      (s) => s.abandonRate,
    )
    predictive(
      'hold_dialer_dialer_abandon_rate_max',
      'Predictive: the abandon-rate cap (ABANDON_RATE_MAX)',
      (s) => s.abandonRateMax,
    )
    new Gauge({
      name: 'hold_dialer_dialer_trunk_breaker_open',
      help: '1 while the trunk breaker holds the dialing (customer calls cannot be placed), else 0',
      registers: r,
      collect() {
        this.set(live().trunk.state === 'open' ? 1 : 0)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_ami_connected',
      help: '1 while the AMI connection is logged in, else 0',
      registers: r,
      collect() {
        this.set(live().ami.connected ? 1 : 0)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_database_available',
      help: '1 while the last thing the dialer tried on the database worked, else 0',
      registers: r,
      collect() {
        this.set(sources.databaseAvailable() ? 1 : 0)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_queue_up',
      help: '1 when the lead-queue query of this scrape answered in time; 0: the queue gauges are absent',
      registers: r,
      async collect() {
        this.set((await queue()) ? 1 : 0)
      },
    })
    new Gauge({
      name: 'hold_dialer_dialer_queue_leads',
      help: 'Leads in the lead table by category (due_callback, due_retry, pending, reserved) and priority id',
      labelNames: ['category', 'priority'] as const,
      registers: r,
      async collect() {
        this.reset()
        const q = await queue()
        if (!q) return
        for (const [category, counts] of [
          ['due_callback', q.dueCallbacks],
          ['due_retry', q.dueRetries],
          ['pending', q.pending],
          ['reserved', q.reserved],
        ] as const) {
          for (const [priority, n] of counts) this.set({ category, priority: String(priority) }, n)
        }
      },
    })
  }
}
