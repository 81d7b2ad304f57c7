import { parseDialString } from '../../model/dialstring.js'
import { type OriginateRequest, originate } from '../../pbx/originate.js'
import type { AmiMessage } from '../../wire/message.js'
import { type ActionHandler, isTrue } from '../context.js'

const DEFAULT_TIMEOUT_MS = 30_000

/** ast_callerid_parse in short: `"Name" <num>`, `Name <num>`, a bare number or a bare name. */
export function parseCallerId(raw: string | undefined): { num: string; name: string } {
  if (!raw) return { num: '', name: '' }
  const bracket = /^\s*(?:"([^"]*)"|([^<]*?))\s*<([^>]*)>\s*$/.exec(raw)
  if (bracket) return { name: (bracket[1] ?? bracket[2] ?? '').trim(), num: (bracket[3] ?? '').trim() }
  const trimmed = raw.trim().replace(/^"(.*)"$/, '$1')
  if (/^[\d+*#\s().-]+$/.test(trimmed)) return { num: trimmed.replace(/[\s().-]/g, ''), name: '' }
  return { num: '', name: trimmed }
}

/** Every `Variable:` header, each possibly `a=1,b=2`, as astman_get_variables reads them. */
export function parseVariables(msg: AmiMessage): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const header of msg.getAll('Variable')) {
    for (const item of header.split(',')) {
      const eq = item.indexOf('=')
      if (eq <= 0) continue
      vars[item.slice(0, eq).trim()] = item.slice(eq + 1)
    }
  }
  return vars
}

/**
 * action_originate (main/manager.c): validation errors use Asterisk's messages; Async answers
 * "Originate successfully queued" at once and reports later in OriginateResponse, otherwise the
 * reply waits for the outcome.
 */
export const originateAction: ActionHandler = async (session, msg, ctx) => {
  ctx.counters.originates += 1
  if (ctx.faults.takeOriginateFailure()) {
    session.respond(msg, 'Error', 'Originate failed')
    return
  }
  const channel = msg.get('Channel')
  if (!channel) {
    session.respond(msg, 'Error', 'Channel not specified')
    return
  }
  const priority = msg.get('Priority')
  if (priority && !/^\d+$/.test(priority.trim())) {
    session.respond(msg, 'Error', 'Invalid priority')
    return
  }
  const timeout = msg.get('Timeout')
  if (timeout && !/^-?\d+$/.test(timeout.trim())) {
    session.respond(msg, 'Error', 'Invalid timeout')
    return
  }
  const target = parseDialString(channel)
  if (!target) {
    session.respond(msg, 'Error', 'Invalid channel')
    return
  }
  const application = msg.get('Application') || null
  const context = msg.get('Context') || null
  const exten = msg.get('Exten') || null
  if (application === null && (context === null || exten === null)) {
    session.respond(msg, 'Error', "Originate with 'Exten' requires 'Context' and 'Priority'")
    return
  }
  const callerId = parseCallerId(msg.get('CallerID'))
  const req: OriginateRequest = {
    actionId: msg.get('ActionID') || null,
    target,
    context,
    exten,
    application,
    data: application !== null ? (msg.get('Data') ?? '') : null,
    timeoutMs: timeout ? Math.max(0, Number.parseInt(timeout, 10)) : DEFAULT_TIMEOUT_MS,
    callerIdNum: callerId.num,
    callerIdName: callerId.name,
    variables: parseVariables(msg),
    channelId: msg.get('ChannelId') || null,
    async: isTrue(msg.get('Async')),
  }
  if (req.async) {
    session.respond(msg, 'Success', 'Originate successfully queued')
    void originate(ctx.core, req)
    return
  }
  const result = await originate(ctx.core, req)
  if (result.success) session.respond(msg, 'Success', 'Originate successfully queued')
  else session.respond(msg, 'Error', 'Originate failed')
}
