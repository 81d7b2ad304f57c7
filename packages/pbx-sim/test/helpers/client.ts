import { connect, type Socket } from 'node:net'
import { formatMessage } from '../../src/wire/format.js'
import type { AmiMessage, Field } from '../../src/wire/message.js'
import { AmiParser } from '../../src/wire/parser.js'

type Predicate = (msg: AmiMessage) => boolean

interface Waiter {
  predicate: Predicate
  from: number
  resolve: (msg: AmiMessage) => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

/** A bare AMI client over real TCP that records everything the server writes. */
export class TestClient {
  readonly messages: AmiMessage[] = []
  greeting = ''
  private readonly parser = new AmiParser()
  private waiters: Waiter[] = []
  private nextId = 1
  private pending = ''
  readonly closed: Promise<void>

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8')
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()))
    socket.on('error', () => {})
  }

  static connect(port: number): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      const client = new TestClient(socket)
      socket.once('error', reject)
      socket.on('data', (chunk: string) => {
        if (client.greeting === '') {
          client.pending += chunk
          const eol = client.pending.indexOf('\r\n')
          if (eol < 0) return
          client.greeting = client.pending.slice(0, eol)
          chunk = client.pending.slice(eol + 2)
          client.pending = ''
          resolve(client)
        }
        for (const msg of client.parser.push(chunk)) client.receive(msg)
      })
    })
  }

  private receive(msg: AmiMessage): void {
    this.messages.push(msg)
    const index = this.messages.length - 1
    for (const waiter of [...this.waiters]) {
      if (index >= waiter.from && waiter.predicate(msg)) {
        clearTimeout(waiter.timer)
        this.waiters = this.waiters.filter((w) => w !== waiter)
        waiter.resolve(msg)
      }
    }
  }

  write(text: string): void {
    this.socket.write(text)
  }

  send(fields: Field[]): void {
    this.write(formatMessage(fields))
  }

  /**
   * Waits for a message matching `predicate`, looking at messages received from index `from` on. The
   * 300 s limit is a safety net for a loaded machine, never a speed limit.
   */
  waitFor(predicate: Predicate, timeoutMs = 300_000, from = 0): Promise<AmiMessage> {
    const found = this.messages.slice(from).find(predicate)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer)
        reject(new Error(`timed out waiting for a message; got ${this.messages.length}`))
      }, timeoutMs)
      this.waiters.push({ predicate, from, resolve, reject, timer })
    })
  }

  waitForEvent(name: string, match: Record<string, string> = {}, timeoutMs = 300_000): Promise<AmiMessage> {
    return this.waitFor(
      (m) => m.get('Event') === name && Object.entries(match).every(([k, v]) => m.get(k) === v),
      timeoutMs,
    )
  }

  /** Sends an action with a fresh ActionID (replacing any given) and resolves with its Response. */
  action(fields: Field[], timeoutMs = 300_000): Promise<AmiMessage> {
    const actionId = `t${this.nextId++}`
    const from = this.messages.length
    this.send([...fields.filter(([k]) => k.toLowerCase() !== 'actionid'), ['ActionID', actionId]])
    return this.waitFor(
      (m) => m.get('Response') !== undefined && m.get('ActionID') === actionId,
      timeoutMs,
      from,
    )
  }

  async login(user = 'admin', secret = 'admin', events = 'on'): Promise<AmiMessage> {
    return this.action([
      ['Action', 'Login'],
      ['Username', user],
      ['Secret', secret],
      ['Events', events],
    ])
  }

  events(name?: string): AmiMessage[] {
    return this.messages.filter(
      (m) => m.get('Event') !== undefined && (name === undefined || m.get('Event') === name),
    )
  }

  /** Events that concern any of the given channels (as Channel or DestChannel). */
  eventsFor(channels: string[]): AmiMessage[] {
    return this.messages.filter((m) => {
      const ch = m.get('Channel')
      const dest = m.get('DestChannel')
      return (ch !== undefined && channels.includes(ch)) || (dest !== undefined && channels.includes(dest))
    })
  }

  close(): Promise<void> {
    this.socket.destroy()
    return this.closed
  }
}

export async function loggedIn(port: number, events = 'on'): Promise<TestClient> {
  const client = await TestClient.connect(port)
  const res = await client.login('admin', 'admin', events)
  if (res.get('Response') !== 'Success') throw new Error('login failed')
  return client
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Event name plus the few fields that identify a step: "Newstate PJSIP/1001-00000000 Up". */
export function describe(m: AmiMessage): string {
  const event = m.get('Event') ?? `Response:${m.get('Response')}`
  switch (event) {
    case 'Newchannel':
    case 'Newstate':
      return `${event} ${m.get('Channel')} ${m.get('ChannelStateDesc')}`
    case 'Hangup':
      return `${event} ${m.get('Channel')} ${m.get('Cause')}`
    case 'NewCallerid':
      return `${event} ${m.get('Channel')}`
    case 'DialBegin':
      return `${event} ${m.get('Channel')} -> ${m.get('DestChannel')}`
    case 'DialEnd':
      return `${event} ${m.get('Channel')} -> ${m.get('DestChannel')} ${m.get('DialStatus')}`
    case 'BridgeEnter':
    case 'BridgeLeave':
      return `${event} ${m.get('Channel')} ${m.get('BridgeNumChannels')}`
    case 'BridgeCreate':
    case 'BridgeDestroy':
      return event
    case 'DeviceStateChange':
      return `${event} ${m.get('Device')} ${m.get('State')}`
    case 'OriginateResponse':
      return `${event} ${m.get('Response')} ${m.get('Reason')}`
    default:
      return event
  }
}
