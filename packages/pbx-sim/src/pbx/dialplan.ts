import { Cause, ChannelState } from '../causes.js'
import { parseCallerId } from '../model/callerid.js'
import { type Channel, channelFields } from '../model/channel.js'
import { normalizeNumber, parseDialString } from '../model/dialstring.js'
import { joinBridge } from './bridges.js'
import type { PbxCore } from './engine.js'
import { dialBeginFields, dialEndFields } from './events.js'
import { type LegFailure, type RingPlan, ringLeg, ringPlanOf } from './legs.js'

/** Where an answered channel goes: an application, or a dialplan context/extension. */
export interface AnswerTarget {
  application: string | null
  data: string | null
  context: string | null
  exten: string | null
  /** Ring timeout for a Dial this channel makes (the Originate's Timeout). */
  dialTimeoutSeconds: number
}

/** A customer who answered starts losing patience; a bridge to an agent stops the clock. */
export function startPatience(core: PbxCore, ch: Channel): void {
  const patience = ch.plan?.patienceSeconds
  if (ch.role !== 'customer' || patience === null || patience === undefined || ch.patienceTimer) return
  ch.patienceTimer = core.after(ch, patience, () => core.hangup(ch, Cause.NormalClearing, 'customer'))
}

/** Runs what the Originate asked for once its channel answered. */
export function afterAnswer(core: PbxCore, ch: Channel, target: AnswerTarget): void {
  if (target.application !== null) {
    runApplication(core, ch, target.application, target.data ?? '')
    return
  }
  runDialplan(core, ch, target.context ?? 'default', target.exten ?? 's', target.dialTimeoutSeconds)
}

function runApplication(core: PbxCore, ch: Channel, app: string, data: string): void {
  ch.application = app
  ch.applicationData = data
  if (app.toLowerCase() === 'bridge') {
    const other = core.channels.get(data.split(',')[0]?.trim() ?? '')
    if (other && other !== ch && core.isUp(other) && !other.bridge && !other.dialing) {
      joinBridge(core, ch, other)
    } else {
      core.hangup(ch, Cause.NormalClearing, 'system')
    }
    return
  }
  if (ch.role === 'customer' && ch.plan) {
    // A customer in an application (a message, an IVR) listens, then hangs up.
    core.log.setOutcome(ch.call, 'answered')
    const talk = ch.plan.talkSeconds
    core.after(ch, talk, () => core.hangup(ch, Cause.NormalClearing, 'customer'))
  }
}

/**
 * The simulated dialplan: the customer context dials the customer number, the hold context
 * holds, an agent extension dials that agent, anything else parks the channel in Wait().
 */
export function runDialplan(
  core: PbxCore,
  ch: Channel,
  context: string,
  exten: string,
  timeout: number,
): void {
  ch.context = context
  ch.exten = exten
  ch.priority = 1
  if (context === core.config.customerContext) dialCustomer(core, ch, normalizeNumber(exten), timeout)
  else if (context === core.config.holdContext) holdContext(core, ch)
  else if (core.isAgent(exten)) dialAgent(core, ch, exten)
  else park(core, ch)
}

/** AMDCAUSE as AMD() writes it with its stock settings (apps/app_amd.c). */
const AMD_CAUSE: Record<string, (ms: number) => string> = {
  HUMAN: () => 'HUMAN-800-800',
  MACHINE: () => 'LONGGREETING-1500-1500',
  NOTSURE: (ms) => `TOOLONG-${ms}`,
}

/**
 * The shipped HOLD_CONTEXT: with HD_AMD set (the dialer's AMD setting), AMD() listens first and the
 * verdict goes out as `UserEvent: HoldDialerAmd` with Status and Cause, from the customer's channel;
 * a MACHINE is hung up (cause 16) unless HD_AMD is `record`. Then, or at once, the customer holds.
 */
function holdContext(core: PbxCore, ch: Channel): void {
  const mode = ch.vars.get('HD_AMD') ?? ''
  if (mode === '' || ch.role !== 'customer') {
    hold(core, ch)
    return
  }
  // A person may hang up while AMD listens.
  startPatience(core, ch)
  runAmd(core, ch, mode, (person) => {
    if (person) hold(core, ch)
    else core.hangup(ch, Cause.NormalClearing, 'system')
  })
}

/**
 * AMD() on an answered customer for the plan's detection time, then the dialplan's UserEvent from
 * that channel. `done(false)`: a MACHINE with HD_AMD `hangup` (the call's record says `machine`).
 */
function runAmd(core: PbxCore, ch: Channel, mode: string, done: (person: boolean) => void): void {
  const verdict = ch.plan?.amd ?? { status: 'HUMAN', seconds: 2 }
  ch.application = 'AMD'
  ch.applicationData = ''
  core.after(ch, verdict.seconds, () => {
    core.emitUser('UserEvent', [
      ...channelFields(ch),
      ['UserEvent', 'HoldDialerAmd'],
      ['Status', verdict.status],
      ['Cause', AMD_CAUSE[verdict.status]?.(Math.round(verdict.seconds * 1000)) ?? ''],
    ])
    const machine = verdict.status === 'MACHINE' && mode === 'hangup'
    if (machine) core.log.setOutcome(ch.call, 'machine')
    done(!machine)
  })
}

export function hold(core: PbxCore, ch: Channel): void {
  ch.application = 'MusicOnHold'
  ch.applicationData = ''
  startPatience(core, ch)
}

function park(core: PbxCore, ch: Channel): void {
  ch.application = 'Wait'
  ch.applicationData = '3600'
  startPatience(core, ch)
}

/** Stops a Dial the channel is making: DialEnd CANCEL and the dialled leg hangs up. */
export function cancelDial(core: PbxCore, caller: Channel): void {
  const dest = caller.dialing
  if (!dest) return
  caller.dialing = null
  caller.onHangup = null
  dest.onHangup = null
  core.emit('DialEnd', dialEndFields(caller, dest, 'CANCEL'))
  core.hangup(dest, Cause.NormalClearing, 'system')
}

interface DialLeg {
  dest: Channel
  dialString: string
  plan: RingPlan
  timeout: number
  onAnswer: () => void
  onFailure: (failure: LegFailure) => void
  /**
   * Dial's `U()` subroutine on the answered callee, before DialEnd: `done(true)` connects the call;
   * `done(false)` is `GOSUB_RESULT=CONTINUE`: DialEnd CONTINUE, the callee hung up (cause 16), and
   * `onContinue` goes on in the caller's dialplan.
   */
  screen?: { run: (dest: Channel, done: (connect: boolean) => void) => void; onContinue: () => void }
}

/** app_dial in miniature: DialBegin, ring, DialEnd, then answer or failure handling. */
function dial(core: PbxCore, caller: Channel, leg: DialLeg): void {
  const { dest } = leg
  caller.dialing = dest
  core.emit('DialBegin', dialBeginFields(caller, dest, leg.dialString))
  caller.onHangup = (_cause, by) => {
    caller.dialing = null
    dest.onHangup = null
    core.emit('DialEnd', dialEndFields(caller, dest, 'CANCEL'))
    if (dest.role === 'customer') core.log.setOutcome(dest.call, 'cancelled')
    core.hangup(dest, Cause.NormalClearing, by)
  }
  ringLeg(core, dest, leg.plan, leg.timeout, (result) => {
    if (caller.hungUp || caller.dialing !== dest) return
    caller.dialing = null
    caller.onHangup = null
    if (result.answered) {
      core.setState(dest, ChannelState.Up)
      const connect = () => {
        core.emit('DialEnd', dialEndFields(caller, dest, 'ANSWER'))
        leg.onAnswer()
      }
      const screen = leg.screen
      if (!screen) {
        connect()
        return
      }
      // Either party hanging up during the subroutine ends the other.
      caller.onHangup = (_cause, by) => core.hangup(dest, Cause.NormalClearing, by)
      dest.onHangup = (_cause, by) => core.hangup(caller, Cause.NormalClearing, by)
      screen.run(dest, (go) => {
        caller.onHangup = null
        dest.onHangup = null
        if (caller.hungUp || dest.hungUp) return
        if (go) {
          connect()
          return
        }
        core.emit('DialEnd', dialEndFields(caller, dest, 'CONTINUE'))
        core.hangup(dest, Cause.NormalClearing, 'system')
        screen.onContinue()
      })
      return
    }
    const { failure } = result
    core.emit('DialEnd', dialEndFields(caller, dest, failure.dialStatus))
    if (dest.role === 'customer') {
      dest.call.record.dialStatus = failure.dialStatus
      core.log.setOutcome(dest.call, failure.outcome)
      // The record keeps why the call ended; the channels' own causes follow Asterisk below.
      dest.call.record.hangupBy ??= failure.by
      dest.call.record.hangupCause ??= failure.cause
    }
    // A ring timeout: Dial hangs up the callee itself, and Asterisk reports cause 0 on it.
    const destCause =
      failure.dialStatus === 'NOANSWER' && failure.cause === Cause.NoAnswer ? 0 : failure.cause
    core.hangup(dest, destCause, dest.role === 'agent' ? 'agent' : failure.by)
    leg.onFailure(failure)
  })
}

/**
 * The caller IDs of a Dial (app_dial): the caller's caller ID becomes the called channel's connected
 * line (what it is shown); the called channel's own caller ID is the extension dialed with the name
 * the caller is connected to.
 */
function dialedParties(core: PbxCore, caller: Channel, dest: Channel, exten: string): void {
  dest.callerIdNum = exten
  dest.callerIdName = caller.connectedName
  core.setConnected(dest, { num: caller.callerIdNum, name: caller.callerIdName })
}

/**
 * Progressive: the answered agent's channel dials the customer through the trunk. The shipped
 * dialplan first sets the channel's caller ID to HD_CALLER_ID (empty when unset), which the customer
 * is shown instead of the Originate's (the customer's own).
 */
function dialCustomer(core: PbxCore, caller: Channel, number: string, timeout: number): void {
  const { customerTechnology: tech, trunk } = core.config
  core.setCallerId(caller, parseCallerId(caller.vars.get('HD_CALLER_ID')))
  if (core.trunkDown) {
    // The channel request fails: no channel, no DialBegin; DIALSTATUS CHANUNAVAIL and the
    // dialplan's Hangup() with the request's cause (66 for a technology that cannot create it, as
    // the test bed's NoSuchTech/%s shows).
    caller.application = 'Dial'
    caller.call.record.dialStatus = 'CHANUNAVAIL'
    core.log.setOutcome(caller.call, 'failed')
    core.hangup(caller, Cause.ChanNotImplemented, 'system')
    return
  }
  const plan = core.planFor(number)
  caller.call.plan = plan
  // ${EXTEN} as dialed, its punctuation left out; a leading + is kept (`Local/+3612345201@customers`).
  const dialed = caller.exten.trim().startsWith('+') ? `+${number}` : number
  const dialString = (core.config.customerDial ?? `${tech}/%s@${trunk}`).replaceAll('%s', dialed)
  const target = parseDialString(dialString)
  caller.application = 'Dial'
  caller.applicationData = `${dialString},${Math.round(timeout)}`
  const dest = core.createChannel({
    base: target?.channelBase ?? `${tech}/${trunk}`,
    isLocal: target?.isLocal ?? false,
    role: 'customer',
    agentExtension: null,
    number,
    call: caller.call,
    callerIdNum: caller.callerIdNum,
    callerIdName: caller.callerIdName,
    context: caller.context,
    exten: number,
    plan,
    linkedid: caller.linkedid,
  })
  dialedParties(core, caller, dest, dialed)
  dial(core, caller, {
    dest,
    dialString: dialString.replace(/^[^/]+\//, ''),
    plan: ringPlanOf(plan),
    timeout,
    onAnswer: () => {
      caller.call.record.answeredAt ??= core.now()
      caller.call.record.dialStatus = 'ANSWER'
      joinBridge(core, caller, dest, { dialed: true })
    },
    // The shipped CUSTOMER_CONTEXT dials with U(dialer-amd) when the Originate set HD_AMD.
    ...(caller.vars.get('HD_AMD')
      ? {
          screen: {
            run: (answered: Channel, done: (connect: boolean) => void) => {
              caller.call.record.answeredAt = core.now()
              runAmd(core, answered, caller.vars.get('HD_AMD') ?? '', done)
            },
            // The dialplan's Hangup() after the Dial: the desk hangs up.
            onContinue: () => core.hangup(caller, Cause.NormalClearing, 'system'),
          },
        }
      : {}),
    // The agent's dialplan ends after a failed Dial (`Hangup()`: cause 16). A callee that hung up with
    // a cause of its own (a reject) passes it on to the caller, as Asterisk does; busy and congestion
    // arrive as indications and a ring timeout has no cause, so those leave 16.
    onFailure: (failure) =>
      core.hangup(
        caller,
        failure.cause === Cause.CallRejected ? failure.cause : Cause.NormalClearing,
        failure.by,
      ),
  })
}

/**
 * Predictive: the waiting customer's channel dials an agent (after Redirect). The shipped
 * AGENT_CONTEXT first sets the channel's caller ID to HD_CUSTOMER_ID, which the desk is shown.
 */
function dialAgent(core: PbxCore, caller: Channel, extension: string): void {
  core.setCallerId(caller, parseCallerId(caller.vars.get('HD_CUSTOMER_ID')))
  const reach = core.agents.reachability(extension)
  const dialString = core.config.agentDial?.replaceAll('%s', extension) ?? core.agents.device(extension)
  const target = parseDialString(dialString)
  caller.application = 'Dial'
  caller.applicationData = `${dialString},${core.config.agentDialTimeoutSeconds}`
  if (reach === 'unavailable') {
    // No registered phone: the channel cannot even be created; the customer goes back on hold.
    hold(core, caller)
    return
  }
  const dest = core.createChannel({
    base: target?.channelBase ?? core.agents.device(extension),
    isLocal: target?.isLocal ?? false,
    role: 'agent',
    agentExtension: extension,
    number: null,
    call: caller.call,
    callerIdNum: caller.callerIdNum,
    callerIdName: caller.callerIdName,
    context: caller.context,
    exten: extension,
    plan: null,
    linkedid: caller.linkedid,
  })
  dialedParties(core, caller, dest, extension)
  const plan: RingPlan =
    reach === 'idle' ? { kind: 'answer', ringSeconds: core.config.agentAnswerSeconds } : { kind: 'busy' }
  dial(core, caller, {
    dest,
    dialString: extension,
    plan,
    timeout: core.config.agentDialTimeoutSeconds,
    onAnswer: () => joinBridge(core, caller, dest, { dialed: true }),
    onFailure: () => hold(core, caller),
  })
}
