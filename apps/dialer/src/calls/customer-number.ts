import { type DialFormat, dialNumber } from '@hold-dialer/rules'

/** What a lead's number is dialed from: its international form and its stored digits. */
export interface DialedLead {
  phone_e164: string | null
  phone_number: string
}

/**
 * The customer's number in DIAL_NUMBER_FORMAT: progressive mode's Originate `Exten` and
 * `{number}` in CUSTOMER_CHANNEL_TEMPLATE. The claim never hands over a lead without an international
 * form (`phone_e164` NULL waits for the fill, '' is ended unread), so a missing form is a bug, thrown.
 */
export function customerNumber(format: DialFormat, lead: DialedLead): string {
  const number = dialNumber(format, lead.phone_e164 ?? '', lead.phone_number)
  if (number === undefined) throw new Error(`lead has no international form to dial as ${format}`)
  return number
}

/**
 * CUSTOMER_CHANNEL_TEMPLATE with its placeholders filled: `{number}` in DIAL_NUMBER_FORMAT, and
 * `{e164}`, `{international}`, `{national}`, `{digits}` each in its own form, for a trunk that
 * needs one form whatever DIAL_NUMBER_FORMAT says (`PJSIP/00{international}@carrier`).
 */
export function customerChannel(template: string, format: DialFormat, lead: DialedLead): string {
  return template.replace(/\{(number|e164|international|national|digits)\}/g, (_, name: string) =>
    customerNumber(name === 'number' ? format : (name as DialFormat), lead),
  )
}
