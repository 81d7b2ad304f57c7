import { ChannelState } from '../causes.js'
import type { AgentDeviceSetting, DeviceState } from '../types.js'
import type { Channel } from './channel.js'

interface Agent {
  setting: AgentDeviceSetting
  channels: Set<Channel>
  lastState: DeviceState
}

export type DeviceStateListener = (device: string, state: DeviceState) => void

/** Whether a new call to the agent's phone would ring, be refused busy, or find no phone at all. */
export type Reachability = 'idle' | 'busy' | 'unavailable'

/**
 * Agent desk phones. The device state combines the operator's setting with the agent's live
 * channels the way chan_pjsip aggregates it: ringing -> RINGING, up -> INUSE.
 */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>()

  constructor(
    private readonly technology: string,
    private readonly onChange: DeviceStateListener,
  ) {}

  has(extension: string): boolean {
    return this.agents.has(extension)
  }

  extensions(): string[] {
    return [...this.agents.keys()]
  }

  device(extension: string): string {
    return `${this.technology}/${extension}`
  }

  add(extension: string, setting: AgentDeviceSetting = 'idle'): void {
    const existing = this.agents.get(extension)
    if (existing) {
      this.set(extension, setting)
      return
    }
    this.agents.set(extension, { setting, channels: new Set(), lastState: 'NOT_INUSE' })
    this.refresh(extension, true)
  }

  set(extension: string, setting: AgentDeviceSetting): void {
    const agent = this.agents.get(extension)
    if (!agent) throw new Error(`unknown agent extension ${extension}`)
    agent.setting = setting
    this.refresh(extension)
  }

  attach(extension: string, channel: Channel): void {
    this.agents.get(extension)?.channels.add(channel)
    this.refresh(extension)
  }

  detach(extension: string, channel: Channel): void {
    this.agents.get(extension)?.channels.delete(channel)
    this.refresh(extension)
  }

  state(extension: string): DeviceState {
    const agent = this.agents.get(extension)
    if (!agent) return 'UNAVAILABLE'
    if (agent.setting === 'unavailable') return 'UNAVAILABLE'
    let up = 0
    let ringing = 0
    for (const ch of agent.channels) {
      if (ch.state === ChannelState.Up) up += 1
      else if (ch.state === ChannelState.Ringing) ringing += 1
    }
    if (up > 0) return ringing > 0 ? 'RINGINUSE' : 'INUSE'
    if (ringing > 0) return 'RINGING'
    return agent.setting === 'busy' ? 'BUSY' : 'NOT_INUSE'
  }

  /** DEVICE_STATE() of a device name (`PJSIP/1001`): an agent desk's state, UNKNOWN for any other. */
  deviceState(device: string): DeviceState | 'UNKNOWN' {
    const prefix = `${this.technology}/`.toLowerCase()
    if (!device.toLowerCase().startsWith(prefix)) return 'UNKNOWN'
    const extension = device.slice(prefix.length)
    return this.agents.has(extension) ? this.state(extension) : 'UNKNOWN'
  }

  reachability(extension: string): Reachability {
    const state = this.state(extension)
    if (state === 'UNAVAILABLE') return 'unavailable'
    return state === 'NOT_INUSE' ? 'idle' : 'busy'
  }

  /** Publishes DeviceStateChange when the computed state moved (or always, for a new device). */
  refresh(extension: string, force = false): void {
    const agent = this.agents.get(extension)
    if (!agent) return
    const state = this.state(extension)
    if (force || state !== agent.lastState) {
      agent.lastState = state
      this.onChange(this.device(extension), state)
    }
  }
}
