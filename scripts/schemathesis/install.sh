#!/usr/bin/env bash
# Installs schemathesis (the schema-driven fuzzer of test/e2e/schemathesis.e2e-spec.ts) into a virtual
# environment in the cache, ${GUIDEPOST_CACHE_DIR:-~/.cache/guidepost}/schemathesis-<version>-<digest>,
# from the pinned list beside this script (every package at its exact version, --no-deps, so two
# machines get the same set), unless that environment is already complete. Prints the path of its
# `st` command on stdout; everything else goes to stderr.
#
# Needs Python 3.11 or newer (schemathesis 4 does): the first of $GUIDEPOST_PYTHON, python3.13,
# python3.12, python3.11 and python3 that is recent enough, with its venv module. Packages come from
# PyPI through pip (its usual index settings apply).
#
# Usage: scripts/schemathesis/install.sh
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REQUIREMENTS=$SCRIPT_DIR/requirements.txt
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}

LOG_TAG=schemathesis
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$SCRIPT_DIR/../lib/common.sh"

# Prints the first Python interpreter that is 3.11 or newer and has venv.
find_python() {
  local candidate
  for candidate in ${GUIDEPOST_PYTHON:-} python3.13 python3.12 python3.11 python3; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; then
      command -v "$candidate"
      return
    fi
  done
  return 1
}

main() {
  [[ -f $REQUIREMENTS ]] || die "$REQUIREMENTS is missing"
  local version digest venv
  version=$(sed -n 's/^schemathesis==//p' "$REQUIREMENTS")
  [[ -n $version ]] || die "$REQUIREMENTS pins no schemathesis version"
  # The list's digest names the environment: any change to a pin installs a new one beside the old.
  digest=$(sha256sum "$REQUIREMENTS" | cut -c1-12)
  venv=$CACHE_DIR/schemathesis-$version-$digest

  if [[ ! -f $venv/.complete ]]; then
    mkdir -p "$CACHE_DIR"
    # Two test runs at once would install into the same folder.
    hold_lock "$CACHE_DIR/schemathesis-install.lock"
    if [[ ! -f $venv/.complete ]]; then
      install_into "$venv" "$version"
    fi
    exec 9>&-
  fi
  printf '%s\n' "$venv/bin/st"
}

install_into() {
  local venv=$1 version=$2 python install_log
  python=$(find_python) || die "no Python 3.11 or newer with the venv module was found (set GUIDEPOST_PYTHON to one)"
  install_log=$CACHE_DIR/schemathesis-install.log
  log "installing schemathesis $version with $python into $venv (log: $install_log)"
  # Built in place (a virtual environment records its path in its scripts); only the marker written
  # last makes it count, so an interrupted install is thrown away and made again.
  rm -rf "$venv"
  {
    "$python" -m venv "$venv" &&
      "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --no-deps --requirement "$REQUIREMENTS" &&
      "$venv/bin/python" -m pip check &&
      "$venv/bin/st" --version
  } >>"$install_log" 2>&1 || {
    log "last lines of $install_log:"
    tail -n 30 "$install_log" >&2
    die "installing schemathesis failed"
  }
  touch "$venv/.complete"
}

main "$@"
