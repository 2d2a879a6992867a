#!/usr/bin/env bash
# Part of `npm run lint`: every commit subject since this check was added reads `area: imperative
# summary`, at most 72 characters (the why and the figures go in the body; docs/contributing.md). The
# history before it stays as it is: the check starts at the commit that added this file.
set -euo pipefail
LOG_TAG=lint
# shellcheck source=scripts/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
cd "$(dirname "$0")/../.."

readonly MAX_LENGTH=72
# An area (lower case, digits, `-`, `/` for a sub-area), a colon, a space, then the summary.
readonly SUBJECT='^[a-z0-9][a-z0-9/-]*: [^ ].*[^.]$'

# The commit that added this file; in a shallow clone, the oldest commit that has it.
first=$(git log --format=%H --diff-filter=A -- scripts/lint/commit-subjects.sh | tail -1)
range=${first:+$first^..HEAD}
# A clone too shallow to have the parent: every commit it has.
git rev-parse --quiet --verify "$first^" >/dev/null 2>&1 || range=HEAD

failures=0
while IFS=$'\t' read -r hash subject; do
  problem=''
  if ((${#subject} > MAX_LENGTH)); then
    problem="${#subject} characters, more than $MAX_LENGTH"
  elif ! [[ $subject =~ $SUBJECT ]]; then
    problem="not 'area: imperative summary' (lower-case area, a colon and a space, no final full stop)"
  fi
  if [[ -n $problem ]]; then
    log "commit ${hash:0:10} '$subject': $problem"
    failures=$((failures + 1))
  fi
done < <(git log --no-merges --format=$'%H\t%s' $range)
((failures == 0)) || die "$failures commit subject(s) break the convention; reword them (git rebase -i) before they land"
