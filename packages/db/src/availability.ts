import { sql } from 'kysely'
import type { Db } from './connect.js'
import { type MigrateOptions, type MigrateResult, migrate, pendingMigrations } from './migrate.js'
import { unavailableReason } from './retryable-errors.js'

/** The part of a pino logger this module uses. */
export interface AvailabilityLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface DatabaseAvailabilityOptions {
  db: Db
  log: AvailabilityLogger
  /** Apply pending migrations as soon as the database answers (DB_MIGRATE_ON_START). */
  migrate: boolean
  migrateOptions?: MigrateOptions
  /** Pause between two tries while the database cannot be used (default 2 s). */
  retryMs?: number
  /** A still-unavailable database is logged at most this often (default once a minute). */
  logEveryMs?: number
  /** Milliseconds for the log's pacing only; tests move it instead of waiting a minute. */
  now?: () => number
}

/**
 * Whether the database can be used, for a process that must start and keep running while it cannot
 * (DECISIONS section 3, "Database unavailable"). `start()` tries until the database answers, applies
 * pending migrations, and only then reports `ready`; errors that mean the database is unavailable
 * (unreachable, unknown database, login refused, locked, ...) are logged once a minute with host,
 * database and the server's message, and tried again every `retryMs`; any other error (a migration
 * that is wrong) rejects `ready`, as waiting cannot fix it. Once started, `report()` takes the
 * errors requests run into: an unavailable database is logged the same way and probed with
 * `SELECT 1` until it answers again.
 */
export class DatabaseAvailability {
  readonly #o: Required<Omit<DatabaseAvailabilityOptions, 'migrateOptions'>> & {
    migrateOptions: MigrateOptions
  }
  #ready = false
  #available = false
  #lastError: string | null = null
  #lastLoggedAt = Number.NEGATIVE_INFINITY
  #downSince: number | null = null
  #failures = 0
  #probing = false
  #closed = false
  #wake: (() => void) | undefined
  #timer: NodeJS.Timeout | undefined
  #started: Promise<MigrateResult | undefined> | undefined
  #firstTried!: () => void
  /** Settles once the first try at start has ended, however it ended. */
  readonly firstTry = new Promise<void>((resolve) => {
    this.#firstTried = resolve
  })

  constructor(options: DatabaseAvailabilityOptions) {
    this.#o = {
      retryMs: 2_000,
      logEveryMs: 60_000,
      now: () => Date.now(),
      migrateOptions: {},
      ...options,
    }
  }

  /**
   * A watch for a database its caller has already migrated and found answering (an embedding
   * program, a test): ready at once, without a start-up try.
   */
  static alreadyReady(options: Omit<DatabaseAvailabilityOptions, 'migrate'>): DatabaseAvailability {
    const watch = new DatabaseAvailability({ ...options, migrate: false })
    watch.#ready = true
    watch.#available = true
    watch.#started = Promise.resolve(undefined)
    watch.#firstTried()
    return watch
  }

  /** Schema in place (migrated when asked): requests may use the database. */
  get ready(): boolean {
    return this.#ready
  }

  /** Ready, and the last thing tried on the database worked. */
  get available(): boolean {
    return this.#ready && this.#available
  }

  /** The server's message of the last failure while unavailable, or null when available. */
  get lastError(): string | null {
    return this.#lastError
  }

  /** Failures seen since the process started (for tests and the detailed health). */
  get failures(): number {
    return this.#failures
  }

  /**
   * Starts trying (once; later calls return the same promise). Resolves with what was migrated (or
   * undefined without migrations) once ready; rejects on an error that is not about availability.
   */
  start(): Promise<MigrateResult | undefined> {
    this.#started ??= this.#startUp()
    return this.#started
  }

  /**
   * Records an error a request ran into. Returns its reason when it means the database is
   * unavailable (the caller answers 503), undefined when it is something else.
   */
  report(error: unknown): string | undefined {
    const reason = unavailableReason(error)
    if (reason === undefined) return undefined
    this.#markDown(error, reason)
    if (this.#ready && !this.#probing) void this.#probeUntilUp()
    return reason
  }

  /** Stops retrying and probing (process shutdown). */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#wake?.()
  }

  async #startUp(): Promise<MigrateResult | undefined> {
    for (;;) {
      try {
        const result = this.#o.migrate ? await migrate(this.#o.db, this.#o.migrateOptions) : undefined
        if (!this.#o.migrate) {
          await selectOne(this.#o.db)
          // A database behind this version (an upgrade whose migrations were not run) would fail
          // later, request by request, on a missing column: said once, at start, with what to do.
          const pending = await pendingMigrations(this.#o.db, this.#o.migrateOptions)
          if (pending.length > 0) throw new SchemaBehindError(pending)
        }
        this.#ready = true
        this.#markUp()
        this.#firstTried()
        return result
      } catch (error) {
        const reason = unavailableReason(error)
        if (reason === undefined || this.#closed) {
          this.#firstTried()
          throw error
        }
        this.#markDown(error, reason)
        this.#firstTried()
        // Held (not unref'd): a process waiting for its database has nothing else keeping it alive.
        await this.#pause(true)
        if (this.#closed) throw error
      }
    }
  }

  async #probeUntilUp(): Promise<void> {
    this.#probing = true
    try {
      while (!this.#closed && !this.#available) {
        await this.#pause(false)
        if (this.#closed) return
        try {
          await probeWrite(this.#o.db)
          this.#markUp()
        } catch (error) {
          const reason = unavailableReason(error)
          // A probe that fails for another reason still says nothing about availability; the
          // next one decides.
          if (reason !== undefined) this.#markDown(error, reason)
        }
      }
    } finally {
      this.#probing = false
    }
  }

  #markDown(error: unknown, reason: string): void {
    this.#failures += 1
    this.#available = false
    const now = this.#o.now()
    this.#downSince ??= now
    const message = error instanceof Error ? error.message : String(error)
    this.#lastError = message
    if (now - this.#lastLoggedAt < this.#o.logEveryMs) return
    this.#lastLoggedAt = now
    const { host, database } = this.#o.db.target
    this.#o.log.warn(
      { err: error, host, database, reason, retryMs: this.#o.retryMs },
      `database unavailable (${host}, database ${database}): ${message}; ${
        this.#ready ? 'requests get 503 until it answers' : 'the service waits for it'
      }`,
    )
  }

  #markUp(): void {
    const wasDown = this.#downSince !== null
    this.#available = true
    this.#lastError = null
    const { host, database } = this.#o.db.target
    if (wasDown) {
      const downForMs = this.#o.now() - (this.#downSince ?? 0)
      this.#o.log.info({ host, database, downForMs }, 'database available again')
    }
    this.#downSince = null
    // The next outage is logged at once, not a minute after the last line of this one.
    this.#lastLoggedAt = Number.NEGATIVE_INFINITY
  }

  #pause(hold: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve
      this.#timer = setTimeout(resolve, this.#o.retryMs)
      if (!hold) this.#timer.unref()
    })
  }
}

async function selectOne(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db.kysely)
}

/**
 * Whether the database takes writes again. On SQLite a file whose write lock another process holds
 * still answers reads (WAL), so `SELECT 1` would call it back while every write still fails, and the
 * log would say so at each probe; a write that changes nothing (one statement, so it cannot mix with
 * other statements on the shared connection) needs the lock and tells. MySQL answers both or neither.
 */
async function probeWrite(db: Db): Promise<void> {
  if (db.dialect === 'sqlite') {
    await sql`UPDATE hold_dialer_schema_migrations SET id = id WHERE 0`.execute(db.kysely)
  } else {
    await selectOne(db)
  }
}

/** The database lacks migrations this version needs, and the process was not asked to apply them. */
export class SchemaBehindError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database lacks ${pending.length} migration(s) this version needs (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', ...' : ''}): run pnpm db:migrate against it, or start with DB_MIGRATE_ON_START=true`,
    )
    this.name = 'SchemaBehindError'
  }
}
