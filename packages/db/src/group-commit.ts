/**
 * Group commit: requests that arrive while a write is under way wait, and are then written together
 * by one call of `write` (one transaction, one commit), each answered with its own result. Every
 * commit is an fsync on SQLite (and a redo-log flush on MySQL); a group pays for one.
 *
 * No library does this for an arbitrary transaction on both engines, so it is written here.
 */
export interface GroupCommitOptions<Req, Res> {
  /** Writes a group in one transaction; returns one result per request, in the group's order. */
  write(group: readonly Req[]): Promise<readonly Res[]>
  /** Groups written at once (1 on SQLite, which has one writer). */
  maxWriters: number
  /** Requests in one group at most. */
  maxGroup: number
  /**
   * Whether a waiting request may join the group being formed (default: always). One that may not
   * waits for a later group, keeping its place in the queue.
   */
  fits?(req: Req, group: readonly Req[]): boolean
}

interface Waiting<Req, Res> {
  req: Req
  resolve(result: Res): void
  reject(error: unknown): void
}

export class GroupCommit<Req, Res> {
  #waiting: Waiting<Req, Res>[] = []
  #writers = 0

  constructor(private readonly o: GroupCommitOptions<Req, Res>) {}

  /** Joins the next group; if that group's `write` fails, every request in it gets the error. */
  submit(req: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.#waiting.push({ req, resolve, reject })
      if (this.#writers < this.o.maxWriters) void this.#drain()
    })
  }

  #takeGroup(): Waiting<Req, Res>[] {
    const group: Waiting<Req, Res>[] = []
    const reqs: Req[] = []
    const later: Waiting<Req, Res>[] = []
    for (const w of this.#waiting) {
      if (group.length < this.o.maxGroup && (this.o.fits?.(w.req, reqs) ?? true)) {
        group.push(w)
        reqs.push(w.req)
      } else later.push(w)
    }
    this.#waiting = later
    return group
  }

  async #drain(): Promise<void> {
    this.#writers += 1
    for (;;) {
      // A SQLite transaction runs without giving way to I/O, so requests that came in meanwhile are
      // only read once the event loop turns: let it turn before a group is formed.
      await new Promise<void>((resolve) => setImmediate(resolve))
      const group = this.#takeGroup()
      if (group.length === 0) break
      try {
        const results = await this.o.write(group.map((w) => w.req))
        group.forEach((w, i) => {
          w.resolve(results[i] as Res)
        })
      } catch (error) {
        for (const w of group) w.reject(error)
      }
    }
    this.#writers -= 1
  }
}
