import type { Field } from './message.js'

/** Serialises fields as `Key: Value` CRLF lines followed by the empty line that ends a message. */
export function formatMessage(fields: readonly Field[]): string {
  let out = ''
  for (const [key, value] of fields) out += `${key}: ${value}\r\n`
  return `${out}\r\n`
}
