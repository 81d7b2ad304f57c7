import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AmiClient, type AmiMessage, header } from '@hold-dialer/ami'
import { ADMIN_USER, type AmiLogin, configFiles, DIALER_USER, HEALTH_USER } from './config-files.js'
import { type AsteriskInstall, locateAsterisk } from './locate.js'

/** Start-up normally takes 1-3 s; a loaded CI machine gets much longer before it counts as a failure. */
const START_TIMEOUT_MS = 60_000

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no free port')
  return address.port
}

/**
 * One real Asterisk for one test file: its own folder under the system's temporary directory, its
 * own AMI port on 127.0.0.1, the shipped dialplan and AMI users. `admin` is the test bed's own AMI
 * connection (all privileges), which also records every event (`events`) for tests that compare
 * event sequences.
 */
export class Asterisk {
  readonly dialerUser: AmiLogin = DIALER_USER
  readonly healthUser: AmiLogin = HEALTH_USER
  readonly events: AmiMessage[] = []
  admin!: AmiClient
  #process: ChildProcess | undefined
  #exited: Promise<void> = Promise.resolve()
  #output = ''

  private constructor(
    readonly install: AsteriskInstall,
    readonly dir: string,
    readonly port: number,
  ) {}

  /** Starts Asterisk and connects the admin client; throws when no Asterisk is installed. */
  static async start(): Promise<Asterisk> {
    const install = locateAsterisk()
    if (typeof install === 'string') throw new Error(install)
    const dir = mkdtempSync(join(tmpdir(), 'hd-ast-'))
    const port = await freePort()
    for (const sub of ['etc', 'lib', 'spool', 'run', 'log']) mkdirSync(join(dir, sub))
    for (const [name, text] of Object.entries(configFiles(install, dir, port))) {
      writeFileSync(join(dir, 'etc', name), text)
    }
    const asterisk = new Asterisk(install, dir, port)
    await asterisk.#spawn()
    return asterisk
  }

  /** Asterisk's console output so far (for failure messages). */
  get output(): string {
    return this.#output
  }

  get running(): boolean {
    return this.#process !== undefined
  }

  async #spawn(): Promise<void> {
    const child = spawn(this.install.bin, ['-C', join(this.dir, 'etc/asterisk.conf'), '-f', '-n'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.#process = child
    this.#exited = new Promise((resolve) =>
      child.once('exit', () => {
        if (this.#process === child) this.#process = undefined
        resolve()
      }),
    )
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Asterisk not ready within ${START_TIMEOUT_MS} ms:\n${this.#output}`)),
        START_TIMEOUT_MS,
      )
      const onData = (chunk: Buffer) => {
        this.#output += chunk.toString()
        if (this.#output.includes('Asterisk Ready.')) {
          clearTimeout(timer)
          resolve()
        }
      }
      child.stdout?.on('data', onData)
      child.stderr?.on('data', onData)
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`Asterisk exited at start (${code ?? signal}):\n${this.#output}`))
      })
    })
    await ready
    this.admin = new AmiClient({
      host: '127.0.0.1',
      port: this.port,
      username: ADMIN_USER.username,
      secret: ADMIN_USER.secret,
      events: true,
      reconnectBaseMs: 50,
      reconnectMaxMs: 500,
      actionIdPrefix: 'testbed',
    })
    this.admin.on('event', (e: AmiMessage) => this.events.push(e))
    await this.admin.start()
  }

  /** Runs a CLI command over AMI and returns its output. */
  async command(cli: string): Promise<string> {
    const reply = await this.admin.action({ action: 'Command', command: cli })
    const out = reply.output ?? reply.content ?? ''
    return Array.isArray(out) ? out.join('\n') : String(out)
  }

  /** Sets a custom device state (`Custom:NAME`), as a panel or a presence system would. */
  async setCustomDeviceState(name: string, state: string): Promise<void> {
    await this.admin.action({ action: 'Setvar', variable: `DEVICE_STATE(Custom:${name})`, value: state })
  }

  /** `core stop now` over AMI, then waits for the process to end. */
  async coreStopNow(): Promise<void> {
    await this.admin.close()
    const cli = new AmiClient({
      host: '127.0.0.1',
      port: this.port,
      username: ADMIN_USER.username,
      secret: ADMIN_USER.secret,
      events: false,
      actionIdPrefix: 'testbed-stop',
    })
    await cli.start()
    await cli.action({ action: 'Command', command: 'core stop now' }).catch(() => undefined)
    await cli.close()
    await this.#exited
  }

  /** SIGKILL to Asterisk's process group: nothing is cleaned up, as in a crash. */
  async kill(): Promise<void> {
    await this.admin?.close()
    const pid = this.#process?.pid
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err
      }
    }
    await this.#exited
  }

  /** Starts the stopped Asterisk again on the same port and configuration. */
  async restart(): Promise<void> {
    if (this.#process) throw new Error('Asterisk is still running')
    this.#output = ''
    await this.#spawn()
  }

  /** Kills Asterisk and removes its folder. */
  async close(): Promise<void> {
    await this.kill()
    rmSync(this.dir, { recursive: true, force: true })
  }

  /** Waits for an event that matches, recorded since `from` (an index into `events`). */
  async waitForEvent(match: (e: AmiMessage) => boolean, timeoutMs = 30_000, from = 0): Promise<AmiMessage> {
    const found = this.events.slice(from).find(match)
    if (found) return found
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.admin.off('event', onEvent)
        reject(new Error(`no matching AMI event within ${timeoutMs} ms`))
      }, timeoutMs)
      const onEvent = (e: AmiMessage) => {
        if (!match(e)) return
        clearTimeout(timer)
        this.admin.off('event', onEvent)
        resolve(e)
      }
      this.admin.on('event', onEvent)
    })
  }
}

export { header }
