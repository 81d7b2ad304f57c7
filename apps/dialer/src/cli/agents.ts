import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { type Database, type EmployeeUpdate, isDuplicateKey } from '@hold-dialer/db'
import { toDbTime } from '@hold-dialer/rules'
import type { Kysely } from 'kysely'
import { hashPin, isValidPin } from '../http/agent/pin.js'
import { runOperatorCli } from './operator-cli.js'

/**
 * `pnpm agents ...`: the operator's view of the agent roster (`dialer_employee`). The real agent panel
 * is outside this system; this CLI adds agents, sets presence and keeps a panel alive for tests and
 * trials. Output goes to stdout for the operator at the terminal, errors to stderr.
 */
export const USAGE = `usage: pnpm agents <command> [arguments]
  list [--pbx NAME]                 show every agent (or those of one PBX) and whether it can take calls
  add <extension> <name> [email] [--pbx NAME]
                                    add an agent (active, presence offline) on PBX NAME (default
                                    \`default\`: the dialers whose PBX_NAME is NAME dial for it)
  pbx <extension> <NAME>            move the agent to PBX NAME (its next calls come from that PBX)
  presence <extension> ready|paused|offline
                                    set the agent's presence by hand
  panel <extension>                 mark the agent's panel as seen now
  set-pin <extension>               set the PIN the agent signs in with (4-12 digits), read from
                                    the terminal (asked twice, not shown) or the first line of stdin;
                                    never from the command line
  deactivate <extension>            stop dialing for the agent (kept, with its history)
  activate <extension>              let a deactivated agent take calls again
  demo <extension> [extension...] [--pbx NAME]
                                    make these agents ready (adding those missing, on PBX NAME) and
                                    keep their panels alive until Ctrl-C
  help, --help, -h                  this text (also printed with no command)

An extension is the agent's desk number: 1 to 20 digits (0-9), e.g. 1001; it names one agent
across every PBX. A PBX name is 1 to 64 letters, digits, dots, dashes or underscores.
Uses DATABASE_URL (default sqlite:./data/dialer.sqlite).
Exit 0: done; 1: the database refused (e.g. no such agent, extension taken); 2: bad command line.`

/** What an extension is for this CLI: the digits the desk is dialed by. */
const EXTENSION = /^[0-9]{1,20}$/
const PRESENCES = ['ready', 'paused', 'offline'] as const
/** A PBX name, as PBX_NAME takes it. */
const PBX = /^[A-Za-z0-9._-]{1,64}$/
const DEFAULT_PBX = 'default'

function pbxArg(raw: string): string {
  if (!PBX.test(raw))
    throw new UsageError(
      `${JSON.stringify(raw)} is not a PBX name: 1 to 64 letters, digits, dots, dashes or underscores`,
    )
  return raw
}
const NAME_MAX = 150
const EMAIL_MAX = 254

export interface AgentsIo {
  out(line: string): void
  err(line: string): void
  /** The new PIN for `set-pin`, typed twice at a terminal or the first line of piped input. */
  readPin?(extension: string): Promise<string>
}

const processIo: AgentsIo = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  readPin: (extension) => readPinFromStdin(extension),
}

/**
 * Reads the PIN from stdin: at a terminal it asks twice without echoing what is typed; from a pipe
 * (`printf '4821\n' | pnpm agents set-pin 1001`) it takes the first line. Never from argv, which
 * would leave it in the shell's history and in the process list.
 */
async function readPinFromStdin(extension: string): Promise<string> {
  const tty = process.stdin.isTTY === true
  let muted = false
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk)
      done()
    },
  })
  const rl = createInterface({ input: process.stdin, output, terminal: tty })
  // Ctrl-C at the prompt: readline would only pause; stop asking instead (nothing is changed).
  rl.on('SIGINT', () => rl.close())
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      if (tty) process.stderr.write(prompt)
      muted = true
      rl.once('line', (line) => {
        muted = false
        if (tty) process.stderr.write('\n')
        resolve(line.trim())
      })
      rl.once('close', () => reject(new RosterError('no PIN given on stdin')))
    })
  try {
    const pin = await ask(`new PIN for ${extension} (4-12 digits): `)
    if (!tty) return pin
    const again = await ask('the same PIN again: ')
    if (again !== pin) throw new RosterError('the two PINs differ: nothing changed')
    return pin
  } finally {
    rl.close()
  }
}

/** A command line that cannot be run: exit 2. */
class UsageError extends Error {}
/** A command the roster refuses (no such agent, extension taken): exit 1. */
class RosterError extends Error {}

function extensionArg(command: string, raw: string | undefined): string {
  if (raw === undefined) throw new UsageError(`${command} needs <extension>`)
  if (!EXTENSION.test(raw))
    throw new UsageError(`${JSON.stringify(raw)} is not an extension: an extension is 1 to 20 digits (0-9)`)
  return raw
}

function noMore(command: string, rest: string[]): void {
  if (rest.length > 0)
    throw new UsageError(`${command}: unexpected ${rest.map((a) => JSON.stringify(a)).join(' ')}`)
}

async function findAgent(db: Kysely<Database>, extension: string) {
  return db
    .selectFrom('dialer_employee')
    .select(['id', 'name', 'is_active'])
    .where('extension', '=', extension)
    .executeTakeFirst()
}

async function setFields(db: Kysely<Database>, extension: string, fields: EmployeeUpdate): Promise<void> {
  const r = await db
    .updateTable('dialer_employee')
    .set(fields)
    .where('extension', '=', extension)
    .executeTakeFirst()
  if (Number(r.numUpdatedRows) === 0) throw new RosterError(`no agent with extension ${extension}`)
}

function alreadyExists(extension: string, existing: { name: string; is_active: number }): RosterError {
  return new RosterError(
    existing.is_active === 1
      ? `extension ${extension} is already taken by ${existing.name}`
      : `extension ${extension} is already taken by ${existing.name} (deactivated; \`pnpm agents activate ${extension}\` takes it back)`,
  )
}

async function addAgent(db: Kysely<Database>, agent: NewAgent, io: AgentsIo): Promise<void> {
  const { extension, name, email, pbx } = agent
  const existing = await findAgent(db, extension)
  if (existing) throw alreadyExists(extension, existing)
  try {
    await db
      .insertInto('dialer_employee')
      .values({ name, extension, email, panel_seen_at: null, wrap_until: null, pbx })
      .execute()
  } catch (error) {
    // Added by someone else between the look-up and the insert.
    if (!isDuplicateKey(error)) throw error
    const winner = await findAgent(db, extension)
    throw winner ? alreadyExists(extension, winner) : error
  }
  io.out(`added ${extension} (${name}), active, presence offline${pbx === DEFAULT_PBX ? '' : `, PBX ${pbx}`}`)
}

async function setActive(db: Kysely<Database>, extension: string, active: boolean, io: AgentsIo) {
  const existing = await findAgent(db, extension)
  if (!existing) throw new RosterError(`no agent with extension ${extension}`)
  if ((existing.is_active === 1) === active) {
    io.out(`${extension} (${existing.name}) is already ${active ? 'active' : 'deactivated'}`)
    return
  }
  await setFields(db, extension, { is_active: active ? 1 : 0 })
  io.out(
    active
      ? `${extension} (${existing.name}) activated`
      : `${extension} (${existing.name}) deactivated: no new calls (a call in progress finishes)`,
  )
}

async function setPin(db: Kysely<Database>, extension: string, io: AgentsIo): Promise<void> {
  const existing = await findAgent(db, extension)
  if (!existing) throw new RosterError(`no agent with extension ${extension}`)
  if (!io.readPin) throw new RosterError('set-pin needs the PIN on stdin')
  const pin = await io.readPin(extension)
  if (!isValidPin(pin)) throw new RosterError('a PIN is 4 to 12 digits (0-9): nothing changed')
  await setFields(db, extension, { pin_hash: await hashPin(pin) })
  // The agent's open sessions end: whoever knew the old PIN is signed out.
  await db.deleteFrom('hold_dialer_agent_session').where('employee_id', '=', existing.id).execute()
  io.out(`${extension} (${existing.name}): PIN set; the agent's open sessions are signed out`)
}

async function upsertReady(db: Kysely<Database>, extension: string, pbx: string | undefined): Promise<void> {
  const now = toDbTime(new Date())
  if (await findAgent(db, extension)) {
    await setFields(db, extension, {
      presence: 'ready',
      is_active: 1,
      panel_seen_at: now,
      ...(pbx === undefined ? {} : { pbx }),
    })
    return
  }
  await db
    .insertInto('dialer_employee')
    .values({
      name: `Agent ${extension}`,
      extension,
      email: null,
      presence: 'ready',
      panel_seen_at: now,
      wrap_until: null,
      pbx: pbx ?? DEFAULT_PBX,
    })
    .execute()
}

async function demo(
  db: Kysely<Database>,
  extensions: string[],
  pbx: string | undefined,
  io: AgentsIo,
): Promise<void> {
  for (const ext of extensions) await upsertReady(db, ext, pbx)
  io.out(`agents ${extensions.join(', ')} ready; keeping their panels alive (Ctrl-C to stop)`)
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      void db
        .updateTable('dialer_employee')
        .set({ panel_seen_at: toDbTime(new Date()) })
        .where('extension', 'in', extensions)
        .execute()
    }, 10_000)
    const stop = () => {
      clearInterval(timer)
      resolve()
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

interface NewAgent {
  extension: string
  name: string
  email: string | null
  pbx: string
}

function parseAdd(args: string[], pbx: string | undefined): NewAgent {
  const [rawExtension, rawName, rawEmail, ...rest] = args
  if (rawExtension === undefined || rawName === undefined)
    throw new UsageError('add needs <extension> <name>')
  const extension = extensionArg('add', rawExtension)
  noMore('add', rest)
  const name = rawName.trim()
  if (name === '' || name.length > NAME_MAX)
    throw new UsageError(`add: the name must be 1 to ${NAME_MAX} characters`)
  const email = rawEmail?.trim() || null
  if (email !== null && (email.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+$/.test(email)))
    throw new UsageError(`add: ${JSON.stringify(rawEmail)} is not an email address`)
  return { extension, name, email, pbx: pbx ?? DEFAULT_PBX }
}

/** The command line checked before the database is opened: a bad one changes nothing. */
type Command =
  | { kind: 'help' }
  | { kind: 'list'; pbx?: string }
  | ({ kind: 'add' } & NewAgent)
  | { kind: 'presence'; extension: string; presence: (typeof PRESENCES)[number] }
  | { kind: 'panel'; extension: string }
  | { kind: 'set-pin'; extension: string }
  | { kind: 'activate' | 'deactivate'; extension: string }
  | { kind: 'demo'; extensions: string[]; pbx?: string }
  | { kind: 'pbx'; extension: string; pbx: string }

function parseCommand(argv: string[]): Command {
  let positionals: string[]
  let help: boolean | undefined
  let pbxOption: string | undefined
  try {
    const parsed = parseArgs({
      // `pnpm agents -- list` passes the `--` on.
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: { help: { type: 'boolean', short: 'h' }, pbx: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    })
    positionals = parsed.positionals
    help = parsed.values.help
    pbxOption = parsed.values.pbx
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const [command, ...args] = positionals
  if (help || command === undefined || command === 'help') return { kind: 'help' }
  const pbx = pbxOption === undefined ? undefined : pbxArg(pbxOption)
  if (pbx !== undefined && !['list', 'add', 'demo'].includes(command))
    throw new UsageError(`--pbx goes with list, add and demo, not ${command}`)
  switch (command) {
    case 'list':
      noMore('list', args)
      return pbx === undefined ? { kind: 'list' } : { kind: 'list', pbx }
    case 'add':
      return { kind: 'add', ...parseAdd(args, pbx) }
    case 'pbx': {
      const [extension, name, ...rest] = args
      if (extension === undefined || name === undefined) throw new UsageError('pbx needs <extension> <NAME>')
      const ext = extensionArg('pbx', extension)
      noMore('pbx', rest)
      return { kind: 'pbx', extension: ext, pbx: pbxArg(name) }
    }
    case 'presence': {
      const [extension, presence, ...rest] = args
      if (extension === undefined || presence === undefined)
        throw new UsageError('presence needs <extension> ready|paused|offline')
      const ext = extensionArg('presence', extension)
      if (!(PRESENCES as readonly string[]).includes(presence))
        throw new UsageError(`presence is ready, paused or offline, not ${JSON.stringify(presence)}`)
      noMore('presence', rest)
      return { kind: 'presence', extension: ext, presence: presence as (typeof PRESENCES)[number] }
    }
    case 'panel':
    case 'set-pin':
    case 'activate':
    case 'deactivate': {
      const [extension, ...rest] = args
      const ext = extensionArg(command, extension)
      noMore(command, rest)
      return { kind: command, extension: ext }
    }
    case 'demo':
      if (args.length === 0) throw new UsageError('demo needs at least one <extension>')
      return {
        kind: 'demo',
        extensions: args.map((a) => extensionArg('demo', a)),
        ...(pbx === undefined ? {} : { pbx }),
      }
    case 'remove':
      throw new UsageError('there is no remove: agents are kept; `deactivate <extension>` stops their calls')
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}

/**
 * Runs one `pnpm agents` command against `url`; returns the exit code. Usage (stdout) for `help`,
 * `--help`, `-h` and no command at all: exit 0.
 */
export async function runAgentsCli(argv: string[], url: string, io: AgentsIo = processIo): Promise<number> {
  return runOperatorCli({
    name: 'agents',
    usage: USAGE,
    argv,
    url,
    io,
    parse: parseCommand,
    run: async (command, handle) => {
      const db = handle.kysely
      switch (command.kind) {
        case 'list': {
          let q = db.selectFrom('dialer_employee').selectAll().orderBy('extension')
          if (command.pbx !== undefined) q = q.where('pbx', '=', command.pbx)
          const rows = await q.execute()
          for (const r of rows) {
            io.out(
              `${r.extension ?? '-'}\t${r.name}\t${r.is_active === 1 ? 'active' : 'deactivated'}\tpresence=${r.presence}\tpanel=${r.panel_seen_at ?? 'never'}\ton_call=${r.on_call_by ?? '-'}\tpbx=${r.pbx}`,
            )
          }
          io.out(`${rows.length} agent(s)`)
          break
        }
        case 'add':
          await addAgent(db, command, io)
          break
        case 'presence':
          await setFields(db, command.extension, {
            presence: command.presence,
            // Set by hand: no reason given (the agent interface asks for one).
            pause_reason: null,
            presence_since: toDbTime(new Date()),
          })
          io.out(`${command.extension} is ${command.presence}`)
          break
        case 'panel':
          await setFields(db, command.extension, { panel_seen_at: toDbTime(new Date()) })
          io.out(`${command.extension} panel seen`)
          break
        case 'set-pin':
          await setPin(db, command.extension, io)
          break
        case 'activate':
        case 'deactivate':
          await setActive(db, command.extension, command.kind === 'activate', io)
          break
        case 'demo':
          await demo(db, command.extensions, command.pbx, io)
          break
        case 'pbx':
          await setFields(db, command.extension, { pbx: command.pbx })
          io.out(`${command.extension} is on PBX ${command.pbx}`)
          break
      }
    },
  })
}
