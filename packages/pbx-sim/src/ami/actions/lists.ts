import { channelFields } from '../../model/channel.js'
import { coreShowChannelFields } from '../../pbx/events.js'
import { formatMessage } from '../../wire/format.js'
import type { AmiMessage, Field } from '../../wire/message.js'
import type { ActionHandler } from '../context.js'
import type { AmiSession } from '../session.js'

/**
 * A list reply as astman_send_listack / astman_send_list_complete write it: the acknowledgement
 * with `EventList: start`, the items, then `<Name>Complete` with `EventList: Complete`. The whole
 * list goes out in one write so that paused replies hold it back together.
 */
function sendList(
  session: AmiSession,
  msg: AmiMessage,
  message: string,
  completeEvent: string,
  items: Field[][],
  extraComplete: Field[] = [],
): void {
  const actionId = msg.get('ActionID')
  const idField: Field[] = actionId ? [['ActionID', actionId]] : []
  let text = formatMessage([...session.head(msg, 'Success'), ['EventList', 'start'], ['Message', message]])
  for (const item of items) text += formatMessage(item)
  text += formatMessage([
    ['Event', completeEvent],
    ...idField,
    ['EventList', 'Complete'],
    ['ListItems', String(items.length)],
    ...extraComplete,
  ])
  session.sendReply(text)
}

/** res_manager_devicestate.c: one DeviceStateChange per known device. */
export const deviceStateList: ActionHandler = (session, msg, ctx) => {
  const actionId = msg.get('ActionID')
  const agents = ctx.core.agents
  const items = agents
    .extensions()
    .map((ext): Field[] => [
      ['Event', 'DeviceStateChange'],
      ...(actionId ? ([['ActionID', actionId]] as Field[]) : []),
      ['Device', agents.device(ext)],
      ['State', agents.state(ext)],
    ])
  sendList(session, msg, 'Device State Changes will follow', 'DeviceStateListComplete', items)
}

export const coreShowChannels: ActionHandler = (session, msg, ctx) => {
  const actionId = msg.get('ActionID') || null
  const now = ctx.core.now()
  const items = [...ctx.core.channels.values()].map((ch): Field[] => [
    ['Event', 'CoreShowChannel'],
    ...coreShowChannelFields(ch, now, actionId),
  ])
  sendList(session, msg, 'Channels will follow', 'CoreShowChannelsComplete', items)
}

/** action_status, with the fields a dialer might read; codec and group fields are left out. */
export const status: ActionHandler = (session, msg, ctx) => {
  const name = msg.get('Channel')
  const all = [...ctx.core.channels.values()]
  const selected = name ? all.filter((ch) => ch.name === name) : all
  if (name && selected.length === 0) {
    session.respond(msg, 'Error', 'No such channel')
    return
  }
  const actionId = msg.get('ActionID')
  const now = ctx.core.now()
  const items = selected.map((ch): Field[] => [
    ['Event', 'Status'],
    ['Privilege', 'Call'],
    ...channelFields(ch),
    ['Type', ch.name.split('/')[0] ?? ''],
    ['DNID', ''],
    ['EffectiveConnectedLineNum', ch.connectedNum || '<unknown>'],
    ['EffectiveConnectedLineName', ch.connectedName || '<unknown>'],
    ['TimeToHangup', '0'],
    ['BridgeID', ch.bridge?.id ?? ''],
    ['Application', ch.application],
    ['Data', ch.applicationData],
    ['Seconds', String(Math.floor((now - ch.createdAt) / 1000))],
    ...(actionId ? ([['ActionID', actionId]] as Field[]) : []),
  ])
  sendList(session, msg, 'Channel status will follow', 'StatusComplete', items, [
    ['Items', String(items.length)],
  ])
}
