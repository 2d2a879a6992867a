#!/usr/bin/env bash
# `npm test`: every test of the project, stage by stage, and at the end (pass or fail) how long each
# stage took. Stages of a group run side by side, each writing its own log (printed whole, in order,
# once the group is done; a stage alone in its group prints as it goes); the groups run one after
# another and the first failing group stops the run.
# What each stage proves: README, "Run all the tests".
#
# Usage: scripts/test-all.sh [STAGE ...]   (all when none named; `--list` prints them)
set -euo pipefail
LOG_TAG=test
# shellcheck source=scripts/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$(dirname "$0")/.."

# Each group on one line, its stages separated by spaces; a stage is an npm script.
readonly STAGE_GROUPS=(
  "test:unit test:chart test:alerts"
  "test:medium"
  "test:e2e"
  "test:docs"
  "test:distributed"
  "test:dashboards"
  "test:containers"
  "test:images"
  "test:cluster"
)

RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/guidepost-test.XXXXXX")
readonly RUN_DIR
STARTED=$SECONDS
declare -a REPORT=()

report() {
  local status=$?
  # Subshells (a stage, a process substitution) run the EXIT trap too; only the script reports.
  [[ $BASHPID == "$$" ]] || return "$status"
  printf '\n== stage durations\n' >&2
  printf '%s\n' "${REPORT[@]}" >&2
  printf '%-22s %6d s\n' "all" "$((SECONDS - STARTED))" >&2
  rm -rf "$RUN_DIR"
  exit "$status"
}
trap report EXIT

# Runs STAGE, then writes how long it took to RUN_DIR/STAGE.seconds; its log goes to RUN_DIR/STAGE.log
# unless it runs alone.
run_stage() {
  local stage=$1 alone=$2 started=$SECONDS status=0
  if [[ $alone == yes ]]; then
    npm run --silent "$stage" || status=$?
  else
    npm run --silent "$stage" >"$RUN_DIR/$stage.log" 2>&1 || status=$?
  fi
  echo "$((SECONDS - started))" >"$RUN_DIR/$stage.seconds"
  return "$status"
}

# Runs the stages of one group side by side; fails when any of them failed, after all have ended.
run_group() {
  local stage alone=no pids=()
  (($# == 1)) && alone=yes
  for stage in "$@"; do
    run_stage "$stage" "$alone" &
    pids+=($!)
  done
  local index status failed=0
  for index in "${!pids[@]}"; do
    stage=${*:index+1:1}
    status=0
    wait "${pids[index]}" || status=$?
    REPORT+=("$(printf '%-22s %6d s  %s' "$stage" "$(cat "$RUN_DIR/$stage.seconds")" "$( ((status == 0)) && echo passed || echo "FAILED (exit $status)")")")
    if [[ $alone == no ]]; then
      printf '\n== %s\n' "$stage" >&2
      cat "$RUN_DIR/$stage.log" >&2
    fi
    ((status == 0)) || failed=1
  done
  return "$failed"
}

# The stages of GROUP that were asked for: all of them when none was named.
chosen_in() {
  local group=$1 stage wanted
  shift
  for stage in $group; do
    (($# == 0)) && { echo "$stage"; continue; }
    for wanted in "$@"; do [[ $wanted == "$stage" ]] && echo "$stage"; done
  done
}

main() {
  if [[ ${1:-} == --list ]]; then
    printf '%s\n' "${STAGE_GROUPS[@]}"
    return
  fi
  local group chosen
  for group in "${STAGE_GROUPS[@]}"; do
    mapfile -t chosen < <(chosen_in "$group" "$@")
    ((${#chosen[@]} > 0)) || continue
    log "running ${chosen[*]}"
    run_group "${chosen[@]}"
  done
}

main "$@"
