#!/usr/bin/env bash
# Runs a command under as much of a hold-dialer unit's sandbox as can be applied without systemd as
# PID 1 (a container or CI machine, where `systemctl start` and `systemd-run` cannot be used), to see
# that the process still works under it. Needs root (namespaces, mounts), gcc, libseccomp and
# systemd-analyze (to expand the unit's SystemCallFilter= sets). deploy/README.md "Hardening" lists
# what it applies and what it does not.
#
#   deploy/sandbox/run-as-unit.sh UNIT_FILE STATE_DIR [--mdwe] -- COMMAND [ARGS...]
#
# Applied, as the unit says: SystemCallFilter= (both lines, sets expanded by systemd-analyze) with
# SystemCallErrorNumber=EPERM, RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX, NoNewPrivileges=,
# CapabilityBoundingSet= (empty), an unprivileged user (nobody), UMask=0077, ProtectSystem=strict
# (every mount read-only but STATE_DIR), PrivateTmp=, ProtectHome= (tmpfs over /home and /root),
# PrivateDevices= (a /dev with null, zero, full, random, urandom, tty only), ProtectProc=invisible and
# ProcSubset=pid (own PID namespace, /proc mounted hidepid=invisible,subset=pid), PrivateIPC= and
# ProtectHostname= (own IPC and UTS namespaces), PrivateUsers= (a user namespace mapping only the
# service's user). --mdwe adds MemoryDenyWriteExecute=yes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
unit=$1 state=$2
shift 2
HD_SANDBOX_MDWE=
if [ "${1:-}" = --mdwe ]; then
  HD_SANDBOX_MDWE=1
  shift
fi
[ "${1:-}" = -- ] || {
  echo "usage: run-as-unit.sh UNIT_FILE STATE_DIR [--mdwe] -- COMMAND [ARGS...]" >&2
  exit 2
}
shift

work=$(mktemp -d /run/hd-sandbox.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -o "$work/seccomp-exec" "$here/seccomp-exec.c" -l:libseccomp.so.2

# SystemCallFilter=: the union of the allow lines minus the ~ lines, sets expanded recursively.
expand() {
  local name=$1
  case "$name" in
  @*) systemd-analyze syscall-filter "$name" | awk 'NR > 1 && $1 !~ /^#/ { print $1 }' | while read -r n; do expand "$n"; done ;;
  *) echo "$name" ;;
  esac
}
: >"$work/allow"
: >"$work/deny"
while IFS= read -r line; do
  value=${line#SystemCallFilter=}
  if [ "${value#\~}" != "$value" ]; then
    for n in ${value#\~}; do expand "$n"; done >>"$work/deny"
  else
    for n in $value; do expand "$n"; done >>"$work/allow"
  fi
done < <(grep '^SystemCallFilter=' "$unit")
sort -u "$work/allow" | grep -vxF -f <(sort -u "$work/deny") >"$work/allowed" || true
chmod 0644 "$work/allowed"
echo "run-as-unit: $(wc -l <"$work/allowed") system calls allowed by $(basename "$unit")" >&2

chown nobody:nogroup "$state"
chmod 0750 "$state"
# A tmpfs for the sandbox's /dev, /tmp and the home directories, outside the read-only tree.
export HD_SANDBOX_WORK=$work HD_SANDBOX_STATE=$state HD_SANDBOX_MDWE
unshare --mount --pid --ipc --uts --fork --propagation private bash -euo pipefail -c '
  mount -t proc -o hidepid=invisible,subset=pid proc /proc
  # PrivateDevices=: a minimal /dev, its device nodes bound from the real one.
  mkdir -p "$HD_SANDBOX_WORK/host-dev"
  mount --rbind /dev "$HD_SANDBOX_WORK/host-dev"
  mount -t tmpfs -o mode=0755,nosuid tmpfs /dev
  for d in null zero full random urandom tty; do
    touch "/dev/$d"
    mount --bind "$HD_SANDBOX_WORK/host-dev/$d" "/dev/$d"
  done
  umount -l "$HD_SANDBOX_WORK/host-dev"
  mkdir /dev/shm && mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
  # ProtectSystem=strict: every mount read-only; STATE_DIR stays writable.
  mount --bind "$HD_SANDBOX_STATE" "$HD_SANDBOX_STATE"
  findmnt -rn -o TARGET | grep -v -e "^/proc" -e "^/sys" -e "^/dev" | sort -u | while read -r m; do
    mount -o remount,bind,ro "$m" 2>/dev/null || true
  done
  mount -o remount,bind,rw "$HD_SANDBOX_STATE"
  # PrivateTmp=, ProtectHome=.
  for d in /tmp /var/tmp; do mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$d"; done
  for d in /home /root /run/user; do [ -d "$d" ] && mount -t tmpfs -o mode=0755 tmpfs "$d"; done
  hostname hold-dialer-sandbox
  umask 0077
  # PrivateUsers=: a user namespace where only the service user is mapped (all else shows as nobody).
  exec setpriv --reuid=nobody --regid=nogroup --clear-groups --no-new-privs \
    --inh-caps=-all --bounding-set=-all \
    unshare --user --map-user=nobody --map-group=nogroup \
    "$HD_SANDBOX_WORK/seccomp-exec" "$HD_SANDBOX_WORK/allowed" ${HD_SANDBOX_MDWE:+--mdwe} -- "$@"
' run-as-unit "$@" &
# SIGTERM/SIGINT to this script go to the command (PID 1 of the new PID namespace, as systemd's
# KillSignal= would); its exit status is this script's.
ns=$!
trap 'kill -TERM $(pgrep -P "$ns") 2>/dev/null || true' TERM INT
status=0
while kill -0 "$ns" 2>/dev/null; do
  status=0
  wait "$ns" || status=$?
done
exit "$status"
