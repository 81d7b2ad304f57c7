import type { CallResult, Leg, TrackedCall } from './call-tracker.js'
import { AGENT_FAILURE, CAUSE_TEXT, type CallOutcome, customerOutcome } from './outcomes.js'

/**
 * The customer's channels. In progressive mode a channel the dial never classified (no DialBegin:
 * the customer's channel could not even be dialed, e.g. an unknown number on a Local route) counts as
 * the customer's when nothing else does.
 */
function customerLegs(call: TrackedCall): Leg[] {
  const legs = [...call.legs.values()]
  const customer = legs.filter((l) => l.side === 'customer')
  if (customer.length > 0 || call.mode === 'predictive') return customer
  return legs.filter((l) => l.side === undefined)
}

/**
 * The cause that tells what happened to the customer: a non-zero one, from the far half of a Local
 * pair (`;2`) first, where Asterisk puts the real cause while the near half often says 0.
 */
function customerCause(legs: Leg[]): Leg | undefined {
  const withCause = legs.filter((l) => l.cause !== undefined)
  return (
    withCause.find((l) => l.cause !== 0 && l.name.endsWith(';2')) ??
    withCause.find((l) => l.cause !== 0) ??
    withCause[0]
  )
}

/**
 * Who ended an answered call: the side of the first hangup request, else the side whose channel hung
 * up first (the order of Hangup events, which a loaded PBX can publish out of order).
 */
function hangupBy(call: TrackedCall, customer: Leg[], answered: boolean, cause: number | undefined) {
  // A Local half optimised out is no party hanging up; its LocalOptimizationBegin may arrive after
  // its Hangup (no order across channels is guaranteed), so it is left out here, when the call ends.
  const first = (side: Leg[]) =>
    Math.min(
      ...side.map((l) =>
        l.optimisedOut ? Number.POSITIVE_INFINITY : (l.hangupOrder ?? Number.POSITIVE_INFINITY),
      ),
      Number.POSITIVE_INFINITY,
    )
  // The dialplan hung up a machine.
  if (answered && call.machine && !call.bridgedAt) return 'system'
  if (answered) {
    // A Local half optimised out is hung up by Asterisk, not by a party (its LocalOptimizationBegin
    // may come after its request).
    const requested = call.hangupRequests.find((l) => !l.optimisedOut)?.side
    if (requested && !call.holdExpired) return requested
    const c = first(customer)
    if (c !== Number.POSITIVE_INFINITY) {
      const a = first([...call.legs.values()].filter((l) => l.side === 'agent'))
      return a < c ? 'agent' : 'customer'
    }
  }
  if (cause === 17 || cause === 21) return 'customer'
  if (customer.length > 0 || call.dialStatus) return 'system'
  return null
}

/**
 * A predictive customer who never answered, by the outcome table. Reason 0 there means the channel
 * could not be created (restored, not counted); but when the customer's channel was created and its
 * call failed at once with nothing more telling (an unknown number on a Local route, a trunk that
 * refused it), the number was dialed and not reached: Not Connected. Restoring it would dial it again
 * forever.
 */
function predictiveUnanswered(call: TrackedCall, customer: Leg[], cause: number | undefined) {
  const decided = customerOutcome({
    answered: false,
    dialStatus: call.dialStatus,
    originateReason: call.originateResponse?.reason,
    hangupCause: cause,
  })
  if (decided.outcome === 'Failed' && call.originateResponse?.reason === 0 && customer.length > 0) {
    return {
      outcome: 'Not Connected' as const,
      why: 'Reason 0 after the channel was created: could not be dialed',
    }
  }
  return decided
}

/** How a finished call ended, from what its events said. `forced` overrides the outcome. */
export function callResult(
  call: TrackedCall,
  now: Date,
  forced?: { outcome: CallOutcome; why: string },
  note?: string,
): CallResult {
  const customer = customerLegs(call)
  const answered = Boolean(call.answeredAt || customer.some((l) => l.up))
  const causeLeg = customerCause(customer)
  const cause = causeLeg?.cause
  let decided: { outcome: CallOutcome; why: string }
  if (forced) decided = forced
  else if (call.mode === 'predictive') {
    decided = answered
      ? call.machine && !call.bridgedAt
        ? { outcome: 'Machine', why: `answering machine (AMD ${call.amd?.cause || 'MACHINE'}), hung up` }
        : call.bridgedAt
          ? { outcome: 'Received', why: 'answered and connected to an agent' }
          : {
              outcome: 'Abandoned',
              why: 'answered, no agent connected before the customer left or the hold timeout',
            }
      : predictiveUnanswered(call, customer, cause)
  } else if (call.originateResponse?.success === false) {
    // Progressive: the Originate rang the agent's desk and failed; the customer was never dialed.
    const reason = call.originateResponse.reason
    decided = {
      outcome: 'Failed',
      why: `agent's desk: ${AGENT_FAILURE[reason ?? 0] ?? `Reason ${reason}`}`,
    }
  } else if (customer.length === 0 && !call.dialStatus) {
    // The agent hung up (or the desk's channel ended) before the customer was dialed.
    decided = { outcome: 'Failed', why: 'customer never dialed' }
  } else if (answered && (call.machine || call.dialStatus === 'CONTINUE')) {
    // Progressive: the customer's leg was hung up by the Dial's AMD subroutine (DialEnd CONTINUE, which
    // only that subroutine causes in the shipped dialplan), even if its UserEvent was missed.
    decided = { outcome: 'Machine', why: `answering machine (AMD ${call.amd?.cause || 'MACHINE'}), hung up` }
  } else {
    decided = customerOutcome({ answered, dialStatus: call.dialStatus, hangupCause: cause })
  }
  return {
    outcome: decided.outcome,
    why: note ? `${decided.why} (${note})` : decided.why,
    answeredAt: call.answeredAt ?? null,
    endedAt: now,
    dialStatus: call.dialStatus ?? null,
    originateReason: call.originateResponse?.reason ?? null,
    hangupCause: cause ?? null,
    hangupCauseTxt: cause === undefined ? null : (causeLeg?.causeTxt ?? CAUSE_TEXT[cause] ?? null),
    hangupBy: hangupBy(call, customer, answered, cause),
    customerUniqueid: call.customerUniqueid ?? customer[0]?.uniqueid ?? null,
  }
}
