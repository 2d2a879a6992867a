#!/usr/bin/env bash
# `npm run build` (and `scripts/build.sh bench/tsconfig.json` for the benchmark): the TypeScript build
# into dist/, incremental (tsc keeps a .tsbuildinfo, so a build with nothing changed only checks), then
# tsc-alias turns the @guidepost/* imports into relative paths.
#
# Under an exclusive lock on dist/.build.lock: several builds at once (one per terminal, or a test's
# set-up beside a developer's build) run one after the other instead of writing the same files, and a
# process starting from dist/ holds the same lock shared until it is ready (tools/suite
# build-lock.ts), so it never loads a half-written build, nor one whose imports tsc-alias has not yet
# rewritten.
set -euo pipefail
LOG_TAG=build
# shellcheck source=scripts/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$(dirname "$0")/.."

project="${1:-tsconfig.build.json}"
hold_lock dist/.build.lock
node_modules/.bin/tsc -p "$project"
node_modules/.bin/tsc-alias -p "$project"
