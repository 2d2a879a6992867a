# shellcheck shell=bash
# What every script library of scripts/ shares (sourced, never run): messages tagged with the
# library's LOG_TAG, and the lock that keeps two runs of one script from working at once.
# Set LOG_TAG before sourcing.

log() {
  printf '[%s] %s\n' "${LOG_TAG:?set LOG_TAG before sourcing scripts/lib/common.sh}" "$*" >&2
}

die() {
  log "error: $*"
  exit 1
}

# Holds an exclusive lock on FILE (on descriptor 9) until the script exits, waiting for another holder.
hold_lock() {
  mkdir -p "$(dirname "$1")"
  exec 9>"$1"
  flock --nonblock 9 && return
  log "waiting for another run to release $1"
  flock 9
}
