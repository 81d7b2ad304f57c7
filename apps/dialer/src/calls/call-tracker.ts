import { type AmiMessage, header } from '@hold-dialer/ami'
import type { Agent } from '../agents/agent-tracker.js'
import { CAUSE_TEXT, type CallOutcome, customerOutcome } from './outcomes.js'

export interface CallStart {
  /**
   * ChannelId given to Originate: the first leg's Uniqueid (the agent's desk in progressive mode, the
   * customer in predictive mode) and the Linkedid of every leg.
   */
  key: string
  mode?: 'progressive' | 'predictive'
  /** Predictive, pinned mode: the call belongs to `agent` alone. */
  pinned?: boolean
  actionId: string
  leadId: number
  oliId: string
  phone: string
  agent: Agent | null
  startedAt: Date
  /** No result by then: settled from what is known (a lost Hangup must not hold a lead forever). */
  deadline: Date
  /** No OriginateResponse and no channel by then: the originate is taken as never placed. */
  originateDeadline: Date
}

interface Leg {
  name: string
  up: boolean
  hungUp: boolean
  hangupOrder?: number
  cause?: number
  causeTxt?: string
}

export interface TrackedCall extends CallStart {
  legs: Map<string, Leg>
  customerUniqueid?: string
  originateResponse?: { success: boolean; reason: number | undefined }
  dialStatus?: string
  answeredAt?: Date
  /** Predictive: when an agent's leg joined the customer. */
  bridgedAt?: Date
  /** Predictive: when a failed OriginateResponse arrived. */
  failedAt?: Date
  /** Predictive: sent to an agent's extension (Redirect accepted). */
  redirected?: boolean
  /** Predictive: hung up by the dialer after HOLD_TIMEOUT_SECONDS on hold. */
  holdExpired?: boolean
  hangups: number
  adopted: boolean
}

export interface CallResult {
  outcome: CallOutcome
  why: string
  answeredAt: Date | null
  endedAt: Date
  dialStatus: string | null
  originateReason: number | null
  hangupCause: number | null
  hangupCauseTxt: string | null
  hangupBy: 'customer' | 'agent' | 'system' | null
  customerUniqueid: string | null
}

/** How long a failed predictive originate waits for a channel event before it is settled without one. */
const FAILED_GRACE_MS = 500

const num = (v: string | undefined) =>
  v === undefined || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v)

/**
 * Follows each placed call through its AMI events and says when it is over and how it ended. Calls are
 * keyed by the ChannelId this dialer gave the Originate: Asterisk uses it as the first leg's Uniqueid and
 * every leg created from it carries it as Linkedid, so events are matched without guessing. The
 * OriginateResponse is matched by ActionID. Events may arrive in any order (AMI-NOTES); a call is over
 * when its OriginateResponse has arrived and every leg seen has hung up, or when the originate failed.
 */
export class CallTracker {
  readonly #calls = new Map<string, TrackedCall>()
  readonly #byAction = new Map<string, string>()

  constructor(
    private readonly now: () => Date,
    private readonly onFinished: (call: TrackedCall, result: CallResult) => void,
    private readonly hooks: {
      /** Predictive: the customer answered (now waiting for an agent). */
      onAnswered?: (call: TrackedCall) => void
      /** Predictive: an agent's leg failed to join (busy, no answer): the customer is back on hold. */
      onAgentLegFailed?: (call: TrackedCall, dialStatus: string) => void
    } = {},
  ) {}

  add(start: CallStart, adopted = false): TrackedCall {
    const call: TrackedCall = { ...start, legs: new Map(), hangups: 0, adopted }
    // Predictive: the originated leg is the customer.
    if (start.mode === 'predictive') call.customerUniqueid = start.key
    this.#calls.set(start.key, call)
    this.#byAction.set(start.actionId, start.key)
    return call
  }

  active(): TrackedCall[] {
    return [...this.#calls.values()]
  }

  get size(): number {
    return this.#calls.size
  }

  has(key: string): boolean {
    return this.#calls.has(key)
  }

  handle(event: AmiMessage): void {
    const name = header(event, 'event')?.toLowerCase()
    if (name === 'originateresponse') {
      const key = this.#byAction.get(header(event, 'actionid') ?? '')
      const call = key ? this.#calls.get(key) : undefined
      if (!call) return
      call.originateResponse = {
        success: header(event, 'response')?.toLowerCase() === 'success',
        reason: num(header(event, 'reason')),
      }
      if (call.originateResponse.success) {
        // Predictive: success means the customer answered, whether or not Newstate Up came first; the
        // event names the customer's channel, which the Redirect to an agent needs.
        if (call.mode === 'predictive') {
          this.#leg(call, call.key, header(event, 'channel'))
          this.#up(call, call.key)
        }
        this.#maybeFinished(call)
      } else if (call.mode === 'predictive') {
        // The customer's Hangup (with the cause that tells a reject from congestion) may still be on
        // its way (AMI-NOTES: no order is guaranteed): finish when it lands, or shortly after.
        call.failedAt = this.now()
        this.#maybeFinished(call)
      } else {
        this.#finish(call)
      }
      return
    }
    const linked = header(event, 'linkedid') ?? header(event, 'destlinkedid')
    const call = linked ? this.#calls.get(linked) : undefined
    if (!call) return
    const uniqueid = header(event, 'uniqueid') ?? ''
    switch (name) {
      case 'newchannel':
        this.#leg(call, uniqueid, header(event, 'channel'))
        if (uniqueid !== call.key && call.mode !== 'predictive') call.customerUniqueid ??= uniqueid
        if (header(event, 'channelstatedesc') === 'Up') this.#up(call, uniqueid)
        break
      case 'newstate':
        this.#leg(call, uniqueid, header(event, 'channel'))
        if (header(event, 'channelstatedesc') === 'Up') this.#up(call, uniqueid)
        break
      case 'dialbegin':
        if (call.mode !== 'predictive')
          call.customerUniqueid = header(event, 'destuniqueid') ?? call.customerUniqueid
        break
      case 'dialend': {
        const status = header(event, 'dialstatus')
        if (call.mode === 'predictive') {
          // The customer's channel dialing an agent: a failure sends the customer back to hold.
          if (status && status !== 'ANSWER') this.hooks.onAgentLegFailed?.(call, status)
          break
        }
        call.customerUniqueid = header(event, 'destuniqueid') ?? call.customerUniqueid
        call.dialStatus = status
        break
      }
      case 'bridgeenter':
        this.#leg(call, uniqueid, header(event, 'channel'))
        this.#up(call, uniqueid)
        if (call.mode === 'predictive' && uniqueid !== call.key) call.bridgedAt ??= this.now()
        break
      case 'hangup': {
        const leg = this.#leg(call, uniqueid, header(event, 'channel'))
        if (!leg.hungUp) {
          leg.hungUp = true
          call.hangups += 1
          leg.hangupOrder = call.hangups
          leg.cause = num(header(event, 'cause'))
          leg.causeTxt = header(event, 'cause-txt')
        }
        this.#maybeFinished(call)
        break
      }
    }
  }

  /** The Originate action itself was refused: nothing was placed. */
  originateRefused(key: string): void {
    const call = this.#calls.get(key)
    if (call) this.#finish(call, { outcome: 'Failed', why: 'Originate refused by the PBX' })
  }

  /** Settles calls past their deadlines from what is known; returns them (the caller hangs up their legs). */
  expire(): TrackedCall[] {
    const now = this.now().getTime()
    const out: TrackedCall[] = []
    for (const call of this.#calls.values()) {
      if (call.failedAt && call.legs.size === 0 && now - call.failedAt.getTime() >= FAILED_GRACE_MS) {
        out.push(call)
        this.#finish(call)
        continue
      }
      const noSign = !call.originateResponse && call.legs.size === 0
      if (noSign && now >= call.originateDeadline.getTime()) {
        out.push(call)
        this.#finish(call, { outcome: 'Failed', why: 'no OriginateResponse and no channel: never placed' })
      } else if (now >= call.deadline.getTime()) {
        out.push(call)
        this.#finish(call, undefined, 'call timeout: final events missing')
      }
    }
    return out
  }

  /**
   * After an AMI reconnect: calls none of whose legs is still alive ended while events were lost;
   * settle them from what is known.
   */
  reconcile(liveLinkedIds: ReadonlySet<string>): void {
    for (const call of [...this.#calls.values()]) {
      if (!liveLinkedIds.has(call.key) && (call.legs.size > 0 || call.originateResponse)) {
        this.#finish(call, undefined, 'ended while AMI was disconnected')
      }
    }
  }

  #leg(call: TrackedCall, uniqueid: string, name: string | undefined): Leg {
    let leg = call.legs.get(uniqueid)
    if (!leg) {
      leg = { name: name ?? uniqueid, up: false, hungUp: false }
      call.legs.set(uniqueid, leg)
    }
    return leg
  }

  #up(call: TrackedCall, uniqueid: string): void {
    const leg = call.legs.get(uniqueid)
    if (leg) leg.up = true
    if (uniqueid === call.customerUniqueid && !call.answeredAt) {
      call.answeredAt = this.now()
      if (call.mode === 'predictive') this.hooks.onAnswered?.(call)
    }
  }

  #maybeFinished(call: TrackedCall): void {
    if (!call.originateResponse && !call.adopted) return
    if (call.legs.size === 0) return
    for (const leg of call.legs.values()) if (!leg.hungUp) return
    this.#finish(call)
  }

  #finish(call: TrackedCall, forced?: { outcome: CallOutcome; why: string }, note?: string): void {
    if (!this.#calls.delete(call.key)) return
    this.#byAction.delete(call.actionId)
    this.onFinished(call, this.result(call, forced, note))
  }

  result(call: TrackedCall, forced?: { outcome: CallOutcome; why: string }, note?: string): CallResult {
    const customer = call.customerUniqueid ? call.legs.get(call.customerUniqueid) : undefined
    const answered = Boolean(call.answeredAt || customer?.up)
    let decided: { outcome: CallOutcome; why: string }
    if (forced) decided = forced
    else if (call.mode === 'predictive') {
      decided = answered
        ? call.bridgedAt
          ? { outcome: 'Received', why: 'answered and connected to an agent' }
          : {
              outcome: 'Abandoned',
              why: 'answered, no agent connected before the customer left or the hold timeout',
            }
        : customerOutcome({
            answered: false,
            originateReason: call.originateResponse?.reason,
            hangupCause: customer?.cause,
          })
    } else if (!customer && !call.dialStatus) {
      // The agent's desk leg failed or was hung up before the customer was dialed: nothing was placed.
      decided = {
        outcome: 'Failed',
        why: call.originateResponse?.success === false ? 'agent leg not answered' : 'customer never dialed',
      }
    } else {
      decided = customerOutcome({ answered, dialStatus: call.dialStatus, hangupCause: customer?.cause })
    }
    const agentLeg = call.legs.get(call.key)
    let hangupBy: CallResult['hangupBy'] = null
    if (answered && customer?.hangupOrder !== undefined) {
      hangupBy =
        agentLeg?.hangupOrder !== undefined && agentLeg.hangupOrder < customer.hangupOrder
          ? 'agent'
          : 'customer'
    } else if (customer?.cause === 17 || customer?.cause === 21) hangupBy = 'customer'
    else if (customer || call.dialStatus) hangupBy = 'system'
    const cause = customer?.cause
    return {
      outcome: decided.outcome,
      why: note ? `${decided.why} (${note})` : decided.why,
      answeredAt: call.answeredAt ?? null,
      endedAt: this.now(),
      dialStatus: call.dialStatus ?? null,
      originateReason: call.originateResponse?.reason ?? null,
      hangupCause: cause ?? null,
      hangupCauseTxt: cause === undefined ? null : (customer?.causeTxt ?? CAUSE_TEXT[cause] ?? null),
      hangupBy,
      customerUniqueid: call.customerUniqueid ?? null,
    }
  }
}
