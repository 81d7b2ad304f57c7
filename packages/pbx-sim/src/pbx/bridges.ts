import { Cause } from '../causes.js'
import { Bridge, bridgeFields } from '../model/bridge.js'
import type { Channel } from '../model/channel.js'
import type { HangupParty } from '../types.js'
import type { PbxCore } from './engine.js'
import { bridgeChannelFields } from './events.js'

function customerAndAgent(a: Channel, b: Channel): { customer: Channel | null; agent: Channel | null } {
  if (a.role === 'customer' && b.role === 'agent') return { customer: a, agent: b }
  if (b.role === 'customer' && a.role === 'agent') return { customer: b, agent: a }
  return { customer: null, agent: null }
}

/**
 * Puts two answered channels in a new basic bridge: BridgeCreate, then BridgeEnter for each.
 * A customer/agent pair then talks for the customer plan's talkSeconds before one side hangs up.
 */
export function joinBridge(core: PbxCore, a: Channel, b: Channel, how: { dialed?: boolean } = {}): Bridge {
  const bridge = new Bridge(core.newBridgeId())
  core.emit('BridgeCreate', bridgeFields(bridge))
  for (const ch of [a, b]) {
    ch.patienceTimer?.cancel()
    ch.patienceTimer = null
    ch.bridge = bridge
    bridge.channels.push(ch)
    core.emit('BridgeEnter', bridgeChannelFields(bridge, ch))
  }
  // A Dial's two channels keep the connected lines the Dial gave them (Asterisk 22 sends no update
  // when a Local or caller-ID-less callee answers, captured in the test bed); channels put together
  // by a Bridge are connected to each other's caller ID.
  if (!how.dialed) {
    a.connectedNum = b.callerIdNum
    a.connectedName = b.callerIdName
    b.connectedNum = a.callerIdNum
    b.connectedName = a.callerIdName
  }

  const { customer, agent } = customerAndAgent(a, b)
  if (customer && agent) {
    const record = customer.call.record
    record.bridgedAt = core.now()
    record.agentExtension = agent.agentExtension
    core.log.setOutcome(customer.call, 'answered')
    const plan = customer.plan
    if (plan) {
      core.after(customer, plan.talkSeconds, () => {
        if (plan.endedBy === 'agent') core.hangup(agent, Cause.NormalClearing, 'agent')
        else core.hangup(customer, Cause.NormalClearing, 'customer')
      })
    }
  }
  return bridge
}

/** BridgeLeave for one channel; the bridge keeps its other members. */
export function leaveBridge(core: PbxCore, ch: Channel): void {
  const bridge = ch.bridge
  if (!bridge) return
  const index = bridge.channels.indexOf(ch)
  if (index >= 0) bridge.channels.splice(index, 1)
  ch.bridge = null
  core.emit('BridgeLeave', bridgeChannelFields(bridge, ch))
}

/**
 * A two-party bridge does not survive one side leaving: the other leaves, the bridge is destroyed,
 * and the remaining channel's dialplan ends, so it hangs up with Normal Clearing.
 */
export function endBridgeIfAlone(core: PbxCore, bridge: Bridge, by: HangupParty): void {
  if (bridge.channels.length !== 1) return
  const other = bridge.channels[0]
  if (!other) return
  leaveBridge(core, other)
  core.emit('BridgeDestroy', bridgeFields(bridge))
  core.hangup(other, Cause.NormalClearing, by, true)
}
