import type { Logger } from 'pino'
import { ChannelState, type ChannelStateCode } from '../causes.js'
import type { SimClock, SimTimer } from '../clock.js'
import { AgentRegistry } from '../model/agents.js'
import { type CallListener, CallLog, type CallState } from '../model/callLog.js'
import { Channel, channelFields, type LegRole } from '../model/channel.js'
import { type CustomerPlan, resolvePlan } from '../model/customerPlan.js'
import { Rng } from '../rng.js'
import type { CustomerScript, HangupParty, OriginateResponseOrder } from '../types.js'
import type { Field } from '../wire/message.js'
import { endBridgeIfAlone, leaveBridge } from './bridges.js'
import { deviceStateFields, hangupFields } from './events.js'

export type EventCategory = 'call' | 'system' | 'user'
export type Publish = (event: string, category: EventCategory, fields: Field[]) => void

export interface CoreConfig {
  customerContext: string
  holdContext: string
  agentAnswerSeconds: number
  agentDialTimeoutSeconds: number
  agentTechnology: string
  customerTechnology: string
  trunk: string
  /** HD_CUSTOMER_DIAL / HD_DESK_DIAL style templates (`%s`), or null for the technology defaults. */
  customerDial: string | null
  agentDial: string | null
  originateResponseOrder: OriginateResponseOrder
  seed: number
  defaultOutcome: CustomerScript
  /** Extensions matching this are agent desks even when not configured (added idle on first use). */
  agentPattern: RegExp | null
}

/** A caller ID: number and name, empty when not set. */
export interface Party {
  num: string
  name: string
}

export interface ChannelCreate {
  base: string
  isLocal: boolean
  role: LegRole
  agentExtension: string | null
  number: string | null
  call: CallState
  callerIdNum: string
  callerIdName: string
  context: string
  exten: string
  plan: CustomerPlan | null
  uniqueid?: string
  linkedid?: string
}

/**
 * The simulated switch: channels, agents, the call log and the event stream. Call flows
 * (originate, dialplan, bridges) drive it; it owns channel lifecycle and the events that go with it.
 */
export class PbxCore {
  readonly channels = new Map<string, Channel>()
  readonly agents: AgentRegistry
  readonly log: CallLog
  readonly globals = new Map<string, string>()
  /**
   * The trunk is down: no customer channel can be created (no Newchannel, no DialBegin), as when
   * Dial's or Originate's channel request fails (a technology that cannot create the channel, a
   * PJSIP endpoint with no reachable contact).
   */
  trunkDown = false
  private readonly outcomes = new Map<string, CustomerScript>()
  private readonly outcomeRng: Rng
  private readonly orderRng: Rng
  private readonly idRng: Rng
  private channelSeq = 0
  private uniqueSeq = 0

  constructor(
    readonly config: CoreConfig,
    readonly clock: SimClock,
    private readonly publish: Publish,
    readonly logger: Logger,
    listeners: { onCallStart?: CallListener; onCallEnd?: CallListener } = {},
  ) {
    // Separate streams so that e.g. bridge ids never shift which outcome a random script draws.
    this.outcomeRng = new Rng(config.seed)
    this.orderRng = new Rng(config.seed ^ 0x9e3779b9)
    this.idRng = new Rng(config.seed ^ 0x85ebca6b)
    this.agents = new AgentRegistry(config.agentTechnology, (device, state) =>
      this.emit('DeviceStateChange', deviceStateFields(device, state)),
    )
    this.log = new CallLog(listeners.onCallStart, listeners.onCallEnd)
  }

  /** Whether an extension is an agent desk; a pattern match registers it on the spot. */
  isAgent(extension: string): boolean {
    if (this.agents.has(extension)) return true
    if (!this.config.agentPattern?.test(extension)) return false
    this.agents.add(extension)
    return true
  }

  /**
   * DEVICE_STATE() of a device name (`PJSIP/1001`), as func_devstate answers it: an agent desk's
   * state, UNKNOWN for any other device. A desk agentPattern names is registered on the spot, as at
   * its first call: a dialer asks for a desk's state before it ever dials it.
   */
  deviceState(device: string): string {
    const prefix = `${this.config.agentTechnology}/`
    if (device.toLowerCase().startsWith(prefix.toLowerCase())) this.isAgent(device.slice(prefix.length))
    return this.agents.deviceState(device)
  }

  emit(event: string, fields: Field[]): void {
    this.publish(event, 'call', fields)
  }

  /** An event of class `user` (the dialplan's UserEvent). */
  emitUser(event: string, fields: Field[]): void {
    this.publish(event, 'user', fields)
  }

  setOutcome(number: string, script: CustomerScript): void {
    this.outcomes.set(number, script)
  }

  clearOutcome(number: string): void {
    this.outcomes.delete(number)
  }

  planFor(number: string): CustomerPlan {
    return resolvePlan(this.outcomes.get(number) ?? this.config.defaultOutcome, this.outcomeRng)
  }

  /** Whether this OriginateResponse goes out before the leg's final channel event. */
  originateResponseFirst(): boolean {
    const order = this.config.originateResponseOrder
    if (order === 'seeded') return this.orderRng.next() < 0.5
    return order === 'before'
  }

  newBridgeId(): string {
    return this.idRng.uuid()
  }

  now(): number {
    return this.clock.now()
  }

  private nextUniqueid(): string {
    const seconds = Math.floor(this.clock.now() / 1000)
    return `${seconds}.${this.uniqueSeq++}`
  }

  /**
   * A channel; for a Local target, the pair Asterisk's core_local.c makes: the `;1` half that is
   * returned (dialed, bridged, redirected) and its `;2` half, which runs the far dialplan and
   * carries the far party's own state and cause (`<uniqueid>;2` when the uniqueid was given, as
   * Asterisk names it without an OtherChannelId).
   */
  createChannel(init: ChannelCreate): Channel {
    const seq = (this.channelSeq++).toString(16).padStart(8, '0')
    const uniqueid = init.uniqueid || this.nextUniqueid()
    const linkedid = init.linkedid ?? uniqueid
    const make = (name: string, id: string, agentExtension: string | null) =>
      new Channel({
        name,
        uniqueid: id,
        linkedid,
        role: init.role,
        agentExtension,
        number: init.number,
        call: init.call,
        callerIdNum: init.callerIdNum,
        callerIdName: init.callerIdName,
        context: init.context,
        exten: init.exten,
        createdAt: this.clock.now(),
        plan: init.plan,
      })
    const ch = make(`${init.base}-${seq}${init.isLocal ? ';1' : ''}`, uniqueid, init.agentExtension)
    this.channels.set(ch.name, ch)
    this.log.attach(init.call, ch.name)
    this.emit('Newchannel', channelFields(ch))
    if (init.isLocal) {
      const far = make(
        `${init.base}-${seq};2`,
        init.uniqueid ? `${init.uniqueid};2` : this.nextUniqueid(),
        null,
      )
      ch.far = far
      far.near = ch
      this.channels.set(far.name, far)
      this.emit('Newchannel', channelFields(far))
    }
    if (ch.agentExtension !== null) this.agents.attach(ch.agentExtension, ch)
    return ch
  }

  /**
   * A channel's connected line (who it is talking to: what a phone or trunk is shown). Of a Local
   * pair the far half takes it as its caller ID and the near half's caller ID as its connected
   * line (core_local.c copies them across when the pair is called).
   */
  setConnected(ch: Channel, party: Party): void {
    ch.connectedNum = party.num
    ch.connectedName = party.name
    if (ch.far) {
      ch.far.callerIdNum = party.num
      ch.far.callerIdName = party.name
      ch.far.connectedNum = ch.callerIdNum
      ch.far.connectedName = ch.callerIdName
    }
  }

  /**
   * The dialplan's `Set(CALLERID(all)=...)`: the channel's own caller ID, with the NewCallerid
   * Asterisk publishes. A Local pair's far half is left as it is (Asterisk does not copy it).
   */
  setCallerId(ch: Channel, party: Party): void {
    ch.callerIdNum = party.num
    ch.callerIdName = party.name
    this.emit('NewCallerid', [
      ...channelFields(ch),
      ['CID-CallingPres', '0 (Presentation Allowed, Not Screened)'],
    ])
  }

  /** A Local pair: the far half answers (Up) before the near one; only the near half shows Ringing. */
  setState(ch: Channel, state: ChannelStateCode): void {
    if (ch.hungUp || ch.state === state) return
    if (ch.far && state === ChannelState.Up && !ch.far.hungUp) {
      ch.far.state = state
      this.emit('Newstate', channelFields(ch.far))
    }
    ch.state = state
    this.emit('Newstate', channelFields(ch))
    if (ch.agentExtension !== null) this.agents.refresh(ch.agentExtension)
  }

  /** Runs `fn` after `seconds` simulated seconds unless the channel is hung up first. */
  after(ch: Channel, seconds: number, fn: () => void): SimTimer {
    const timer = this.clock.after(seconds, () => {
      ch.timers.delete(timer)
      if (!ch.hungUp) fn()
    })
    ch.timers.add(timer)
    return timer
  }

  /**
   * Ends a channel: the owning flow's hook first (it may cancel a Dial), then BridgeLeave, Hangup,
   * the agent's device state, and finally the bridge partner, who is left alone and hangs up too.
   * `endsBridge` marks the hangup of a channel whose bridge was just dissolved under it.
   */
  hangup(ch: Channel, cause: number, by: HangupParty, endsBridge = false): void {
    // The far half of a Local pair hung up: the pair ends, by the near half.
    if (ch.near) {
      this.hangup(ch.near, cause, by, endsBridge)
      return
    }
    if (ch.hungUp) return
    const far = ch.far
    if (far && !far.hungUp) {
      // The far half carries the party's cause. The near half says 0 when the far end refused with an
      // indication before answering (busy 17, congestion 34), as Asterisk 22 does; otherwise the same.
      far.hungUp = true
      far.cancelTimers()
      this.emit('Hangup', hangupFields(far, cause))
      this.channels.delete(far.name)
      if (ch.state !== ChannelState.Up && (cause === 17 || cause === 34)) cause = 0
    }
    ch.hungUp = true
    ch.cancelTimers()
    const hook = ch.onHangup
    ch.onHangup = null
    hook?.(cause, by)
    const bridge = ch.bridge
    if (bridge) leaveBridge(this, ch)
    this.emit('Hangup', hangupFields(ch, cause))
    this.channels.delete(ch.name)
    if (ch.agentExtension !== null) this.agents.detach(ch.agentExtension, ch)
    this.log.detach(ch.call, this.clock.now(), cause, by, endsBridge || bridge !== null)
    if (bridge) endBridgeIfAlone(this, bridge, by)
  }

  isUp(ch: Channel): boolean {
    return !ch.hungUp && ch.state === ChannelState.Up
  }
}
