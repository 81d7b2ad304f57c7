import type { ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { CenterSnapshot } from './center-query.js'

/** What the console needs of the dialer's live state (`http/live-state.ts` gives more). */
export interface ConsoleLive {
  dialerId: string
  at: number
  dialMode: string
  ami: { connected: boolean; state: string; since: number }
  agents: { agentId: number; state: string; since: number; leadId: number | null; why?: string | null }[]
  calls: { leadId: number; agentId: number | null; phase: string; startedAt: number; phaseSince: number }[]
  reservedLeads: number
  dialLevel: number | null
  abandonRate: number | null
  abandonRateMax: number | null
  /** The trunk breaker (calls/trunk-breaker.ts): `open` while customer calls cannot be placed. */
  trunk: {
    state: 'closed' | 'open'
    failures: number
    since: number | null
    nextProbeAt: number | null
    trying: boolean
  }
  /** While nothing is dialed: since when, and why (idle/idle-report.ts). */
  idle?: { since: string; reasons: { code: string; text: string }[] } | null
}

const PROBLEM = { message: 'the database could not be read; retrying' }

/** Bytes of updates a screen may leave unread before it is dropped. */
const MAX_BUFFERED = 1_000_000

/** One sample of the dial-level history. */
export interface DialLevelSample {
  at: number
  dialLevel: number | null
  calls: number
  talking: number
  idle: number
}

export interface ConsoleHubOptions {
  live: () => ConsoleLive
  center: () => Promise<CenterSnapshot>
  logger: Logger
  /** How often the live state is compared with the last one sent (the most updates a client gets). */
  livePollMs: number
  /** How often the database half is read again while someone watches. */
  centerPollMs: number
  /** A comment line every so often, so proxies and browsers keep an idle stream open. */
  keepAliveMs: number
  /** The dial-level history: one sample per `sampleMs`, `samples` kept. */
  sampleMs: number
  samples: number
}

/**
 * Feeds every open console: one timer set shared by all of them (the database is read once per period
 * whatever the number of screens), running only while a screen is open, except the dial-level sampler,
 * which runs from the dialer's start so the chart has history when the first supervisor looks.
 *
 * Live updates: the dialer's state is cheap to take (no I/O), so it is taken every `livePollMs` and
 * sent only when it differs from the last one sent. That bounds updates to 1000/livePollMs a second
 * without a hook in every place the dialer changes a call or an agent.
 */
export class ConsoleHub {
  readonly #o: ConsoleHubOptions
  readonly #clients = new Set<ServerResponse>()
  readonly #history: DialLevelSample[] = []
  #sampler: NodeJS.Timeout | undefined
  #timers: NodeJS.Timeout[] = []
  #lastLive = ''
  #centerRead: Promise<CenterSnapshot> | undefined
  #closed = false

  constructor(options: ConsoleHubOptions) {
    this.#o = options
  }

  /** Starts the dial-level sampler (a sample now, then one per period). */
  start(): void {
    if (this.#sampler || this.#closed) return
    this.#sample()
    this.#sampler = setInterval(() => this.#sample(), this.#o.sampleMs)
    this.#sampler.unref()
  }

  get clientCount(): number {
    return this.#clients.size
  }

  get history(): readonly DialLevelSample[] {
    return this.#history
  }

  /** The whole picture: live state, database half (read now) and the dial-level history. */
  async snapshot(): Promise<{
    live: ConsoleLive
    center: CenterSnapshot
    history: readonly DialLevelSample[]
  }> {
    const center = await this.#readCenter()
    return { live: this.#o.live(), center, history: this.#history }
  }

  /**
   * Takes over `res` as an event stream: the full snapshot first, then updates until either side ends.
   * The screen joins the broadcast only after its snapshot, so no update reaches it before the picture
   * it updates.
   */
  async attach(res: ServerResponse): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The stream ends the connection with it, so a shutdown is not left waiting on a keep-alive socket.
      connection: 'close',
      // nginx: pass each event on as it comes.
      'x-accel-buffering': 'no',
    })
    res.write('retry: 3000\n\n')
    let frame: string
    try {
      frame = event('snapshot', await this.snapshot())
    } catch (err) {
      this.#o.logger.warn({ err }, 'console: snapshot failed')
      // The live half still shows; the database half follows with the next `center` event.
      frame = event('problem', PROBLEM) + event('live', this.#o.live())
    }
    if (res.destroyed || res.writableEnded) return
    if (this.#closed) {
      res.end()
      return
    }
    res.write(frame)
    this.#clients.add(res)
    const drop = () => this.#detach(res)
    res.on('close', drop)
    res.on('error', drop)
    this.#ensureTimers()
  }

  /** Ends every stream and stops every timer (the listener is closing). */
  close(): void {
    this.#closed = true
    if (this.#sampler) clearInterval(this.#sampler)
    this.#sampler = undefined
    this.#stopTimers()
    for (const res of this.#clients) res.end()
    this.#clients.clear()
  }

  #detach(res: ServerResponse): void {
    this.#clients.delete(res)
    if (this.#clients.size === 0) this.#stopTimers()
  }

  #ensureTimers(): void {
    if (this.#timers.length > 0) return
    const every = (ms: number, fn: () => void) => {
      const timer = setInterval(fn, ms)
      timer.unref()
      this.#timers.push(timer)
    }
    every(this.#o.livePollMs, () => this.#pushLive())
    every(this.#o.centerPollMs, () => void this.#pushCenter())
    every(this.#o.keepAliveMs, () => {
      for (const res of this.#clients) res.write(': keep-alive\n\n')
    })
  }

  #stopTimers(): void {
    for (const timer of this.#timers) clearInterval(timer)
    this.#timers = []
  }

  #pushLive(): void {
    let live: ConsoleLive
    try {
      live = this.#o.live()
    } catch (err) {
      this.#o.logger.warn({ err }, 'console: live state failed')
      return
    }
    const key = liveKey(live)
    if (key === this.#lastLive) return
    this.#lastLive = key
    this.#broadcast('live', live)
  }

  async #pushCenter(): Promise<void> {
    try {
      const center = await this.#readCenter()
      this.#broadcast('center', { center, history: this.#history })
    } catch (err) {
      this.#o.logger.warn({ err }, 'console: database read failed')
      this.#broadcast('problem', PROBLEM)
    }
  }

  /** One read at a time: screens opened together share it. */
  #readCenter(): Promise<CenterSnapshot> {
    if (!this.#centerRead) {
      this.#centerRead = this.#o.center().finally(() => {
        this.#centerRead = undefined
      })
    }
    return this.#centerRead
  }

  #broadcast(name: string, data: unknown): void {
    if (this.#clients.size === 0) return
    const text = event(name, data)
    for (const res of this.#clients) {
      // A screen that stopped reading (its updates piling up here) is dropped; it reconnects by itself.
      if (res.writableLength > MAX_BUFFERED) res.destroy()
      else res.write(text)
    }
  }

  #sample(): void {
    try {
      const live = this.#o.live()
      this.#history.push({
        at: live.at,
        dialLevel: live.dialLevel,
        calls: live.calls.length,
        talking: live.agents.filter((a) => a.state === 'talking').length,
        idle: live.agents.filter((a) => a.state === 'idle').length,
      })
      if (this.#history.length > this.#o.samples)
        this.#history.splice(0, this.#history.length - this.#o.samples)
    } catch (err) {
      this.#o.logger.warn({ err }, 'console: dial-level sample failed')
    }
  }
}

/** The live state without the moment it was taken: two takes of an unchanged dialer compare equal. */
function liveKey(live: ConsoleLive): string {
  return JSON.stringify({ ...live, at: 0 })
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}
