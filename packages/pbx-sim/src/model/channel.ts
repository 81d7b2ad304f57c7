import { ChannelState, type ChannelStateCode, stateText } from '../causes.js'
import type { SimTimer } from '../clock.js'
import type { HangupParty } from '../types.js'
import type { Field } from '../wire/message.js'
import type { Bridge } from './bridge.js'
import type { CallState } from './callLog.js'
import type { CustomerPlan } from './customerPlan.js'

export type LegRole = 'agent' | 'customer'

export type HangupHook = (cause: number, by: HangupParty) => void

export interface ChannelInit {
  name: string
  uniqueid: string
  linkedid: string
  role: LegRole
  agentExtension: string | null
  number: string | null
  call: CallState
  callerIdNum: string
  callerIdName: string
  context: string
  exten: string
  createdAt: number
  plan: CustomerPlan | null
}

/** One simulated Asterisk channel and the dialplan position it is in. */
export class Channel {
  readonly name: string
  readonly uniqueid: string
  readonly linkedid: string
  readonly role: LegRole
  readonly agentExtension: string | null
  readonly number: string | null
  readonly call: CallState
  readonly createdAt: number
  readonly plan: CustomerPlan | null
  readonly vars = new Map<string, string>()
  readonly timers = new Set<SimTimer>()
  state: ChannelStateCode = ChannelState.Down
  callerIdNum: string
  callerIdName: string
  connectedNum = ''
  connectedName = ''
  context: string
  exten: string
  priority = 1
  application = ''
  applicationData = ''
  bridge: Bridge | null = null
  /** The channel this one is currently Dial()ing, if any. */
  dialing: Channel | null = null
  patienceTimer: SimTimer | null = null
  /** Run by the flow that owns the channel when it is hung up from outside that flow. */
  onHangup: HangupHook | null = null
  hungUp = false
  /** A Local `;1` half: its `;2` half. */
  far: Channel | null = null
  /** A Local `;2` half: its `;1` half, which the call flows drive. */
  near: Channel | null = null

  constructor(init: ChannelInit) {
    this.name = init.name
    this.uniqueid = init.uniqueid
    this.linkedid = init.linkedid
    this.role = init.role
    this.agentExtension = init.agentExtension
    this.number = init.number
    this.call = init.call
    this.createdAt = init.createdAt
    this.plan = init.plan
    this.callerIdNum = init.callerIdNum
    this.callerIdName = init.callerIdName
    this.context = init.context
    this.exten = init.exten
  }

  cancelTimers(): void {
    for (const timer of this.timers) timer.cancel()
    this.timers.clear()
    this.patienceTimer = null
  }
}

const orUnknown = (value: string): string => (value === '' ? '<unknown>' : value)

/**
 * Channel snapshot fields in the order of ast_manager_build_channel_state_string_prefix
 * (main/manager_channels.c) as documented for Asterisk 18-22; `prefix` is 'Dest' in Dial events.
 */
export function channelFields(ch: Channel, prefix = ''): Field[] {
  return [
    [`${prefix}Channel`, ch.name],
    [`${prefix}ChannelState`, String(ch.state)],
    [`${prefix}ChannelStateDesc`, stateText(ch.state)],
    [`${prefix}CallerIDNum`, orUnknown(ch.callerIdNum)],
    [`${prefix}CallerIDName`, orUnknown(ch.callerIdName)],
    [`${prefix}ConnectedLineNum`, orUnknown(ch.connectedNum)],
    [`${prefix}ConnectedLineName`, orUnknown(ch.connectedName)],
    [`${prefix}Language`, 'en'],
    [`${prefix}AccountCode`, ''],
    [`${prefix}Context`, ch.context],
    [`${prefix}Exten`, ch.exten],
    [`${prefix}Priority`, String(ch.priority)],
    [`${prefix}Uniqueid`, ch.uniqueid],
    [`${prefix}Linkedid`, ch.linkedid],
  ]
}
