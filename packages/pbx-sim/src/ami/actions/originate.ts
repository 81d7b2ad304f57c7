import { parseCallerId } from '../../model/callerid.js'
import { parseDialString } from '../../model/dialstring.js'
import { type OriginateRequest, originate } from '../../pbx/originate.js'
import type { AmiMessage } from '../../wire/message.js'
import { type ActionHandler, isTrue } from '../context.js'

export { parseCallerId }

const DEFAULT_TIMEOUT_MS = 30_000

/**
 * Every `Variable:` header, each possibly `a=1,b=2`, as astman_get_variables reads them: split at
 * commas outside double quotes, the quotes removed (ast_app_separate_args), so
 * `HD_CALLER_ID="Hold, Ltd" <+44>` arrives as `Hold, Ltd <+44>`.
 */
export function parseVariables(msg: AmiMessage): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const header of msg.getAll('Variable')) {
    for (const item of separateArgs(header)) {
      const eq = item.indexOf('=')
      if (eq <= 0) continue
      vars[item.slice(0, eq).trim()] = item.slice(eq + 1)
    }
  }
  return vars
}

function separateArgs(text: string): string[] {
  const out: string[] = []
  let current = ''
  let quoted = false
  for (const c of text) {
    if (c === '"') quoted = !quoted
    else if (c === ',' && !quoted) {
      out.push(current)
      current = ''
    } else current += c
  }
  out.push(current)
  return out
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
