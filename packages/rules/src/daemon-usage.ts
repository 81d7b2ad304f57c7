// What the long-running processes (the API, the dialer) do with a command line: they take none, as
// systemd and `pnpm start` configure them by environment variables; `--help` says so and where each
// variable is described, and anything else is refused rather than ignored.

/** The API's and the dialer's `--help`. */
export const DAEMON_USAGE = {
  api: `usage: pnpm start:api [--help]
  The lead-intake HTTP API: POST /api/leads (and /api/master), PUT /api/escalated-tickets, POST
  /api/send-callback-request, GET /health, /healthz, /metrics and /openapi.json. It takes no
  arguments: it is configured by environment variables, WS_SECRET required;
  docs/configuration.md lists each with its default.
Exit 2: bad command line or configuration (each bad variable named).`,
  dialer: `usage: pnpm start:dialer [--help]
  The dialer: claims due leads, places their calls through the Asterisk Manager Interface and
  settles the results; /healthz, /metrics and the supervisor console on DIALER_HTTP_PORT. It takes
  no arguments: it is configured by environment variables, AMI_HOST, AMI_USERNAME and AMI_SECRET
  required; docs/configuration.md lists each with its default.
Exit 2: bad command line or configuration (each bad variable named).`,
} as const

/**
 * What a daemon's command line asks for: nothing (`undefined`: run), its usage (exit 0, on stdout)
 * or a refusal (exit 2, on stderr).
 */
export function daemonCommandLine(
  name: keyof typeof DAEMON_USAGE,
  argv: readonly string[],
): { exitCode: 0 | 2; text: string } | undefined {
  if (argv.length === 0) return undefined
  if (argv.includes('--help') || argv.includes('-h')) return { exitCode: 0, text: DAEMON_USAGE[name] }
  return {
    exitCode: 2,
    text: `${name}: unexpected ${argv.map((a) => JSON.stringify(a)).join(' ')}: it takes no arguments, only environment variables (--help)`,
  }
}
