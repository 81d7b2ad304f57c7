/**
 * The plain scripts' group commit, the same batching the product's `GroupCommit`
 * (packages/db/src/group-commit.ts) does on SQLite: requests that arrive while a group is being
 * written wait, and the next group takes every one waiting, written by one synchronous call (one
 * better-sqlite3 transaction, one commit). The event loop turns before each group (`setImmediate`),
 * as the product lets it, since a better-sqlite3 transaction holds the loop while it runs and
 * requests made meanwhile are only seen after it. Kept here, a few lines, so the ceilings stay plain
 * scripts with no product code in them.
 */
export class PlainGroupCommit<Req, Res> {
  #waiting: { req: Req; resolve(res: Res): void; reject(error: unknown): void }[] = []
  #writing = false
  /** Groups written (each one commit). */
  groups = 0
  /** Requests written, over every group. */
  requests = 0

  constructor(private readonly write: (group: readonly Req[]) => readonly Res[]) {}

  submit(req: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.#waiting.push({ req, resolve, reject })
      if (!this.#writing) void this.#drain()
    })
  }

  async #drain(): Promise<void> {
    this.#writing = true
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      const group = this.#waiting
      if (group.length === 0) break
      this.#waiting = []
      this.groups += 1
      this.requests += group.length
      try {
        const results = this.write(group.map((w) => w.req))
        group.forEach((w, i) => {
          w.resolve(results[i] as Res)
        })
      } catch (error) {
        for (const w of group) w.reject(error)
      }
    }
    this.#writing = false
  }
}
