import { type AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import { type DeskStateSource, deskKey, hintStatusToDeviceState } from '@hold-dialer/rules'
import type { Logger } from 'pino'

/**
 * The state of each agent's desk as Asterisk reports it, from the source AGENT_DEVICE_TEMPLATE names
 * (a device or a hint, packages/rules desk-state-source.ts).
 *
 * Asterisk sends a state when it changes and lists only the devices it has cached, so a desk that has
 * not changed since Asterisk started (a PJSIP desk registered before, any Local desk) is in no list.
 * The rule for such a desk: the dialer asks Asterisk for it directly (`Getvar DEVICE_STATE(<device>)`
 * or `ExtensionState`) at each login and whenever a desk joins the roster, and counts it as idle only
 * when the answer is NOT_INUSE. UNKNOWN and INVALID (a device Asterisk does not know: usually a wrong
 * AGENT_DEVICE_TEMPLATE) keep it out with one warning per desk, and are asked again every
 * `REASK_MS`, since Asterisk sends no event for a device it does not track.
 */
/** How often a desk whose state Asterisk does not know is asked again. */
export const REASK_MS = 30_000

/** States that say Asterisk does not know the device or hint (not a state of a known desk). */
const UNKNOWN_STATES = new Set(['UNKNOWN', 'INVALID'])

export class DeskStates {
  readonly #state = new Map<string, string>()
  /** When each desk was last asked for (performance.now()), since the login. */
  readonly #askedAt = new Map<string, number>()
  readonly #warned = new Set<string>()
  /** Desks whose state an event set during a sync's list: the list's older entry must not win. */
  #fresh: Set<string> | undefined

  constructor(
    readonly source: DeskStateSource,
    private readonly logger: Logger,
  ) {}

  keyOf(extension: string): string {
    return deskKey(this.source, extension).toLowerCase()
  }

  /** The desk's last reported state in device-state words (NOT_INUSE, INUSE, ...), if any. */
  state(extension: string): string | undefined {
    return this.#state.get(this.keyOf(extension))
  }

  /** A DeviceStateChange or ExtensionStatus event (others are ignored). */
  onEvent(event: AmiMessage): void {
    const name = header(event, 'event')
    let key: string | undefined
    if (this.source.kind === 'device' && name === 'DeviceStateChange') key = this.#fromDevice(event)
    if (this.source.kind === 'hint' && name === 'ExtensionStatus') key = this.#fromHint(event)
    if (key) this.#fresh?.add(key)
  }

  /** After an AMI login: forget what was known, read Asterisk's list, ask for every desk not in it. */
  async sync(ami: AmiClient, extensions: string[]): Promise<void> {
    this.#state.clear()
    this.#askedAt.clear()
    const fresh = new Set<string>()
    this.#fresh = fresh
    try {
      const list =
        this.source.kind === 'device'
          ? await ami.listAction({ action: 'DeviceStateList' })
          : await ami.listAction({ action: 'ExtensionStateList' })
      for (const item of list) {
        const key = this.#keyOfItem(item)
        if (key && fresh.has(key)) continue
        if (this.source.kind === 'device') this.#fromDevice(item)
        else this.#fromHint(item)
      }
    } finally {
      this.#fresh = undefined
    }
    await this.askMissing(ami, extensions)
  }

  /**
   * Asks Asterisk for each desk with no reported state that was not asked for since the login, and
   * again for a desk it did not know when last asked (REASK_MS).
   */
  async askMissing(ami: AmiClient, extensions: string[]): Promise<void> {
    const now = performance.now()
    for (const extension of extensions) {
      const key = this.keyOf(extension)
      const known = this.#state.get(key)
      const askedAt = this.#askedAt.get(key)
      if (known !== undefined && !UNKNOWN_STATES.has(known)) continue
      if (askedAt !== undefined && (known === undefined || now - askedAt < REASK_MS)) continue
      this.#askedAt.set(key, now)
      // A PBX that refuses the question (an old Asterisk, a restricted AMI user) leaves the desk
      // UNKNOWN rather than stopping the login's sync: it becomes idle with its first state event.
      const state = await this.#ask(ami, extension).catch((err: Error) => {
        this.logger.warn({ err, extension }, "Asterisk did not answer for this desk's state")
        return 'UNKNOWN'
      })
      // An event that arrived meanwhile is newer than the answer.
      if (this.#state.get(key) === known) this.#state.set(key, state)
      if (UNKNOWN_STATES.has(state) && !this.#warned.has(key)) {
        this.#warned.add(key)
        this.logger.warn(
          { extension, desk: deskKey(this.source, extension), state },
          'Asterisk does not know this desk: the agent is not dialed (check AGENT_DEVICE_TEMPLATE)',
        )
      }
    }
  }

  async #ask(ami: AmiClient, extension: string): Promise<string> {
    if (this.source.kind === 'device') {
      const reply = await ami.action({
        action: 'Getvar',
        variable: `DEVICE_STATE(${deskKey(this.source, extension)})`,
      })
      return (header(reply, 'value') || 'UNKNOWN').toUpperCase()
    }
    const exten = this.source.extenTemplate.replaceAll('{extension}', extension)
    const reply = await ami.action({ action: 'ExtensionState', exten, context: this.source.context })
    return hintStatusToDeviceState(Number(header(reply, 'status') ?? -1))
  }

  #keyOfItem(item: AmiMessage): string | undefined {
    if (this.source.kind === 'device') return header(item, 'device')?.toLowerCase()
    const exten = header(item, 'exten')
    const context = header(item, 'context')
    return exten && context ? `${exten}@${context}`.toLowerCase() : undefined
  }

  #fromDevice(event: AmiMessage): string | undefined {
    const key = this.#keyOfItem(event)
    const state = header(event, 'state')
    if (!key || !state) return undefined
    this.#state.set(key, state.toUpperCase())
    return key
  }

  #fromHint(event: AmiMessage): string | undefined {
    const key = this.#keyOfItem(event)
    const status = Number(header(event, 'status'))
    if (!key || header(event, 'status') === undefined || !Number.isInteger(status)) return undefined
    this.#state.set(key, hintStatusToDeviceState(status))
    return key
  }
}
