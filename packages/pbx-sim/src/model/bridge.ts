import type { Field } from '../wire/message.js'
import type { Channel } from './channel.js'

/** A basic two-party bridge as app_dial, the Bridge action and the Bridge application create. */
export class Bridge {
  readonly channels: Channel[] = []
  constructor(readonly id: string) {}
}

/** Bridge snapshot fields in the order of ast_manager_build_bridge_state_string (main/manager_bridges.c). */
export function bridgeFields(bridge: Bridge): Field[] {
  return [
    ['BridgeUniqueid', bridge.id],
    ['BridgeType', 'basic'],
    ['BridgeTechnology', 'simple_bridge'],
    ['BridgeCreator', '<unknown>'],
    ['BridgeName', '<unknown>'],
    ['BridgeNumChannels', String(bridge.channels.length)],
    ['BridgeVideoSourceMode', 'none'],
  ]
}
