// Caller IDs as Asterisk reads them.

/** ast_callerid_parse in short: `"Name" <num>`, `Name <num>`, a bare number or a bare name. */
export function parseCallerId(raw: string | undefined): { num: string; name: string } {
  if (!raw) return { num: '', name: '' }
  const bracket = /^\s*(?:"([^"]*)"|([^<]*?))\s*<([^>]*)>\s*$/.exec(raw)
  if (bracket) return { name: (bracket[1] ?? bracket[2] ?? '').trim(), num: (bracket[3] ?? '').trim() }
  const trimmed = raw.trim().replace(/^"(.*)"$/, '$1')
  if (/^[\d+*#\s().-]+$/.test(trimmed)) return { num: trimmed.replace(/[\s().-]/g, ''), name: '' }
  return { num: '', name: trimmed }
}
