// The spec's `phone_number` rule: strip every non-digit, then 10-15 digits. The digits are what
// is stored (DECISIONS section 3) and what the dialer substitutes into CUSTOMER_CHANNEL_TEMPLATE.

export type PhoneResult = { ok: true; digits: string } | { ok: false; message: string }

export const PHONE_MESSAGE = 'must be 10-15 digits'

const MIN_DIGITS = 10
// E.164 caps a full international number at 15 digits.
const MAX_DIGITS = 15

/**
 * Normalises a phone number as sent by a CRM (`+91 98765-43210`, `(212) 555 0100`).
 * A leading `+` is dropped with the rest of the punctuation, exactly as the spec says; no
 * country code is added or removed, since the trunk's dial plan owns that.
 */
export function normalisePhone(raw: string): PhoneResult {
  const digits = raw.replace(/\D/g, '')
  if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) {
    return { ok: false, message: PHONE_MESSAGE }
  }
  return { ok: true, digits }
}
