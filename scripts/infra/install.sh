#!/usr/bin/env bash
# Installs what the named test servers need into the cache (${GUIDEPOST_CACHE_DIR:-~/.cache/guidepost})
# without starting them; start.sh runs it first, and CI may run it alone to warm the cache.
#
# Usage: scripts/infra/install.sh [kafka|postgres|clickhouse|minio ...]   (all when none named)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  select_servers "$@"
  # Two runs at once would download into, or build, the same folders.
  hold_lock "$CACHE_DIR/install.lock"
  local name
  for name in "${SELECTED[@]}"; do
    "${name}_install"
  done
  log "installed: ${SELECTED[*]}"
}

main "$@"
