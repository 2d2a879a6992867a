#!/usr/bin/env bash
# `npm run test:quick`: the loop for one change, in a minute or two. Lint and the unit and medium specs
# of the Nx projects the change touches and of those that depend on them, then the type check of the
# whole workspace (incremental: tsc keeps its .tsbuildinfo under .nx/, so an unchanged tree costs
# seconds). The change is the working tree (committed or not) against BASE: the point where this
# branch left main, or, on main itself, the last commit.
#
# Usage: scripts/test-quick.sh [BASE]   (a commit; e.g. HEAD~3 for the last three commits too)
set -euo pipefail
LOG_TAG=test:quick
# shellcheck source=scripts/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$(dirname "$0")/.."

base=${1:-$(git merge-base HEAD main 2>/dev/null || echo HEAD)}
[[ $(git rev-parse "$base") == $(git rev-parse HEAD) ]] && [[ $# -eq 0 ]] && base=HEAD~1
log "the change: the working tree against $(git rev-parse --short "$base")"

export NX_DAEMON=false
started=$SECONDS
npx nx affected --base="$base" -t lint test --parallel=2 --outputStyle=static
npx tsc -p tsconfig.json --noEmit --incremental --tsBuildInfoFile .nx/typecheck.tsbuildinfo
scripts/lint/commit-subjects.sh
log "passed in $((SECONDS - started)) s"
