// Caller IDs the dialer hands to Asterisk (issue 27): `"Name" <number>`, as ast_callerid_parse
// reads it. The name is a lead's client_name, which may hold anything.

/** Longest name kept: what a desk phone's display can show, and more than a network carries. */
export const CALLER_ID_NAME_MAX = 40

/**
 * A name as it survives Asterisk: without the characters ast_callerid_parse reads as syntax
 * (`"`, `<`, `>`), the backslash AMI's argument parsing drops, and control characters; white
 * space runs as one space, trimmed, at most CALLER_ID_NAME_MAX characters.
 */
export function callerIdName(name: string): string {
  return [
    ...name
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
      .replace(/["<>\\\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  ]
    .slice(0, CALLER_ID_NAME_MAX)
    .join('')
    .trim()
}

/** `"Asha Rao" <+919876543210>`: a party's caller ID for an Originate or a channel variable. */
export function callerId(name: string, number: string): string {
  return `"${callerIdName(name)}" <${number}>`
}
