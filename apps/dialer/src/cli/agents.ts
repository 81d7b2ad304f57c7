import { connect, type Database, migrate } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'

/**
 * `pnpm agents ...`: the operator's view of the agent roster (`dialer_employee`). The real agent panel
 * is outside this system; this CLI adds agents, sets presence and keeps a panel alive for tests and
 * trials. Output goes to stdout for the operator at the terminal.
 */
const USAGE = `usage: pnpm agents <command>
  list                                   show every agent and whether it can take calls
  add <extension> <name> [email]         add an agent (presence offline)
  presence <extension> ready|paused|offline
  panel <extension>                      mark the agent's panel as seen now
  remove <extension>                     deactivate the agent (is_active = 0)
  demo <ext> [ext...]                    add these agents as ready and keep their panels alive until Ctrl-C
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite).`

const out = (s: string) => process.stdout.write(`${s}\n`)

async function setFields(
  db: Kysely<Database>,
  extension: string,
  fields: Record<string, unknown>,
): Promise<void> {
  const r = await db
    .updateTable('dialer_employee')
    .set(fields)
    .where('extension', '=', extension)
    .executeTakeFirst()
  if (Number(r.numUpdatedRows) === 0) throw new Error(`no agent with extension ${extension}`)
}

async function upsertReady(db: Kysely<Database>, extension: string): Promise<void> {
  const now = toDbTime(new Date())
  const existing = await db
    .selectFrom('dialer_employee')
    .select('id')
    .where('extension', '=', extension)
    .executeTakeFirst()
  if (existing) await setFields(db, extension, { presence: 'ready', is_active: 1, panel_seen_at: now })
  else {
    await db
      .insertInto('dialer_employee')
      .values({
        name: `Agent ${extension}`,
        extension,
        email: null,
        presence: 'ready',
        panel_seen_at: now,
        wrap_until: null,
      })
      .execute()
  }
}

export async function runAgentsCli(argv: string[], url: string): Promise<number> {
  const [command, ...args] = argv
  if (!command || command === 'help' || command === '--help') {
    out(USAGE)
    return command ? 0 : 2
  }
  const handle = connect(url)
  try {
    await migrate(handle)
    const db = handle.db
    switch (command) {
      case 'list': {
        const rows = await db.selectFrom('dialer_employee').selectAll().orderBy('extension').execute()
        for (const r of rows) {
          out(
            `${r.extension ?? '-'}\t${r.name}\tactive=${r.is_active}\tpresence=${r.presence}\tpanel=${r.panel_seen_at ?? 'never'}\ton_call=${r.on_call_by ?? '-'}`,
          )
        }
        out(`${rows.length} agent(s)`)
        return 0
      }
      case 'add': {
        const [extension, name, email] = args
        if (!extension || !name) throw new Error('add needs <extension> <name>')
        await db
          .insertInto('dialer_employee')
          .values({ name, extension, email: email ?? null, panel_seen_at: null, wrap_until: null })
          .execute()
        out(`added ${extension} (${name}), presence offline`)
        return 0
      }
      case 'presence': {
        const [extension, presence] = args
        if (!extension || !['ready', 'paused', 'offline'].includes(presence ?? ''))
          throw new Error('presence needs <extension> ready|paused|offline')
        await setFields(db, extension, { presence })
        out(`${extension} is ${presence}`)
        return 0
      }
      case 'panel': {
        const [extension] = args
        if (!extension) throw new Error('panel needs <extension>')
        await setFields(db, extension, { panel_seen_at: toDbTime(new Date()) })
        out(`${extension} panel seen`)
        return 0
      }
      case 'remove': {
        const [extension] = args
        if (!extension) throw new Error('remove needs <extension>')
        await setFields(db, extension, { is_active: 0 })
        out(`${extension} deactivated`)
        return 0
      }
      case 'demo': {
        if (args.length === 0) throw new Error('demo needs at least one extension')
        for (const ext of args) await upsertReady(db, ext)
        out(`agents ${args.join(', ')} ready; keeping their panels alive (Ctrl-C to stop)`)
        await new Promise<void>((resolve) => {
          const timer = setInterval(() => {
            void db
              .updateTable('dialer_employee')
              .set({ panel_seen_at: toDbTime(new Date()) })
              .where('extension', 'in', args)
              .execute()
          }, 10_000)
          const stop = () => {
            clearInterval(timer)
            resolve()
          }
          process.once('SIGINT', stop)
          process.once('SIGTERM', stop)
        })
        return 0
      }
      default:
        throw new Error(`unknown command ${command}\n${USAGE}`)
    }
  } catch (error) {
    process.stderr.write(`agents: ${(error as Error).message}\n`)
    return 1
  } finally {
    await handle.close()
  }
}
