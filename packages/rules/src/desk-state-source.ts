/**
 * Where the dialer learns whether an agent's desk is idle (DECISIONS section 5: "its extension idle by
 * AMI device state"). Asterisk reports two kinds of state:
 *
 * - a device's state (`DeviceStateChange`, `DeviceStateList`, the `DEVICE_STATE()` function): an
 *   endpoint such as `PJSIP/1001`, a Local channel's target such as `Local/1001@from-internal`, or a
 *   custom state `Custom:desk1001` that a panel or presence system sets;
 * - an extension's hint (`ExtensionStatus`, `ExtensionStateList`, the `ExtensionState` action), which
 *   combines the devices a hint names: FreePBX desks, follow-me and softphones with several devices.
 */
export type DeskStateSource =
  | { kind: 'device'; template: string }
  | { kind: 'hint'; extenTemplate: string; context: string }

/**
 * AGENT_DEVICE_TEMPLATE when set; otherwise the device of AGENT_CHANNEL_TEMPLATE's channel, as
 * Asterisk names it: a Local channel's device keeps `@context` and drops its options
 * (`Local/1001@agents/n` -> `Local/1001@agents`), any other
 * technology's device drops the dial string's `@...` part (`PJSIP/1001@desk` -> `PJSIP/1001`).
 */
export function deskStateSource(agentChannelTemplate: string, agentDeviceTemplate?: string): DeskStateSource {
  const template = agentDeviceTemplate ?? defaultDeviceTemplate(agentChannelTemplate)
  if (template.toLowerCase().startsWith('hint:')) {
    const [exten = '', context = ''] = template.slice('hint:'.length).split('@')
    return { kind: 'hint', extenTemplate: exten, context }
  }
  return { kind: 'device', template }
}

function defaultDeviceTemplate(channelTemplate: string): string {
  // A Local dial string's options (`Local/1001@from-internal/n`) are not part of the device's name.
  if (channelTemplate.toLowerCase().startsWith('local/'))
    return channelTemplate.split('/').slice(0, 2).join('/')
  return channelTemplate.replace(/@.*$/, '')
}

/** The name to look for in Asterisk's reports: a device name, or `exten@context` of a hint. */
export function deskKey(source: DeskStateSource, extension: string): string {
  return source.kind === 'device'
    ? source.template.replaceAll('{extension}', extension)
    : `${source.extenTemplate.replaceAll('{extension}', extension)}@${source.context}`
}

/**
 * An ExtensionStatus `Status` (a bit mask, include/asterisk/pbx.h: 1 in use, 2 busy, 4 unavailable,
 * 8 ringing, 16 on hold; 0 idle; -1 / -2 removed) in the device-state words the dialer compares.
 */
export function hintStatusToDeviceState(status: number): string {
  if (status === 0) return 'NOT_INUSE'
  if (status < 0) return 'INVALID'
  if (status & 4) return 'UNAVAILABLE'
  if (status & 2) return 'BUSY'
  if (status & 8) return status & 1 ? 'RINGINUSE' : 'RINGING'
  if (status & 16) return 'ONHOLD'
  return 'INUSE'
}
