/** Scripted misbehaviour for tests: slow logins, refused originates, lost events, stalled replies. */
export class Faults {
  loginDelayMs = 0
  eventsSilenced = false
  repliesPaused = false
  droppedEvents = 0
  private originateFailures = 0

  failNextOriginates(count: number): void {
    this.originateFailures = Math.max(0, Math.floor(count))
  }

  /** True (and counts down) while scripted Originate failures remain. */
  takeOriginateFailure(): boolean {
    if (this.originateFailures <= 0) return false
    this.originateFailures -= 1
    return true
  }
}
