import { ChannelState, Reason } from '../causes.js'
import type { CallState } from '../model/callLog.js'
import type { Channel } from '../model/channel.js'
import { type DialTarget, normalizeNumber } from '../model/dialstring.js'
import type { CallMode } from '../types.js'
import { afterAnswer, startPatience } from './dialplan.js'
import type { PbxCore } from './engine.js'
import { dialBeginFields, dialEndFields, originateResponseFields } from './events.js'
import { type LegFailure, type RingPlan, ringLeg, ringPlanOf } from './legs.js'

export interface OriginateRequest {
  actionId: string | null
  target: DialTarget
  context: string | null
  exten: string | null
  application: string | null
  data: string | null
  timeoutMs: number
  callerIdNum: string
  callerIdName: string
  variables: Record<string, string>
  channelId: string | null
  async: boolean
}

export interface OriginateResult {
  success: boolean
  reason: number
  channel: string
  uniqueid: string
}

function modeOf(core: PbxCore, req: OriginateRequest, isAgent: boolean): CallMode {
  if (!isAgent) return 'predictive'
  return req.application === null && req.context === core.config.customerContext ? 'progressive' : 'agent'
}

/**
 * One Originate: rings the requested leg (an agent desk or a customer), reports the result as
 * OriginateResponse when async, then hands an answered channel to its application or dialplan.
 * Resolves once the leg's fate is known, which is when a synchronous Originate gets its reply.
 */
export function originate(core: PbxCore, req: OriginateRequest): Promise<OriginateResult> {
  const extension = req.target.user
  const isAgent = core.isAgent(extension)
  const mode = modeOf(core, req, isAgent)
  const number = isAgent
    ? mode === 'progressive' && req.exten !== null
      ? normalizeNumber(req.exten)
      : null
    : normalizeNumber(req.target.user)
  const call = core.log.start({
    actionId: req.actionId,
    mode,
    number,
    agentExtension: isAgent ? extension : null,
    originateChannel: req.target.requested,
    context: req.context,
    exten: req.exten,
    application: req.application,
    data: req.data,
    variables: req.variables,
    startedAt: core.now(),
  })
  const timeoutSeconds = req.timeoutMs / 1000

  return new Promise((resolve) => {
    const respond = (success: boolean, reason: number, ch: Channel | null): void => {
      const result = {
        success,
        reason,
        channel: ch?.name ?? req.target.requested,
        uniqueid: ch?.uniqueid ?? (req.channelId || '<unknown>'),
      }
      if (req.async) {
        core.emit(
          'OriginateResponse',
          originateResponseFields({
            actionId: req.actionId,
            success,
            channel: result.channel,
            context: req.context,
            exten: req.exten,
            application: req.application,
            data: req.data,
            reason,
            uniqueid: result.uniqueid,
            callerIdNum: req.callerIdNum,
            callerIdName: req.callerIdName,
          }),
        )
      }
      resolve(result)
    }
    // Asterisk publishes the channel event and OriginateResponse on different threads; the order
    // here is fixed per call by the seed (or by the originateResponseOrder option).
    const ordered = (channelStep: () => void, responseStep: () => void): void => {
      if (core.originateResponseFirst()) {
        responseStep()
        channelStep()
      } else {
        channelStep()
        responseStep()
      }
    }

    let plan: RingPlan
    if (isAgent) {
      const reach = core.agents.reachability(extension)
      if (reach === 'unavailable') {
        noChannel(core, call, 'agent-unavailable')
        respond(false, Reason.Failure, null)
        return
      }
      plan =
        reach === 'idle' ? { kind: 'answer', ringSeconds: core.config.agentAnswerSeconds } : { kind: 'busy' }
    } else {
      call.plan = core.planFor(number ?? extension)
      if (call.plan.result === 'fail' || core.trunkDown) {
        noChannel(core, call, 'failed')
        respond(false, Reason.Failure, null)
        return
      }
      plan = ringPlanOf(call.plan)
    }

    const ch = core.createChannel({
      base: req.target.channelBase,
      isLocal: req.target.isLocal,
      role: isAgent ? 'agent' : 'customer',
      agentExtension: isAgent ? extension : null,
      number: isAgent ? null : number,
      call,
      callerIdNum: req.callerIdNum,
      callerIdName: req.callerIdName,
      context: req.context ?? 'default',
      exten: req.exten ?? 's',
      plan: call.plan,
      uniqueid: req.channelId ?? undefined,
    })
    for (const [key, value] of Object.entries(req.variables)) ch.vars.set(key, value)
    // The Originate's CallerID is the channel's caller ID and its connected line: what the called
    // desk or customer is shown (Asterisk publishes both right after Newchannel).
    core.setConnected(ch, { num: req.callerIdNum, name: req.callerIdName })
    // The Originate dials its own channel: a DialBegin/DialEnd pair with no caller (as Asterisk 22).
    core.emit('DialBegin', dialBeginFields(null, ch, req.target.requested.replace(/^[^/]+\//, '')))

    ringLeg(core, ch, plan, timeoutSeconds, (result) => {
      if (!result.answered) {
        const failure = agentFailure(isAgent, result.failure)
        core.log.setOutcome(call, failure.outcome)
        if (!isAgent) call.record.dialStatus = failure.dialStatus
        // A ring timeout ends the Originate with no DialEnd; busy, congestion and a reject report one.
        const timedOut = failure.dialStatus === 'NOANSWER' && failure.outcome !== 'rejected'
        if (!timedOut && failure.dialStatus !== 'CANCEL') {
          core.emit('DialEnd', dialEndFields(null, ch, failure.dialStatus))
        }
        ordered(
          () => core.hangup(ch, failure.cause, failure.by),
          () => respond(false, failure.reason, ch),
        )
        return
      }
      if (isAgent) {
        if (mode === 'agent') core.log.setOutcome(call, 'answered')
      } else {
        call.record.answeredAt = core.now()
        call.record.dialStatus = 'ANSWER'
      }
      ordered(
        () => {
          core.setState(ch, ChannelState.Up)
          core.emit('DialEnd', dialEndFields(null, ch, 'ANSWER'))
        },
        () => respond(true, Reason.Answered, ch),
      )
      if (ch.hungUp) return
      startPatience(core, ch)
      afterAnswer(core, ch, {
        application: req.application,
        data: req.data,
        context: req.context,
        exten: req.exten,
        dialTimeoutSeconds: timeoutSeconds,
      })
    })
  })
}

function agentFailure(isAgent: boolean, failure: LegFailure): LegFailure {
  if (!isAgent) return failure
  if (failure.outcome === 'busy') return { ...failure, outcome: 'agent-busy', by: 'agent' }
  if (failure.outcome === 'noanswer') return { ...failure, outcome: 'agent-noanswer' }
  return failure
}

function noChannel(core: PbxCore, call: CallState, outcome: 'failed' | 'agent-unavailable'): void {
  core.log.setOutcome(call, outcome)
  call.record.dialStatus = 'CHANUNAVAIL'
  call.record.hangupBy = 'system'
  call.record.hangupCause = 0
  core.log.finish(call, core.now())
}
