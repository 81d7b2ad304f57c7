// A summary of the configuration that is safe to log at boot and to show in the detailed health.
import type { Config } from './config-schema.js'
import { maskSecret, maskUrlCredentials } from './mask-secrets.js'

/**
 * The configuration with WS_SECRET, AMI_SECRET, DIALER_HTTP_SECRET and every URL password replaced by `***`. Everything
 * else is shown as configured (LOG_FORMAT unset shows as absent: the format then follows the terminal).
 */
export function describeConfig(config: Config): Config {
  return {
    ...config,
    databaseUrl: maskUrlCredentials(config.databaseUrl),
    wsSecret: maskSecret(config.wsSecret),
    ami: { ...config.ami, secret: maskSecret(config.ami.secret) },
    dialerHttpSecret: maskSecret(config.dialerHttpSecret),
    redisUrl: config.redisUrl === undefined ? undefined : maskUrlCredentials(config.redisUrl),
    smtp: {
      ...config.smtp,
      url: config.smtp.url === undefined ? undefined : maskUrlCredentials(config.smtp.url),
    },
  }
}
