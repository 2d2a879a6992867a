#!/usr/bin/env bash
# `npm test`: every test of the project, stage by stage, and at the end (pass or fail) how long each
# stage took. Stages of a group run side by side, each writing its own log (printed whole, in order,
# once the group is done; a stage alone in its group prints as it goes); the groups run one after
# another and the first failing group stops the run.
#
# Meanwhile, at the lowest CPU priority, the tools the later stages install on first use are installed
# (WARM_UPS: the servers, the Kubernetes binaries, podman and the base image): on a cold cache they
# take about half an hour of builds, which then use the time the earlier stages leave the CPU idle
# instead of adding to the run. Each install holds its own lock, so a stage that needs a tool still
# being built waits for it; one that failed here is tried again, and reported, by its stage.
# What each stage proves: README, "Run all the tests".
#
# Usage: scripts/test-all.sh [STAGE ...]   (all when none named; `--list` prints them)
set -euo pipefail
LOG_TAG=test
# shellcheck source=scripts/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$(dirname "$0")/.."

# Each group on one line, its stages separated by spaces; a stage is an npm script. Side by side go
# stages that share no server and leave each other CPU: the standalone shape's end-to-end suite (its own
# embedded stores) beside the distributed tests (the servers of scripts/infra), whose fault specs spend
# most of their time waiting out outages and freezes. The containers, images and cluster stages share
# podman and the service image, so they go one at a time.
readonly STAGE_GROUPS=(
  "test:unit test:chart test:alerts"
  "test:medium"
  "test:e2e test:distributed"
  "test:docs test:dashboards"
  "test:containers"
  "test:images"
  "test:cluster"
)

# What the later stages install into ~/.cache/guidepost on first use; a no-op on a warm cache.
readonly WARM_UPS=(
  "scripts/infra/install.sh kafka minio postgres"
  "scripts/images/install-tools.sh"
  "scripts/cluster/install.sh"
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
  [[ -s $RUN_DIR/warm-up.log ]] && printf '\n== warm-up (installs run beside the stages)\n%s\n' "$(cat "$RUN_DIR/warm-up.log")" >&2
  # A run that ended early leaves no install running (one a later run needs waits on its lock anyway).
  if [[ -n ${WARM_UP_PID:-} ]]; then pkill -TERM -P "$WARM_UP_PID" 2>/dev/null || true; kill "$WARM_UP_PID" 2>/dev/null || true; fi
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

# Runs WARM_UPS one after the other at the lowest priority, noting how long each took; never fails the run.
warm_up() {
  local command started status
  for command in "${WARM_UPS[@]}"; do
    started=$SECONDS
    status=0
    # shellcheck disable=SC2086 # a command and its arguments
    nice -n 19 $command >"$RUN_DIR/warm-up.out" 2>&1 || status=$?
    printf '%-45s %6d s  %s\n' "$command" "$((SECONDS - started))" "$( ((status == 0)) && echo done || echo "failed (exit $status), left to its stage: $(tail -n 3 "$RUN_DIR/warm-up.out" | tr '\n' ' ')")" >>"$RUN_DIR/warm-up.log"
  done
}

main() {
  if [[ ${1:-} == --list ]]; then
    printf '%s\n' "${STAGE_GROUPS[@]}"
    return
  fi
  # Only for a whole run: a chosen stage or two should not start half an hour of builds.
  if (($# == 0)); then
    warm_up &
    WARM_UP_PID=$!
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
