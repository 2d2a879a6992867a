# shellcheck shell=bash disable=SC2034 # SERVER_ENV and SERVER_COMMAND are read by start.sh
# ClickHouse for several processes: the chdb HTTP front (libs/platform/chdb-server), which serves the ClickHouse
# engine of the `chdb` npm package over the subset of the HTTP protocol that @clickhouse/client uses.
# No registry ships a clickhouse-server binary. Sourced by lib.sh; see there for the functions every
# server defines.

readonly CLICKHOUSE_MAIN=$REPO_ROOT/dist/libs/platform/chdb-server/src/main.js

clickhouse_install() {
  [[ -d $REPO_ROOT/node_modules/chdb ]] || die "clickhouse: node_modules/chdb is missing: run npm ci in $REPO_ROOT"
  [[ -f $CLICKHOUSE_MAIN ]] || die "clickhouse: $CLICKHOUSE_MAIN does not exist: run npm run build first (in $REPO_ROOT)"
}

clickhouse_prepare() {
  mkdir -p "$(state_dir clickhouse)/data"
}

clickhouse_command() {
  SERVER_ENV=()
  SERVER_COMMAND=(
    node "$CLICKHOUSE_MAIN" --host "$BIND_HOST" --port "$CLICKHOUSE_PORT" --path "$(state_dir clickhouse)/data"
  )
}

clickhouse_ready() { http_ok "http://$BIND_HOST:$CLICKHOUSE_PORT/ping"; }
clickhouse_url() { printf 'http://%s:%s' "$BIND_HOST" "$CLICKHOUSE_PORT"; }
clickhouse_ports() { echo "$CLICKHOUSE_PORT"; }
clickhouse_stop_signal() { echo TERM; }
clickhouse_extra_logs() { :; }
