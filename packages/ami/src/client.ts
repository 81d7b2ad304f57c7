import { EventEmitter } from 'node:events'
import AsteriskManager, { type AmiMessage } from 'asterisk-manager'

export type { AmiMessage }

export interface AmiClientOptions {
  host: string
  port: number
  username: string
  secret: string
  /** Receive events (the dialer) or not (the API's health connection). */
  events: boolean
  /** Reply timeout for every action, ms (default 5000). */
  actionTimeoutMs?: number
  /** Ping period, ms (default 10000). A Ping that is not answered drops the connection. */
  pingIntervalMs?: number
  /** Reconnect backoff: first delay and cap, ms (defaults 500 and 30000), fully jittered. */
  reconnectBaseMs?: number
  reconnectMaxMs?: number
  /** Prefix of the ActionIDs this client generates (unique per process). */
  actionIdPrefix?: string
  random?: () => number
}

export type AmiState = 'connecting' | 'connected' | 'down' | 'closed'

export interface AmiStatusSnapshot {
  state: AmiState
  host: string
  port: number
  lastPingMs: number | null
  lastPingAt: Date | null
  lastError: string | null
  since: Date
}

export class AmiActionError extends Error {
  override readonly name = 'AmiActionError'
  constructor(
    message: string,
    readonly reply?: AmiMessage,
    /** True when the action was never written to the PBX (not connected): it certainly did nothing. */
    readonly notSent = false,
  ) {
    super(message)
  }
}

/** First value of a header that asterisk-manager may have turned into an array (repeated key). */
export function header(message: AmiMessage, key: string): string | undefined {
  const v = message[key.toLowerCase()]
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return v[0]
  return undefined
}

/**
 * A typed wrapper around asterisk-manager 0.2.0 that fixes what it leaves out (see AMI-NOTES):
 * its login sends `Event:` which Asterisk ignores, so event delivery is set with the `Events` action
 * after login; it has no action timeout, so every action here has one; its ActionIDs can collide or be
 * rewritten, so this client supplies its own; its reconnect is fixed at 10-60 s, prints with
 * console.log and is silent when a re-login fails, so this client reconnects itself with capped,
 * jittered backoff and watches the link with Ping.
 *
 * Emits: `state` (AmiState), `event` (AmiMessage with lower-cased keys), `error` is never emitted
 * (errors are kept in `lastError`) so an unhandled error cannot crash the process.
 */
export class AmiClient extends EventEmitter {
  readonly #options: Required<AmiClientOptions>
  #manager: ReturnType<typeof createManager> | undefined
  #state: AmiState = 'down'
  #since = new Date()
  #lastPingMs: number | null = null
  #lastPingAt: Date | null = null
  #lastError: string | null = null
  #counter = 0
  #attempt = 0
  #pingTimer: NodeJS.Timeout | undefined
  #reconnectTimer: NodeJS.Timeout | undefined
  #generation = 0

  constructor(options: AmiClientOptions) {
    super()
    this.#options = {
      actionTimeoutMs: 5000,
      pingIntervalMs: 10_000,
      reconnectBaseMs: 500,
      reconnectMaxMs: 30_000,
      actionIdPrefix: `hd-${process.pid}`,
      random: Math.random,
      ...options,
    }
  }

  get state(): AmiState {
    return this.#state
  }

  status(): AmiStatusSnapshot {
    return {
      state: this.#state,
      host: this.#options.host,
      port: this.#options.port,
      lastPingMs: this.#lastPingMs,
      lastPingAt: this.#lastPingAt,
      lastError: this.#lastError,
      since: this.#since,
    }
  }

  /** Starts connecting; resolves at the first successful login, keeps reconnecting on its own. */
  start(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      const onState = (s: AmiState) => {
        if (s === 'connected' || s === 'closed') {
          this.off('state', onState)
          resolve()
        }
      }
      this.on('state', onState)
    })
    this.#connect()
    return ready
  }

  /** Stops for good: no reconnect, pending actions rejected by their timeouts. */
  async close(): Promise<void> {
    const wasConnected = this.#state === 'connected'
    this.#setState('closed')
    clearTimeout(this.#reconnectTimer)
    clearInterval(this.#pingTimer)
    const manager = this.#manager
    this.#manager = undefined
    if (manager && wasConnected) {
      try {
        await this.#send(manager, { action: 'Logoff' }, 500)
      } catch {
        // Closing anyway.
      }
    }
    manager?.disconnect()
  }

  nextActionId(): string {
    this.#counter += 1
    return `${this.#options.actionIdPrefix}-${Date.now().toString(36)}-${this.#counter}`
  }

  /**
   * Sends an action and resolves with its first reply (`Response: Success`), rejects on
   * `Response: Error`, on timeout, or when not connected. `actionid` may be given; else one is made.
   */
  action(action: Record<string, unknown>, timeoutMs = this.#options.actionTimeoutMs): Promise<AmiMessage> {
    const manager = this.#manager
    if (!manager || this.#state !== 'connected') {
      return Promise.reject(new AmiActionError(`AMI not connected (${this.#state})`, undefined, true))
    }
    return this.#send(manager, action, timeoutMs)
  }

  /**
   * A list action (DeviceStateList, CoreShowChannels): resolves with the item events that carry its
   * ActionID, once the `...Complete` event (`EventList: Complete`) arrives.
   */
  async listAction(
    action: Record<string, unknown>,
    timeoutMs = this.#options.actionTimeoutMs,
  ): Promise<AmiMessage[]> {
    const actionid = this.nextActionId()
    const items: AmiMessage[] = []
    let finish!: () => void
    const complete = new Promise<void>((resolve) => {
      finish = resolve
    })
    const onEvent = (event: AmiMessage) => {
      if (header(event, 'actionid') !== actionid) return
      if (header(event, 'eventlist')?.toLowerCase() === 'complete') finish()
      else items.push(event)
    }
    this.on('event', onEvent)
    let timer: NodeJS.Timeout | undefined
    try {
      await this.action({ ...action, actionid }, timeoutMs)
      await Promise.race([
        complete,
        new Promise((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new AmiActionError(`AMI list ${String(action.action)} not complete within ${timeoutMs} ms`),
              ),
            timeoutMs,
          )
        }),
      ])
      return items
    } finally {
      clearTimeout(timer)
      this.off('event', onEvent)
    }
  }

  #send(
    manager: ReturnType<typeof createManager>,
    action: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<AmiMessage> {
    const actionid = typeof action.actionid === 'string' ? action.actionid : this.nextActionId()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        manager.removeAllListeners(actionid)
        reject(new AmiActionError(`AMI action ${String(action.action)} got no reply within ${timeoutMs} ms`))
      }, timeoutMs)
      manager.action({ ...action, actionid }, (err, res) => {
        clearTimeout(timer)
        if (err) reject(new AmiActionError(header(err, 'message') ?? 'AMI action failed', err))
        else resolve(res)
      })
    })
  }

  #connect(): void {
    if (this.#state === 'closed') return
    const generation = ++this.#generation
    this.#setState('connecting')
    const { host, port, username, secret } = this.#options
    const manager = createManager(username, secret)
    this.#manager = manager
    const stale = () => generation !== this.#generation || this.#state === 'closed'
    manager.on('managerevent', (event: AmiMessage) => {
      if (!stale()) this.emit('event', event)
    })
    manager.on('error', (err: Error) => {
      if (!stale()) this.#lastError = err.message
    })
    manager.on('close', () => {
      if (!stale()) this.#lost('connection closed')
    })
    manager.connect(port, host, () => {
      if (stale()) return
      manager.login((err) => {
        if (stale()) return
        if (err) {
          this.#lastError = `login failed: ${header(err, 'message') ?? 'no reason given'}`
          manager.disconnect()
          this.#lost(this.#lastError)
          return
        }
        this.#onLoggedIn(manager, stale)
      })
    })
  }

  #onLoggedIn(manager: ReturnType<typeof createManager>, stale: () => boolean): void {
    this.#send(
      manager,
      { action: 'Events', eventmask: this.#options.events ? 'on' : 'off' },
      this.#options.actionTimeoutMs,
    )
      .then(() => this.#ping(manager))
      .then(() => {
        if (stale()) return
        this.#attempt = 0
        this.#lastError = null
        this.#setState('connected')
        clearInterval(this.#pingTimer)
        this.#pingTimer = setInterval(() => {
          this.#ping(manager).catch((e: Error) => {
            if (stale()) return
            this.#lastError = e.message
            manager.disconnect()
            this.#lost(`ping failed: ${e.message}`)
          })
        }, this.#options.pingIntervalMs)
        this.#pingTimer.unref()
      })
      .catch((e: Error) => {
        if (stale()) return
        this.#lastError = e.message
        manager.disconnect()
        this.#lost(e.message)
      })
  }

  async #ping(manager: ReturnType<typeof createManager>): Promise<void> {
    const started = performance.now()
    await this.#send(manager, { action: 'Ping' }, this.#options.actionTimeoutMs)
    this.#lastPingMs = Math.round((performance.now() - started) * 10) / 10
    this.#lastPingAt = new Date()
  }

  #lost(reason: string): void {
    if (this.#state === 'closed') return
    this.#generation += 1
    clearInterval(this.#pingTimer)
    this.#lastError = reason
    this.#setState('down')
    const cap = Math.min(this.#options.reconnectMaxMs, this.#options.reconnectBaseMs * 2 ** this.#attempt)
    this.#attempt += 1
    const delay = Math.round(cap / 2 + (this.#options.random() * cap) / 2)
    clearTimeout(this.#reconnectTimer)
    this.#reconnectTimer = setTimeout(() => this.#connect(), delay)
    this.#reconnectTimer.unref()
  }

  #setState(state: AmiState): void {
    if (state === this.#state) return
    this.#state = state
    this.#since = new Date()
    this.emit('state', state)
  }
}

function createManager(username: string, secret: string) {
  // No port: the constructor would connect and log in by itself; this client does both.
  const manager = new AsteriskManager(undefined, undefined, username, secret, false)
  manager.options.username = username
  manager.options.password = secret
  return manager
}
