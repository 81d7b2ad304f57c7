import type { Socket } from 'node:net'
import type { EventCategory } from '../pbx/engine.js'
import { formatMessage } from '../wire/format.js'
import type { AmiMessage, Field } from '../wire/message.js'
import { AmiParser } from '../wire/parser.js'
import type { ActionHandler, AmiContext } from './context.js'

const UNAUTHENTICATED_ACTIONS = new Set(['login', 'logoff', 'challenge'])
const CATEGORIES: readonly EventCategory[] = ['call', 'system', 'user']

/**
 * One AMI connection. Actions are handled one at a time in arrival order, as Asterisk's session
 * thread does, so a synchronous Originate holds back the replies to later actions.
 */
export class AmiSession {
  authenticated = false
  username: string | null = null
  challenge: string | null = null
  private events: ReadonlySet<EventCategory> = new Set(CATEGORIES)
  private readonly parser = new AmiParser()
  private queue: Promise<void> = Promise.resolve()
  private held: string[] = []
  private closed = false

  constructor(
    private readonly socket: Socket,
    private readonly ctx: AmiContext,
    private readonly handlers: Readonly<Record<string, ActionHandler>>,
  ) {}

  start(): void {
    this.socket.setEncoding('utf8')
    this.socket.setNoDelay(true)
    this.socket.on('data', (chunk: string) => {
      for (const msg of this.parser.push(chunk)) this.enqueue(msg)
    })
    this.socket.on('close', () => {
      this.closed = true
    })
    this.socket.on('error', (err) => this.ctx.logger.debug({ err }, 'ami socket error'))
    this.socket.write(`Asterisk Call Manager/${this.ctx.amiVersion}\r\n`)
  }

  get isOpen(): boolean {
    return !this.closed
  }

  private enqueue(msg: AmiMessage): void {
    this.queue = this.queue
      .then(() => this.dispatch(msg))
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'ami action failed'))
  }

  private async dispatch(msg: AmiMessage): Promise<void> {
    if (this.closed) return
    const action = msg.getNonEmpty('Action')
    if (action === undefined) {
      this.respond(msg, 'Error', 'Missing action in request')
      return
    }
    const name = action.toLowerCase()
    this.ctx.logger.debug({ action, actionId: msg.get('ActionID') }, 'ami action')
    if (!this.authenticated && !UNAUTHENTICATED_ACTIONS.has(name)) {
      this.respond(msg, 'Error', 'Permission denied')
      return
    }
    const handler = this.handlers[name]
    if (!handler) {
      this.respond(
        msg,
        'Error',
        `Invalid/unknown command: ${action}. Use Action: ListCommands to show available commands.`,
      )
      return
    }
    await handler(this, msg, this.ctx)
  }

  /** Response, ActionID, then the given fields, as astman_send_response_full and friends write them. */
  reply(msg: AmiMessage, response: string, fields: Field[] = []): void {
    this.sendReply(formatMessage(this.head(msg, response).concat(fields)))
  }

  respond(msg: AmiMessage, response: string, message: string): void {
    this.reply(msg, response, [['Message', message]])
  }

  head(msg: AmiMessage, response: string): Field[] {
    const actionId = msg.get('ActionID')
    const fields: Field[] = [['Response', response]]
    if (actionId !== undefined && actionId !== '') fields.push(['ActionID', actionId])
    return fields
  }

  /** Writes a reply, or keeps it while replies are paused. */
  sendReply(text: string): void {
    if (this.ctx.faults.repliesPaused) this.held.push(text)
    else this.write(text)
  }

  flushHeld(): void {
    const held = this.held
    this.held = []
    for (const text of held) this.write(text)
  }

  /** `Events: on|off|call,system...` as Login and the Events action take it; absent leaves it unchanged. */
  setEventMask(value: string | undefined): void {
    if (value === undefined || value.trim() === '') return
    const v = value.trim().toLowerCase()
    if (/^(on|yes|true|all|-1)$/.test(v)) this.events = new Set(CATEGORIES)
    else if (/^(off|no|false|0)$/.test(v)) this.events = new Set()
    else {
      const wanted = new Set(v.split(',').map((s) => s.trim()))
      this.events = new Set(CATEGORIES.filter((c) => wanted.has(c) || wanted.has('all')))
    }
  }

  wantsEvents(category: EventCategory): boolean {
    return this.events.has(category)
  }

  deliverEvent(category: EventCategory, text: string): void {
    if (this.authenticated && this.wantsEvents(category)) this.write(text)
  }

  write(text: string): void {
    if (!this.closed && this.socket.writable) this.socket.write(text)
  }

  /** Closes after pending writes, as Asterisk does after Logoff or a failed Login. */
  end(): void {
    this.closed = true
    this.socket.end()
  }
}
