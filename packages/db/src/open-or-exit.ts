import { connect, type Db, describeDatabaseUrl } from './connect.js'

/** The part of a pino logger this module uses. */
export interface FatalLogger {
  fatal(obj: object, msg: string): void
}

/**
 * A process's database at start. `connect` opens an SQLite file at once (a MySQL pool connects on
 * first use): a file that cannot be opened is a configuration error, reported in one line rather
 * than as a stack trace, and the process ends with exit code 2 (as for any bad configuration).
 */
export function connectOrExit(databaseUrl: string, logger: FatalLogger): Db {
  try {
    return connect(databaseUrl)
  } catch (err) {
    const { host, database } = describeDatabaseUrl(databaseUrl)
    logger.fatal({ err, host, database }, `cannot open the database ${database}: ${(err as Error).message}`)
    process.exit(2)
  }
}
