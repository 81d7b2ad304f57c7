import type { ActionHandler } from '../context.js'

/** action_getvar: a channel variable, or a global one without Channel. */
export const getvar: ActionHandler = (session, msg, ctx) => {
  const variable = msg.get('Variable')
  if (!variable) {
    session.respond(msg, 'Error', 'No variable specified')
    return
  }
  const name = msg.get('Channel')
  let value: string | undefined
  const device = /^DEVICE_STATE\((.+)\)$/i.exec(variable)?.[1]
  if (device && !name) {
    // func_devstate's DEVICE_STATE(): an agent desk's state, UNKNOWN for any other device.
    value = ctx.core.deviceState(device)
  } else if (name) {
    const ch = ctx.core.channels.get(name)
    if (!ch) {
      session.respond(msg, 'Error', 'No such channel')
      return
    }
    value = ch.vars.get(variable)
  } else {
    value = ctx.core.globals.get(variable)
  }
  session.reply(msg, 'Success', [
    ['Variable', variable],
    ['Value', value ?? ''],
  ])
}

export const setvar: ActionHandler = (session, msg, ctx) => {
  const variable = msg.get('Variable')
  if (!variable) {
    session.respond(msg, 'Error', 'No variable specified')
    return
  }
  const name = msg.get('Channel')
  const value = msg.get('Value') ?? ''
  if (name) {
    const ch = ctx.core.channels.get(name)
    if (!ch) {
      session.respond(msg, 'Error', 'No such channel')
      return
    }
    ch.vars.set(variable, value)
  } else {
    ctx.core.globals.set(variable, value)
  }
  session.respond(msg, 'Success', 'Variable Set')
}
