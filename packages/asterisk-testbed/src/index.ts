export { Asterisk } from './asterisk.js'
export { ADMIN_USER, type AmiLogin, DIALER_USER, HEALTH_USER, SHIPPED_DIALPLAN } from './config-files.js'
export { type AsteriskInstall, locateAsterisk, REPO_ROOT } from './locate.js'
