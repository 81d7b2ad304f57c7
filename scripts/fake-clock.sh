#!/usr/bin/env bash
# Runs a command with the wall clock moved to a chosen UTC instant (docs/testing.md), e.g.
#
#   scripts/fake-clock.sh 23:40 pnpm test --no-static dialer        # today, 23:40 UTC
#   scripts/fake-clock.sh '2026-12-31 23:59:59' node scripts/test.mjs --no-static rules
#   scripts/fake-clock.sh --late pnpm test                           # 23:40 UTC of the real day (CI)
#
# The instant is anything GNU date reads, in UTC. The clock then advances at the real pace (an offset,
# not a stopped clock), so timers, timeouts and a run that crosses midnight behave as they would.
#
# How: Debian's libfaketime (apt-get install faketime), preloaded into the command and every process
# it starts (tap's test processes, spawned dialers and APIs, Chromium, Asterisk), with
# FAKETIME="<+/-seconds>": a relative offset, so every process reads the same clock whenever it
# starts (an absolute FAKETIME would restart the clock in each new process). The monotonic clock is
# left alone (FAKETIME_DONT_FAKE_MONOTONIC=1): libuv's timers and performance.now() run on it. The
# multi-threaded variant of the library is used, as Node is multi-threaded. The database servers
# (MariaDB, Redis) are separate processes and keep the real clock; the product never asks MariaDB for
# the time (every time it writes comes from Node).
set -euo pipefail

usage() {
  echo "usage: scripts/fake-clock.sh INSTANT|--late COMMAND [ARGS...]   (INSTANT in UTC, as GNU date reads it)" >&2
  exit 2
}
[ $# -ge 2 ] || usage
case "$1" in
--late) instant="$(date -u +%F) 23:40:00" ;;
-*) usage ;;
*) instant=$1 ;;
esac
shift

lib=
for candidate in /usr/lib/*/faketime/libfaketimeMT.so.1 /usr/lib/faketime/libfaketimeMT.so.1 \
  /usr/local/lib/faketime/libfaketimeMT.so.1; do
  if [ -f "$candidate" ]; then
    lib=$candidate
    break
  fi
done
if [ -z "$lib" ]; then
  echo "FATAL: libfaketime is not installed (Debian: apt-get install faketime)" >&2
  exit 1
fi

if ! target=$(TZ=UTC date -u -d "$instant" +%s); then
  echo "FATAL: not an instant GNU date reads: $instant" >&2
  exit 2
fi
offset=$((target - $(date -u +%s)))
sign=+
[ "$offset" -lt 0 ] && sign=
export FAKETIME="${sign}${offset}s"
export FAKETIME_DONT_FAKE_MONOTONIC=1
export LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
echo "=== fake clock: starts at $(date -u -d "@$target" '+%F %T') UTC and advances (FAKETIME=$FAKETIME)"

# Proof that the preload works before the command relies on it: date reads the faked clock.
seen=$(date -u +%s)
if [ $((seen - target)) -lt -5 ] || [ $((seen - target)) -gt 60 ]; then
  echo "FATAL: the fake clock did not take: date reads $(date -u -d "@$seen" '+%F %T') UTC" >&2
  exit 1
fi
exec "$@"
