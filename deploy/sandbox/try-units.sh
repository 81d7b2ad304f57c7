#!/usr/bin/env bash
# Starts the built API and dialer of this checkout, each under run-as-unit.sh (its unit's sandbox as
# far as it applies without systemd as PID 1), against the simulated PBX, and checks that they work:
# the API answers /healthz, /health and three pushes, the dialer places and settles calls, and both
# stop cleanly on SIGTERM (exit 0, "stopped"). Run as root from the checkout after `pnpm build`.
#
#   deploy/sandbox/try-units.sh mysql   # MariaDB on 127.0.0.1:3306 as root: a scratch database with a
#                                       # migration user and DML-only users per process, as in
#                                       # deploy/README.md, dropped afterwards
#   deploy/sandbox/try-units.sh sqlite  # one file in the sandbox's writable state directory
set -uo pipefail
cd "$(dirname "$0")/../.."
engine=${1:-sqlite}
node=$(pwd)/node_modules/.bin/node
db=hd_unit_check
logs=$(mktemp -d /tmp/hd-try-units.XXXXXX)
state=$(mktemp -d /run/hd-state.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$state"
  if [ "$engine" = mysql ]; then
    mysql -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db; DROP USER IF EXISTS 'hdc_migrate'@'127.0.0.1', 'hdc_api'@'127.0.0.1', 'hdc_dialer'@'127.0.0.1';"
  fi
}
trap cleanup EXIT

if [ "$engine" = mysql ]; then
  mysql -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db CHARACTER SET utf8mb4;
    DROP USER IF EXISTS 'hdc_migrate'@'127.0.0.1', 'hdc_api'@'127.0.0.1', 'hdc_dialer'@'127.0.0.1';
    CREATE USER 'hdc_migrate'@'127.0.0.1' IDENTIFIED BY 'pw-migrate'; GRANT ALL ON $db.* TO 'hdc_migrate'@'127.0.0.1';
    CREATE USER 'hdc_api'@'127.0.0.1' IDENTIFIED BY 'pw-api';
    GRANT SELECT, INSERT, UPDATE, DELETE ON $db.* TO 'hdc_api'@'127.0.0.1';
    CREATE USER 'hdc_dialer'@'127.0.0.1' IDENTIFIED BY 'pw-dialer';
    GRANT SELECT, INSERT, UPDATE, DELETE ON $db.* TO 'hdc_dialer'@'127.0.0.1';" || exit 1
  api_url=mysql://hdc_api:pw-api@127.0.0.1:3306/$db
  dialer_url=mysql://hdc_dialer:pw-dialer@127.0.0.1:3306/$db
  admin_url=mysql://hdc_migrate:pw-migrate@127.0.0.1:3306/$db
  migrate_on_start=false
  DATABASE_URL=$admin_url "$node" packages/db/dist/cli/migrate.js | tail -1
else
  api_url=sqlite:$state/dialer.sqlite dialer_url=$api_url admin_url=$api_url migrate_on_start=true
fi

"$node" packages/pbx-sim/dist/cli.js --port 5391 --scenario scripts/demo-scenario.json --time-scale 20 \
  >"$logs/pbx.log" 2>&1 &
pids+=($!)
common=(PATH=/usr/bin:/bin CALLBACK_MODE=pool TIMEZONE=Asia/Kolkata WORK_START=00:00 WORK_END=23:59
  AMI_HOST=127.0.0.1 AMI_PORT=5391 AMI_USERNAME=admin AMI_SECRET=admin
  DB_MIGRATE_ON_START=$migrate_on_start LOG_LEVEL=info)
env -i "${common[@]}" DATABASE_URL="$api_url" WS_SECRET=s3cret HOST=127.0.0.1 PORT=3391 \
  deploy/sandbox/run-as-unit.sh deploy/hold-dialer-api.service "$state" -- "$node" apps/api/dist/server.js \
  >"$logs/api.log" 2>&1 &
api=$!
pids+=($api)

wait_for() { # FILE PATTERN PID: until PATTERN is in FILE, while PID lives (60 s at most)
  for _ in $(seq 1 600); do
    grep -q "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || { echo "FAIL: exited before '$2' ($1)"; return 1; }
    sleep 0.1
  done
  echo "FAIL: no '$2' in $1 within 60 s"
  return 1
}
ok=1
wait_for "$logs/api.log" 'database migrated\|database ready' $api || ok=0
# The agents' panel: an admin command, run with the migration user (it migrates before it starts).
env "${common[@]}" DATABASE_URL="$admin_url" "$node" apps/dialer/dist/cli/agents-main.js demo 1001 1002 \
  >"$logs/panel.log" 2>&1 &
pids+=($!)
env -i "${common[@]}" DATABASE_URL="$dialer_url" DIALER_ID=sandbox \
  deploy/sandbox/run-as-unit.sh deploy/hold-dialer-dialer.service "$state" -- "$node" apps/dialer/dist/main.js \
  >"$logs/dialer.log" 2>&1 &
dialer=$!
pids+=($dialer)

wait_for "$logs/api.log" 'api listening' $api || ok=0
wait_for "$logs/dialer.log" 'dialer started' $dialer || ok=0
if [ $ok = 1 ]; then
  curl -sf http://127.0.0.1:3391/healthz && echo || ok=0
  for i in 1 2 3; do
    curl -sf -X POST http://127.0.0.1:3391/api/leads -H 'Authorization: Bearer s3cret' \
      -d "{\"oli_id\":\"S-$i\",\"phone_number\":\"+91 98765 4321$i\",\"client_name\":\"T\",\"form_type\":\"hold\",\"priority_id\":1}" &&
      echo || ok=0
  done
  curl -sf http://127.0.0.1:3391/health -H 'Authorization: Bearer s3cret' >/dev/null && echo "/health 200" || ok=0
  wait_for "$logs/dialer.log" '"call finished"' $dialer || ok=0
fi
kill -TERM $api $dialer
wait $api && echo "api: exit 0" || { echo "FAIL: api exit $?"; ok=0; }
wait $dialer && echo "dialer: exit 0" || { echo "FAIL: dialer exit $?"; ok=0; }
for p in api dialer; do
  grep -q '"msg":"stopped"' "$logs/$p.log" || { echo "FAIL: $p did not log stopped"; ok=0; }
  grep -h -e '"level":[56]0' "$logs/$p.log" && ok=0
done
echo "calls settled: $(grep -c '"call finished"' "$logs/dialer.log"); logs in $logs"
[ "$engine" = sqlite ] && ls -l "$state"
[ $ok = 1 ] && echo "PASS ($engine)" || echo "FAIL ($engine)"
[ $ok = 1 ]
