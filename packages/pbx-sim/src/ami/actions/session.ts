import { createHash, randomInt } from 'node:crypto'
import type { AmiMessage } from '../../wire/message.js'
import type { ActionHandler, AmiContext } from '../context.js'
import { sleep } from '../context.js'
import { formatEvent } from '../server.js'
import type { AmiSession } from '../session.js'

function authenticate(session: AmiSession, msg: AmiMessage, ctx: AmiContext): string | null {
  const username = msg.get('Username')
  if (!username) return null
  const secret = ctx.users.get(username)
  if (secret === undefined) return null
  if ((msg.get('AuthType') ?? '').toLowerCase() === 'md5') {
    const key = msg.get('Key')
    if (!key || session.challenge === null) return null
    const expected = createHash('md5')
      .update(session.challenge + secret)
      .digest('hex')
    return key.toLowerCase() === expected ? username : null
  }
  return msg.get('Secret') === secret ? username : null
}

/**
 * action_login (main/manager.c): a bad login is answered after a pause and the connection is
 * closed; a good one is acknowledged and followed by FullyBooted when system events are wanted.
 */
export const login: ActionHandler = async (session, msg, ctx) => {
  if (session.authenticated) {
    session.respond(msg, 'Success', 'Already authenticated')
    return
  }
  const username = authenticate(session, msg, ctx)
  if (username === null) {
    ctx.logger.info({ username: msg.get('Username') }, 'ami login failed')
    await sleep(ctx.authFailureDelayMs)
    session.respond(msg, 'Error', 'Authentication failed')
    session.end()
    return
  }
  if (ctx.faults.loginDelayMs > 0) await sleep(ctx.faults.loginDelayMs)
  if (!session.isOpen) return
  session.authenticated = true
  session.username = username
  session.setEventMask(msg.get('Events'))
  ctx.logger.info({ username }, 'ami login')
  session.respond(msg, 'Success', 'Authentication accepted')
  if (session.wantsEvents('system')) {
    const now = ctx.core.now()
    const uptime = String(Math.floor((now - ctx.bootedAt) / 1000))
    session.sendReply(
      formatEvent('FullyBooted', 'system', [
        ['Uptime', uptime],
        ['LastReload', uptime],
        ['Status', 'Fully Booted'],
      ]),
    )
  }
}

export const challenge: ActionHandler = (session, msg) => {
  if ((msg.get('AuthType') ?? '').toLowerCase() !== 'md5') {
    session.respond(msg, 'Error', 'Must specify AuthType')
    return
  }
  session.challenge ??= String(randomInt(100_000_000, 999_999_999))
  session.reply(msg, 'Success', [['Challenge', session.challenge]])
}

export const logoff: ActionHandler = (session, msg) => {
  session.respond(msg, 'Goodbye', 'Thanks for all the fish.')
  session.end()
}

export const ping: ActionHandler = (session, msg, ctx) => {
  const now = ctx.core.now()
  const seconds = Math.floor(now / 1000)
  const micros = String(Math.floor((now % 1000) * 1000)).padStart(6, '0')
  session.reply(msg, 'Success', [
    ['Ping', 'Pong'],
    ['Timestamp', `${seconds}.${micros}`],
  ])
}

/** action_events: switch event delivery for this session. */
export const events: ActionHandler = (session, msg) => {
  session.setEventMask(msg.get('EventMask') ?? 'off')
  const on = session.wantsEvents('call') || session.wantsEvents('system')
  session.reply(msg, 'Success', [['Events', on ? 'On' : 'Off']])
}
