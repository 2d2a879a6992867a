#!/usr/bin/env bash
# Starts the real servers of the distributed shape for development and tests: installs what is
# missing, starts each named server that is not already running, waits until each is ready, and
# (re)writes the environment file with their endpoints (export lines to `source`).
#
# Usage: scripts/infra/start.sh [--print-env-file] [kafka|postgres|clickhouse|minio ...]   (all when none named)
#   --print-env-file  print the environment file's path on stdout when done:
#                     source "$(scripts/infra/start.sh --print-env-file)"
# State, pid files and logs live in ${GUIDEPOST_INFRA_DIR:-~/.cache/guidepost/run}; stop.sh stops them.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  local print_env_file=false
  if [[ ${1:-} == --print-env-file ]]; then
    print_env_file=true
    shift
  fi
  select_servers "$@"
  "$INFRA_SCRIPTS_DIR/install.sh" "${SELECTED[@]}"
  hold_lock "$INFRA_DIR/lock"
  local name
  # Launch all, then wait for all: the servers start in parallel.
  for name in "${SELECTED[@]}"; do
    launch "$name"
  done
  for name in "${SELECTED[@]}"; do
    await_ready "$name"
  done
  write_env_file
  log "ready: ${SELECTED[*]}; environment in $ENV_FILE"
  if $print_env_file; then
    printf '%s\n' "$ENV_FILE"
  fi
}

launch() {
  local name=$1 pid port log
  if pid=$(running_pid "$name"); then
    log "$name: already running (pid $pid)"
    return
  fi
  for port in $("${name}_ports"); do
    if port_in_use "$port"; then
      die "$name: port $port is in use, but not by a server started from $INFRA_DIR;" \
        "stop that process or choose other ports (GUIDEPOST_INFRA_*_PORT)"
    fi
  done
  "${name}_prepare"
  "${name}_command"
  log=$(log_file "$name")
  log "$name: starting (log: $log)"
  printf '\n--- %s started %s\n' "$(date -u +%FT%TZ)" "${SERVER_COMMAND[*]}" >>"$log"
  # setsid: its own session, so the server outlives this script and the terminal it ran in. The
  # exec chain (env, setsid, the command) keeps one pid, which is the server's. fd 9 is the lock.
  env "${SERVER_ENV[@]}" setsid "${SERVER_COMMAND[@]}" >>"$log" 2>&1 </dev/null 9>&- &
  echo "$!" >"$(pid_file "$name")"
  await_exec "$name" "$!"
}

# The background job is a fork of this script until it execs the server: for that moment its command
# line is this script's, and running_pid would report the server as dead (on a busy machine the moment
# is long enough for await_ready to see it: "exited while starting" of a server that was starting).
# Waits until running_pid recognises it, or until the job has exited (await_ready then reports that).
await_exec() {
  local name=$1 pid=$2 tries
  for ((tries = 0; tries < 200; tries++)); do
    running_pid "$name" >/dev/null && return
    [[ -e /proc/$pid ]] || return 0
    sleep 0.05
  done
}

await_ready() {
  local name=$1 deadline=$((SECONDS + START_TIMEOUT_SECONDS))
  until "${name}_ready"; do
    if ! running_pid "$name" >/dev/null; then
      show_logs "$name"
      die "$name: the server exited while starting (log: $(log_file "$name"))"
    fi
    if ((SECONDS >= deadline)); then
      show_logs "$name"
      die "$name: not ready after ${START_TIMEOUT_SECONDS}s (log: $(log_file "$name"));" \
        "it is still running: scripts/infra/stop.sh $name"
    fi
    sleep 0.5
  done
  log "$name: ready"
}

# Always every endpoint, whichever servers this run started: the file describes the whole set.
write_env_file() {
  {
    echo "# Written by scripts/infra/start.sh: endpoints of the test servers. Use: source $ENV_FILE"
    printf 'export %s=%q\n' \
      GUIDEPOST_KAFKA_BROKERS "$BIND_HOST:$KAFKA_PORT" \
      GUIDEPOST_DATABASE_URL "$(postgres_url)" \
      GUIDEPOST_CLICKHOUSE_URL "$(clickhouse_url)" \
      GUIDEPOST_S3_ENDPOINT "$(minio_url)" \
      GUIDEPOST_S3_ACCESS_KEY "$S3_ACCESS_KEY" \
      GUIDEPOST_S3_SECRET_KEY "$S3_SECRET_KEY"
  } >"$ENV_FILE.partial"
  # Readers never see half a file.
  mv "$ENV_FILE.partial" "$ENV_FILE"
}

main "$@"
