#!/usr/bin/env bash
# Freezes or thaws the test servers that start.sh started: SIGSTOP (or SIGCONT) to each server's whole
# process tree (PostgreSQL serves every connection from a child of the postmaster). A frozen server keeps
# its connections open and answers nothing, which is what a stalled disk, a long GC pause or a network
# partition looks like to a client: the gray failure that a stop, which refuses connections, does not show.
#
# Usage: scripts/infra/freeze.sh [--thaw] [kafka|postgres|clickhouse|minio ...]   (all when none named)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  local signal=STOP verb=frozen
  if [[ ${1:-} == --thaw ]]; then
    signal=CONT verb=thawed
    shift
  fi
  select_servers "$@"
  local name pid
  for name in "${SELECTED[@]}"; do
    pid=$(running_pid "$name") || die "$name is not running"
    # shellcheck disable=SC2046 # one pid a word
    kill -s "$signal" $(process_tree "$pid")
    log "$name: $verb (pid $pid and its descendants)"
  done
}

# Prints a process and all its descendants, one pid a line.
process_tree() {
  local child
  printf '%s\n' "$1"
  for child in $(pgrep -P "$1" || true); do
    process_tree "$child"
  done
}

main "$@"
