import { callerId, type DialFormat } from '@hold-dialer/rules'
import type { Agent } from '../agents/agent-tracker.js'
import type { ClaimedLead } from '../claim/claim.js'
import { type AmdSettings, amdVariables } from './amd.js'
import { customerChannel, customerNumber } from './customer-number.js'

export interface OriginateSettings {
  agentChannelTemplate: string
  dialNumberFormat: DialFormat
  customerContext: string
  ringTimeoutSeconds: number
  dialerId: string
  /** OUTBOUND_CALLER_ID: what every customer leg presents; unset, none. */
  outboundCallerId?: string | undefined
  /** AMD and its parameters: turned on in CUSTOMER_CONTEXT's Dial through channel variables. */
  amd?: AmdSettings | undefined
}

export interface PredictiveOriginateSettings {
  customerChannelTemplate: string
  dialNumberFormat: DialFormat
  holdContext: string
  ringTimeoutSeconds: number
  dialerId: string
  outboundCallerId?: string | undefined
  /** AMD and its parameters: turned on in HOLD_CONTEXT through channel variables (calls/amd.ts). */
  amd?: AmdSettings | undefined
}

/** `PJSIP/{extension}` -> `PJSIP/1001`. */
export function agentChannel(template: string, extension: string): string {
  return template.replaceAll('{extension}', extension)
}

/**
 * The customer as an agent's desk shows them: the lead's name and the number in its international
 * form, whatever DIAL_NUMBER_FORMAT says (`"Asha Rao" <+919876543210>`).
 */
export function customerCallerId(lead: ClaimedLead): string {
  return callerId(lead.client_name, customerNumber('e164', lead))
}

/**
 * Progressive mode's Originate: the agent's desk rings first; when the agent answers, the dialplan
 * context CUSTOMER_CONTEXT dials the customer's number (the `Exten`, in DIAL_NUMBER_FORMAT), e.g.
 *   [dialer-outbound]
 *   exten => _[+0-9].,1,Set(CALLERID(all)=${HD_CALLER_ID})
 *    same => n,Dial(PJSIP/${EXTEN}@trunk,30)
 * `ChannelId` makes the agent leg's Uniqueid (and so every leg's Linkedid) known before any event.
 * `CallerID` is the customer: what the desk shows while it rings. The shipped dialplan replaces it
 * with HD_CALLER_ID before it dials, so the customer is shown the centre's number, never their own.
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
    callerid: customerCallerId(lead),
    // HD_RING_SECONDS: how long CUSTOMER_CONTEXT's Dial rings the customer (deploy/asterisk).
    variable: {
      HD_LEAD_ID: String(lead.id),
      HD_OLI_ID: lead.oli_id,
      HD_DIALER: s.dialerId,
      HD_RING_SECONDS: String(s.ringTimeoutSeconds),
      ...(s.outboundCallerId ? { HD_CALLER_ID: s.outboundCallerId } : {}),
      ...amdVariables(s.amd, 'progressive'),
    },
  }
}

/**
 * Predictive mode's Originate: the customer first, into HOLD_CONTEXT. `CallerID` is what the
 * customer is shown (OUTBOUND_CALLER_ID; none when unset). HD_CUSTOMER_ID is the customer, which
 * the shipped AGENT_CONTEXT makes the channel's caller ID before it dials the desk, so the desk
 * shows who is waiting.
 */
export function predictiveOriginate(
  s: PredictiveOriginateSettings,
  lead: ClaimedLead,
  key: string,
  actionId: string,
) {
  return {
    action: 'Originate',
    actionid: actionId,
    channel: customerChannel(s.customerChannelTemplate, s.dialNumberFormat, lead),
    context: s.holdContext,
    exten: 's',
    priority: 1,
    async: 'true',
    timeout: s.ringTimeoutSeconds * 1000,
    channelid: key,
    ...(s.outboundCallerId ? { callerid: s.outboundCallerId } : {}),
    variable: {
      HD_LEAD_ID: String(lead.id),
      HD_OLI_ID: lead.oli_id,
      HD_DIALER: s.dialerId,
      HD_CUSTOMER_ID: customerCallerId(lead),
      ...amdVariables(s.amd, 'predictive'),
    },
  }
}
