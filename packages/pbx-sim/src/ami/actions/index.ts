import type { ActionHandler } from '../context.js'
import { bridge, hangup, redirect } from './channels.js'
import { coreShowChannels, deviceStateList, status } from './lists.js'
import { originateAction } from './originate.js'
import { challenge, events, login, logoff, ping } from './session.js'
import { getvar, setvar } from './vars.js'

/** Supported actions, keyed by lower-case name (Asterisk matches action names case-insensitively). */
export const ACTION_HANDLERS: Readonly<Record<string, ActionHandler>> = {
  login,
  logoff,
  challenge,
  ping,
  events,
  originate: originateAction,
  hangup,
  redirect,
  bridge,
  getvar,
  setvar,
  devicestatelist: deviceStateList,
  coreshowchannels: coreShowChannels,
  status,
}
