/**
 * A lead is live while a dialer holds it on a call: Calling and reserved. The API never writes to a
 * live row (push skips it, tickets and callback requests answer 409).
 */
export function isLive(row: { dial_status: string; isReserved: number }): boolean {
  return row.dial_status === 'Calling' && row.isReserved === 1
}
