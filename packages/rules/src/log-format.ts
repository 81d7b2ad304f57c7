import type { LogFormat } from './config-schema.js'

/**
 * The log format a process uses: LOG_FORMAT when set; unset, pretty when its stdout is a terminal
 * (someone is reading it) and JSON otherwise (systemd's journal, a pipe, a file: read by machines).
 */
export function chooseLogFormat(setting: LogFormat | undefined, stdoutIsTty: boolean): LogFormat {
  return setting ?? (stdoutIsTty ? 'pretty' : 'json')
}
