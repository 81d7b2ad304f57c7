import { createServer, type Server, type Socket } from 'node:net'
import type { EventCategory } from '../pbx/engine.js'
import { formatMessage } from '../wire/format.js'
import type { Field } from '../wire/message.js'
import type { ActionHandler, AmiContext } from './context.js'
import { AmiSession } from './session.js'

const PRIVILEGE: Record<EventCategory, string> = { call: 'call,all', system: 'system,all', user: 'user,all' }

/** Formats an event the way manager_event() does: Event and Privilege lines first. */
export function formatEvent(event: string, category: EventCategory, fields: readonly Field[]): string {
  return formatMessage([['Event', event], ['Privilege', PRIVILEGE[category]], ...fields])
}

/** The TCP listener: one AmiSession per connection, events fanned out to logged-in sessions. */
export class AmiServer {
  readonly sessions = new Set<AmiSession>()
  private readonly sockets = new Set<Socket>()
  private readonly server: Server

  constructor(ctx: AmiContext, handlers: Readonly<Record<string, ActionHandler>>) {
    this.server = createServer((socket) => {
      this.sockets.add(socket)
      const session = new AmiSession(socket, ctx, handlers)
      this.sessions.add(session)
      socket.on('close', () => {
        this.sockets.delete(socket)
        this.sessions.delete(session)
      })
      ctx.logger.debug({ remote: socket.remoteAddress, port: socket.remotePort }, 'ami connection')
      session.start()
    })
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        this.server.off('error', reject)
        const address = this.server.address()
        resolve(typeof address === 'object' && address ? address.port : port)
      })
    })
  }

  broadcast(event: string, category: EventCategory, fields: readonly Field[]): void {
    const text = formatEvent(event, category, fields)
    for (const session of this.sessions) session.deliverEvent(category, text)
  }

  flushHeldReplies(): void {
    for (const session of this.sessions) session.flushHeld()
  }

  /** Cuts every client, as a network blip would; the listener stays up. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy()
  }

  connectionCount(): number {
    return this.sockets.size
  }

  close(): Promise<void> {
    this.dropConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
