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
 * when the answer is NOT_INUSE; UNKNOWN and INVALID keep it out, with one warning per desk.
 */
export class DeskStates {
  readonly #state = new Map<string, string>()
  readonly #asked = new Set<string>()
  readonly #warned = new Set<string>()

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
    if (this.source.kind === 'device' && name === 'DeviceStateChange') this.#fromDevice(event)
    if (this.source.kind === 'hint' && name === 'ExtensionStatus') this.#fromHint(event)
  }

  /** After an AMI login: forget what was known, read Asterisk's list, ask for every desk not in it. */
  async sync(ami: AmiClient, extensions: string[]): Promise<void> {
    this.#state.clear()
    this.#asked.clear()
    const list =
      this.source.kind === 'device'
        ? await ami.listAction({ action: 'DeviceStateList' })
        : await ami.listAction({ action: 'ExtensionStateList' })
    for (const item of list) {
      if (this.source.kind === 'device') this.#fromDevice(item)
      else this.#fromHint(item)
    }
    await this.askMissing(ami, extensions)
  }

  /** Asks Asterisk for each desk with no reported state that was not asked for since the login. */
  async askMissing(ami: AmiClient, extensions: string[]): Promise<void> {
    for (const extension of extensions) {
      const key = this.keyOf(extension)
      if (this.#state.has(key) || this.#asked.has(key)) continue
      this.#asked.add(key)
      // A PBX that refuses the question (an old Asterisk, a restricted AMI user) leaves the desk
      // UNKNOWN rather than stopping the login's sync: it becomes idle with its first state event.
      const state = await this.#ask(ami, extension).catch((err: Error) => {
        this.logger.warn({ err, extension }, "Asterisk did not answer for this desk's state")
        return 'UNKNOWN'
      })
      // An event that arrived meanwhile is newer than the answer.
      if (!this.#state.has(key)) this.#state.set(key, state)
      if (state !== 'NOT_INUSE' && state !== 'INUSE' && !this.#warned.has(key)) {
        this.#warned.add(key)
        this.logger.warn(
          { extension, desk: deskKey(this.source, extension), state },
          'Asterisk reports no usable state for this desk: the agent is not dialed (check AGENT_DEVICE_TEMPLATE)',
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

  #fromDevice(event: AmiMessage): void {
    const device = header(event, 'device')
    const state = header(event, 'state')
    if (device && state) this.#state.set(device.toLowerCase(), state.toUpperCase())
  }

  #fromHint(event: AmiMessage): void {
    const exten = header(event, 'exten')
    const context = header(event, 'context')
    const status = Number(header(event, 'status'))
    if (exten && context && Number.isInteger(status)) {
      this.#state.set(`${exten}@${context}`.toLowerCase(), hintStatusToDeviceState(status))
    }
  }
}
