#!/usr/bin/env bash
# Stops the test servers that start.sh started: each gets its clean-shutdown signal, then SIGKILL if
# it is still running after a grace period (${GUIDEPOST_INFRA_STOP_GRACE_SECONDS:-30} seconds). Their
# data stays, so the next start.sh carries on where they left off.
#
# Usage: scripts/infra/stop.sh [kafka|postgres|clickhouse|minio ...]   (all when none named)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  select_servers "$@"
  hold_lock "$INFRA_DIR/lock"
  local name stopping=()
  # Signal all, then wait for all: the servers shut down in parallel.
  for name in "${SELECTED[@]}"; do
    if request_stop "$name"; then
      stopping+=("$name")
    fi
  done
  for name in "${stopping[@]}"; do
    await_exit "$name"
  done
  for name in "${SELECTED[@]}"; do
    rm -f "$(pid_file "$name")"
  done
}

# Succeeds when the server was running and has been asked to stop.
request_stop() {
  local name=$1 pid signal
  if ! pid=$(running_pid "$name"); then
    log "$name: not running"
    return 1
  fi
  signal=$("${name}_stop_signal")
  log "$name: stopping (pid $pid, SIG$signal)"
  kill -s "$signal" "$pid"
}

await_exit() {
  local name=$1 pid deadline=$((SECONDS + STOP_GRACE_SECONDS))
  while pid=$(running_pid "$name"); do
    if ((SECONDS >= deadline)); then
      log "$name: still running after ${STOP_GRACE_SECONDS}s; sending SIGKILL"
      kill -s KILL "$pid"
      deadline=$((SECONDS + STOP_GRACE_SECONDS))
    fi
    sleep 0.2
  done
  log "$name: stopped"
}

main "$@"
