import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AsteriskInstall } from './locate.js'
import { REPO_ROOT } from './locate.js'

/** The shipped files the test bed loads as they are (only port and secrets are swapped). */
export const SHIPPED_DIALPLAN = join(REPO_ROOT, 'deploy/asterisk/extensions-hold-dialer.conf')
export const SHIPPED_MANAGER = join(REPO_ROOT, 'deploy/asterisk/manager.conf')
export const TESTBED_DIALPLAN = join(REPO_ROOT, 'packages/asterisk-testbed/conf/extensions-testbed.conf')

export interface AmiLogin {
  username: string
  secret: string
}

/** The AMI users of the shipped manager.conf, with the secrets the test bed gives them. */
export const DIALER_USER: AmiLogin = { username: 'hold-dialer', secret: 'testbed-dialer-secret' }
export const HEALTH_USER: AmiLogin = { username: 'hold-dialer-health', secret: 'testbed-health-secret' }
/** The test bed's own user (all privileges): stops Asterisk, sets device states, watches events. */
export const ADMIN_USER: AmiLogin = { username: 'testbed', secret: 'testbed-admin-secret' }

/** Every configuration file of one test Asterisk, by file name. */
export function configFiles(install: AsteriskInstall, dir: string, port: number): Record<string, string> {
  const manager = readFileSync(SHIPPED_MANAGER, 'utf8')
    .replace(/^port = \d+$/m, `port = ${port}`)
    .replace(/^secret = CHANGE-ME-ami-dialer$/m, `secret = ${DIALER_USER.secret}`)
    .replace(/^secret = CHANGE-ME-ami-health$/m, `secret = ${HEALTH_USER.secret}`)
  if (!manager.includes(DIALER_USER.secret) || !manager.includes(HEALTH_USER.secret)) {
    throw new Error(`${SHIPPED_MANAGER} no longer has the sections the test bed expects`)
  }
  return {
    'asterisk.conf': [
      '[directories]',
      `astetcdir => ${dir}/etc`,
      `astmoddir => ${install.modules}`,
      `astvarlibdir => ${dir}/lib`,
      `astdbdir => ${dir}/lib`,
      `astkeydir => ${dir}/lib`,
      `astdatadir => ${install.data}`,
      `astspooldir => ${dir}/spool`,
      `astrundir => ${dir}/run`,
      `astlogdir => ${dir}/log`,
      '[options]',
      'documentation_language = en_US',
      '',
    ].join('\n'),
    'modules.conf': '[modules]\nautoload = yes\n',
    // app_amd declines to load without an amd.conf; an empty [general] keeps Asterisk's own defaults.
    'amd.conf': '[general]\n',
    'logger.conf': '[logfiles]\nconsole => notice,warning,error\nmessages.log => notice,warning,error\n',
    'manager.conf': `${manager}\n[${ADMIN_USER.username}]\nsecret = ${ADMIN_USER.secret}\nread = all\nwrite = all\n`,
    'extensions.conf': [
      '[general]',
      'static = yes',
      'writeprotect = yes',
      '',
      '[globals]',
      // Trunks and desks swapped for the test bed's Local channels; everything else is shipped.
      'HD_CUSTOMER_DIAL = Local/%s@customers',
      'HD_DESK_DIAL = Local/%s@agents',
      'HD_HOLD_MUSIC =',
      '',
      `#include "${SHIPPED_DIALPLAN}"`,
      `#include "${TESTBED_DIALPLAN}"`,
      '',
    ].join('\n'),
  }
}
