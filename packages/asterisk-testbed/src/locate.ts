import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface AsteriskInstall {
  /** The launcher (`asterisk-22/bin/asterisk` of the bundle, or ASTERISK_BIN). */
  bin: string
  /** astmoddir and astdatadir for asterisk.conf. */
  modules: string
  data: string
}

/** The repository's root folder (this file is packages/asterisk-testbed/{src,dist}/locate.*). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * Where the real Asterisk is: ASTERISK_BIN (with ASTERISK_MODULES_DIR / ASTERISK_DATA_DIR, or the
 * bundle's layout around it), else the bundle unpacked into `.asterisk/` at the repository root
 * (`pnpm test` unpacks it there). Returns a sentence saying what is missing when there is none.
 */
export function locateAsterisk(env: NodeJS.ProcessEnv = process.env): AsteriskInstall | string {
  const bin = env.ASTERISK_BIN || join(REPO_ROOT, '.asterisk/asterisk-22/bin/asterisk')
  if (!existsSync(bin)) {
    return env.ASTERISK_BIN
      ? `ASTERISK_BIN=${env.ASTERISK_BIN} does not exist`
      : `no Asterisk at ${bin} (unpack the bundle: ../shared/asterisk/unpack .asterisk, or set ASTERISK_BIN)`
  }
  const base = resolve(dirname(bin), '..')
  const modules = env.ASTERISK_MODULES_DIR || join(base, 'modules')
  const data = env.ASTERISK_DATA_DIR || join(base, 'data')
  for (const [name, dir] of [
    ['modules', modules],
    ['data', data],
  ] as const) {
    if (!existsSync(dir)) return `Asterisk ${name} folder ${dir} does not exist`
  }
  return { bin, modules, data }
}
