// The time of day a test sees when it runs on the real clock (docs/testing.md).
//
// A test that dials on the real clock must not depend on when the suite starts: at 23:30 UTC an hour
// later is past a UTC working window, at 00:00:30 "today" has just begun. So such a test's TIMEZONE is
// chosen from the moment it starts: a fixed-offset zone (Etc/GMT±N, no DST) in which that moment is
// between 11:00 and 12:00, leaving about eleven hours of the same local day on either side.

/** The hour of the local day at which `middayZone` puts its moment. */
export const MIDDAY_HOUR = 11

/**
 * An IANA zone of fixed offset (`Etc/GMT-1` is UTC+1) in which `now` is between 11:00 and 12:00 local
 * time. Offsets run from UTC-12 to UTC+11, all of which the tz database has.
 */
export function middayZone(now: Date): string {
  const offset = MIDDAY_HOUR - now.getUTCHours() // hours east of UTC, -12 to 11
  if (offset === 0) return 'Etc/GMT'
  // The tz database's Etc names count the other way: Etc/GMT-5 is five hours east of UTC.
  return `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`
}

/**
 * The environment of a faked clock (scripts/fake-clock.sh: libfaketime's LD_PRELOAD and FAKETIME*),
 * for a child process started with an environment of its own, so that it reads the clock the test
 * reads. Empty on the real clock.
 */
export function fakeClockEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (name === 'LD_PRELOAD' || name === 'FAKETIME' || name.startsWith('FAKETIME_')))
      out[name] = value
  }
  return out
}

/**
 * `env` without the faked clock: libfaketime taken out of LD_PRELOAD and no FAKETIME*. For a process
 * that cannot run preloaded: Chromium's renderers die under libfaketime (nothing renders, the zygote
 * reports them gone) even at a zero offset, so the browser test starts Chromium on the real clock.
 */
export function withoutFakeClock(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name === 'FAKETIME' || name.startsWith('FAKETIME_')) continue
    if (name === 'LD_PRELOAD') {
      const kept = value.split(/[:\s]+/).filter((lib) => lib && !/libfaketime/.test(lib))
      if (kept.length) out[name] = kept.join(':')
      continue
    }
    out[name] = value
  }
  return out
}
