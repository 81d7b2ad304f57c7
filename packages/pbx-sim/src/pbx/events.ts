import { causeText, type DialStatus } from '../causes.js'
import { type Bridge, bridgeFields } from '../model/bridge.js'
import { type Channel, channelFields } from '../model/channel.js'
import type { DeviceState } from '../types.js'
import type { Field } from '../wire/message.js'

/**
 * Field lists of the AMI events the simulator writes, in Asterisk's order. The `Event:` and
 * `Privilege:` lines are added when the event is published.
 */

export function hangupFields(ch: Channel, cause: number): Field[] {
  return [...channelFields(ch), ['Cause', String(cause)], ['Cause-txt', causeText(cause)]]
}

/**
 * DialBegin / DialEnd. `caller` is null for the dial an Originate makes of its own channel: Asterisk
 * 22 sends that pair with no caller block (main/dial.c publishes it with no caller channel).
 */
export function dialBeginFields(caller: Channel | null, dest: Channel, dialString: string): Field[] {
  return [
    ...(caller ? channelFields(caller) : []),
    ...channelFields(dest, 'Dest'),
    ['DialString', dialString],
  ]
}

export function dialEndFields(caller: Channel | null, dest: Channel, status: DialStatus): Field[] {
  return [...(caller ? channelFields(caller) : []), ...channelFields(dest, 'Dest'), ['DialStatus', status]]
}

/** BridgeEnter / BridgeLeave: bridge snapshot then channel snapshot (main/manager_bridges.c). */
export function bridgeChannelFields(bridge: Bridge, ch: Channel): Field[] {
  return [...bridgeFields(bridge), ...channelFields(ch)]
}

export function deviceStateFields(device: string, state: DeviceState): Field[] {
  return [
    ['Device', device],
    ['State', state],
  ]
}

export interface OriginateResponseInit {
  actionId: string | null
  success: boolean
  channel: string
  context: string | null
  exten: string | null
  application: string | null
  data: string | null
  reason: number
  uniqueid: string
  callerIdNum: string
  callerIdName: string
}

/** fast_originate() in main/manager.c: Context/Exten, or Application/Data when an app was given. */
export function originateResponseFields(r: OriginateResponseInit): Field[] {
  const fields: Field[] = []
  if (r.actionId !== null) fields.push(['ActionID', r.actionId])
  fields.push(['Response', r.success ? 'Success' : 'Failure'], ['Channel', r.channel])
  if (r.application !== null) {
    fields.push(['Application', r.application], ['Data', r.data ?? ''])
  } else {
    fields.push(['Context', r.context ?? ''], ['Exten', r.exten ?? ''])
  }
  fields.push(
    ['Reason', String(r.reason)],
    ['Uniqueid', r.uniqueid],
    ['CallerIDNum', r.callerIdNum === '' ? '<unknown>' : r.callerIdNum],
    ['CallerIDName', r.callerIdName === '' ? '<unknown>' : r.callerIdName],
  )
  return fields
}

function hms(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds))
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`
}

/** CoreShowChannel list item, in action_coreshowchannels() order (main/manager.c). */
export function coreShowChannelFields(ch: Channel, nowMs: number, actionId: string | null): Field[] {
  const fields: Field[] = actionId !== null ? [['ActionID', actionId]] : []
  return [
    ...fields,
    ...channelFields(ch),
    ['Application', ch.application],
    ['ApplicationData', ch.applicationData],
    ['Duration', hms((nowMs - ch.createdAt) / 1000)],
    ['BridgeId', ch.bridge?.id ?? ''],
  ]
}
