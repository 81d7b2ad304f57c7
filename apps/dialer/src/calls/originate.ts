import type { DialFormat } from '@hold-dialer/rules'
import type { Agent } from '../agents/agent-tracker.js'
import type { ClaimedLead } from '../claim/claim.js'
import { customerNumber } from './customer-number.js'

export interface OriginateSettings {
  agentChannelTemplate: string
  dialNumberFormat: DialFormat
  customerContext: string
  ringTimeoutSeconds: number
  dialerId: string
}

/** `PJSIP/{extension}` -> `PJSIP/1001`. */
export function agentChannel(template: string, extension: string): string {
  return template.replaceAll('{extension}', extension)
}

/**
 * Progressive mode's Originate: the agent's desk rings first; when the agent answers, the dialplan
 * context CUSTOMER_CONTEXT dials the customer's number (the `Exten`, in DIAL_NUMBER_FORMAT), e.g.
 *   [dialer-outbound]
 *   exten => _[+0-9].,1,Dial(PJSIP/${EXTEN}@trunk,30)
 * `ChannelId` makes the agent leg's Uniqueid (and so every leg's Linkedid) known before any event.
 */
export function progressiveOriginate(
  s: OriginateSettings,
  agent: Agent,
  lead: ClaimedLead,
  key: string,
  actionId: string,
) {
  return {
    action: 'Originate',
    actionid: actionId,
    channel: agentChannel(s.agentChannelTemplate, agent.extension),
    context: s.customerContext,
    exten: customerNumber(s.dialNumberFormat, lead),
    priority: 1,
    async: 'true',
    timeout: s.ringTimeoutSeconds * 1000,
    channelid: key,
    // The agent's phone shows who is about to be called.
    callerid: `"${lead.client_name.replace(/["<>\r\n]/g, '')}" <${lead.phone_number}>`,
    // HD_RING_SECONDS: how long CUSTOMER_CONTEXT's Dial rings the customer (deploy/asterisk).
    variable: {
      HD_LEAD_ID: String(lead.id),
      HD_OLI_ID: lead.oli_id,
      HD_DIALER: s.dialerId,
      HD_RING_SECONDS: String(s.ringTimeoutSeconds),
    },
  }
}
