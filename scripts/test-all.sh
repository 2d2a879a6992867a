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

# Each group on one line: its lanes separated by " | ", the stages of a lane (npm scripts) by spaces.
# The lanes of a group run side by side, the stages of a lane one after another; a lane stops at its
# first failing stage. Side by side go lanes that share no server and leave each other CPU:
#   - the standalone shape (its own embedded stores), then the containers and the cluster (servers of
#     their own: containers in podman, a private set of scripts/infra for the cluster's pods);
#   - the distributed tests, the dashboards and the images, on the shared servers of scripts/infra;
#   - the fault specs, on a private set of their own (they stop and freeze its servers), which spend
#     most of their time waiting out outages and freezes.
# The images and cluster stages build the same service image; scripts/images/build.sh takes a lock.
readonly STAGE_GROUPS=(
  "test:unit | test:chart | test:alerts"
  "test:medium"
  "test:e2e test:docs test:containers test:cluster | test:distributed test:dashboards test:images | test:faults"
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
  if ((${#REPORT[@]} > 0)); then
    printf '\n== stage durations\n' >&2
    printf '%s\n' "${REPORT[@]}" >&2
    printf '%-22s %6d s\n' "all" "$((SECONDS - STARTED))" >&2
  fi
  [[ -s $RUN_DIR/warm-up.log ]] && printf '\n== warm-up (installs run beside the stages)\n%s\n' "$(cat "$RUN_DIR/warm-up.log")" >&2
  # A run that ended early leaves no install running (one a later run needs waits on its lock anyway):
  # the whole process group, since an install's builds (go, mvn) are its grandchildren.
  [[ -n ${WARM_UP_PID:-} ]] && { kill -TERM -- "-$WARM_UP_PID" 2>/dev/null || true; }
  rm -rf "$RUN_DIR"
  exit "$status"
}
trap report EXIT

# Runs STAGE and records how long it took and how it ended (RUN_DIR/STAGE.result). Alone, it prints
# as it goes; beside others, its log goes to RUN_DIR/STAGE.log and is printed whole once it ends.
run_stage() {
  local stage=$1 alone=$2 started=$SECONDS status=0
  if [[ $alone == yes ]]; then
    npm run --silent "$stage" || status=$?
  else
    npm run --silent "$stage" >"$RUN_DIR/$stage.log" 2>&1 || status=$?
    # One log at a time on stderr, however many lanes end together.
    (
      flock 8
      printf '\n== %s\n' "$stage" >&2
      cat "$RUN_DIR/$stage.log" >&2
    ) 8>"$RUN_DIR/print.lock"
  fi
  printf '%s %s\n' "$((SECONDS - started))" "$( ((status == 0)) && echo passed || echo "FAILED (exit $status)")" >"$RUN_DIR/$stage.result"
  return "$status"
}

# Runs the stages of a lane one after another, up to the first that fails.
run_lane() {
  local alone=$1 stage
  shift
  for stage in "$@"; do
    run_stage "$stage" "$alone" || return
  done
}

# Runs the lanes of one group (each a string of stages) side by side; fails when any failed, after all
# have ended. A stage after a failure in its lane is reported as not run.
run_group() {
  local lane alone=no pids=()
  (($# == 1)) && [[ $1 != *' '* ]] && alone=yes
  for lane in "$@"; do
    # shellcheck disable=SC2086 # a lane's stages, split on spaces
    run_lane "$alone" $lane &
    pids+=($!)
  done
  local pid failed=0 stage seconds outcome
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
  for stage in $*; do
    if [[ -s $RUN_DIR/$stage.result ]]; then
      read -r seconds outcome <"$RUN_DIR/$stage.result"
      REPORT+=("$(printf '%-22s %6d s  %s' "$stage" "$seconds" "$outcome")")
    else
      REPORT+=("$(printf '%-22s %8s  %s' "$stage" '' 'not run (an earlier stage of its lane failed)')")
    fi
  done
  return "$failed"
}

# The lanes of GROUP with only the stages asked for (all of them when none was named), a lane a line.
chosen_in() {
  local group=$1 lane stage wanted kept
  shift
  while read -r lane; do
    kept=()
    for stage in $lane; do
      (($# == 0)) && { kept+=("$stage"); continue; }
      for wanted in "$@"; do [[ $wanted == "$stage" ]] && kept+=("$stage"); done
    done
    ((${#kept[@]} > 0)) && echo "${kept[*]}"
  done < <(tr '|' '\n' <<<"$group")
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
  # In a process group of its own (job control on for that one fork), so that `report` can stop it whole.
  if (($# == 0)); then
    set -m
    warm_up &
    WARM_UP_PID=$!
    set +m
  fi
  local group chosen
  for group in "${STAGE_GROUPS[@]}"; do
    mapfile -t chosen < <(chosen_in "$group" "$@")
    ((${#chosen[@]} > 0)) || continue
    log "running $(printf '%s | ' "${chosen[@]}" | sed 's/ | $//')"
    run_group "${chosen[@]}"
  done
}

main "$@"
