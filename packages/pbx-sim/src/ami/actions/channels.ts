import { Cause } from '../../causes.js'
import type { Channel } from '../../model/channel.js'
import { endBridgeIfAlone, joinBridge, leaveBridge } from '../../pbx/bridges.js'
import { cancelDial, runDialplan } from '../../pbx/dialplan.js'
import type { PbxCore } from '../../pbx/engine.js'
import { formatMessage } from '../../wire/format.js'
import type { ActionHandler } from '../context.js'

const REDIRECT_DIAL_TIMEOUT_SECONDS = 30

function parseCause(raw: string | undefined): number {
  if (!raw || !/^\d+$/.test(raw.trim())) return Cause.NormalClearing
  const cause = Number.parseInt(raw, 10)
  return cause > 0 && cause <= 127 ? cause : Cause.NormalClearing
}

/** Takes a channel out of whatever it is doing (a Dial, a bridge) before it is moved elsewhere. */
function detach(core: PbxCore, ch: Channel): void {
  cancelDial(core, ch)
  const bridge = ch.bridge
  if (bridge) {
    leaveBridge(core, ch)
    endBridgeIfAlone(core, bridge, 'system')
  }
}

/** ast_manager_hangup_helper: by name, or every channel matching `/regex/`. */
export const hangup: ActionHandler = (session, msg, ctx) => {
  const name = msg.get('Channel')
  if (!name) {
    session.respond(msg, 'Error', 'No channel specified')
    return
  }
  const cause = parseCause(msg.get('Cause'))
  const core = ctx.core
  if (name.startsWith('/') && name.endsWith('/') && name.length > 2) {
    let pattern: RegExp
    try {
      pattern = new RegExp(name.slice(1, -1))
    } catch {
      session.respond(msg, 'Error', `Regex compile failed on: ${name}`)
      return
    }
    const matched = [...core.channels.values()].filter((ch) => pattern.test(ch.name))
    const actionId = msg.get('ActionID')
    const idField: [string, string][] = actionId ? [['ActionID', actionId]] : []
    let text = formatMessage([
      ...session.head(msg, 'Success'),
      ['EventList', 'start'],
      ['Message', 'Channels hung up will follow'],
    ])
    for (const ch of matched)
      text += formatMessage([['Event', 'ChannelHungup'], ['Channel', ch.name], ...idField])
    text += formatMessage([
      ['Event', 'ChannelsHungupListComplete'],
      ...idField,
      ['EventList', 'Complete'],
      ['ListItems', String(matched.length)],
    ])
    session.sendReply(text)
    for (const ch of matched) core.hangup(ch, cause, 'system')
    return
  }
  const ch = core.channels.get(name)
  if (!ch) {
    session.respond(msg, 'Error', 'No such channel')
    return
  }
  session.respond(msg, 'Success', 'Channel Hungup')
  core.hangup(ch, cause, 'system')
}

/** The first missing header among those Redirect requires, with Asterisk's message for it. */
function missingRedirectHeader(headers: Record<string, string | undefined>): string | null {
  for (const key of ['Channel', 'Context', 'Exten', 'Priority']) {
    if (!headers[key]) return `${key} not specified`
  }
  return null
}

/** action_redirect: sends an answered channel to a new context/extension (single channel). */
export const redirect: ActionHandler = (session, msg, ctx) => {
  const headers = {
    Channel: msg.get('Channel'),
    Context: msg.get('Context'),
    Exten: msg.get('Exten'),
    Priority: msg.get('Priority'),
  }
  const missing = missingRedirectHeader(headers)
  if (missing) {
    session.respond(msg, 'Error', missing)
    return
  }
  const { Channel: name = '', Context: context = '', Exten: exten = '', Priority: priority = '' } = headers
  if (!/^\d+$/.test(priority.trim()) || Number(priority) < 1) {
    session.respond(msg, 'Error', 'Priority is invalid')
    return
  }
  const core = ctx.core
  const ch = core.channels.get(name)
  if (!ch) {
    session.respond(msg, 'Error', `Channel does not exist: ${name}`)
    return
  }
  if (!core.isUp(ch)) {
    session.respond(msg, 'Error', 'Redirect failed, channel not up.')
    return
  }
  session.respond(msg, 'Success', 'Redirect successful')
  detach(core, ch)
  if (!ch.hungUp) runDialplan(core, ch, context, exten, REDIRECT_DIAL_TIMEOUT_SECONDS)
}

/** action_bridge (main/features.c): bridges two answered channels. */
export const bridge: ActionHandler = (session, msg, ctx) => {
  const name1 = msg.get('Channel1')
  const name2 = msg.get('Channel2')
  if (!name1 || !name2) {
    session.respond(msg, 'Error', 'Missing channel parameter in request')
    return
  }
  const core = ctx.core
  const a = core.channels.get(name1)
  if (!a) {
    session.respond(msg, 'Error', `Channel1 does not exist: ${name1}`)
    return
  }
  const b = core.channels.get(name2)
  if (!b) {
    session.respond(msg, 'Error', `Channel2 does not exist: ${name2}`)
    return
  }
  if (!core.isUp(a)) {
    session.respond(msg, 'Error', `Unable to add Channel1 to bridge: ${a.name}`)
    return
  }
  if (!core.isUp(b) || a === b) {
    session.respond(msg, 'Error', `Unable to add Channel2 to bridge: ${b.name}`)
    return
  }
  session.respond(msg, 'Success', 'Channels have been bridged')
  if (a.bridge && a.bridge === b.bridge) return
  detach(core, a)
  detach(core, b)
  if (!a.hungUp && !b.hungUp) joinBridge(core, a, b)
}
