#!/usr/bin/env bash
# Installs Chromium from the Debian archive (apt-get, never a browser download from a CDN) unless a
# working one is already there, for the headless browser test of the API reference
# (test/docs/api-reference.docs-spec.ts). Prints the path of the binary on stdout; everything else goes
# to stderr. $GUIDEPOST_CHROMIUM names another binary to use instead (it is checked, not installed).
#
# Installing needs root (or sudo) and apt-get; on other systems install Chromium by hand and set
# GUIDEPOST_CHROMIUM.
#
# Usage: scripts/browser/install-chromium.sh
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}

LOG_TAG=chromium
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$SCRIPT_DIR/../lib/common.sh"

# Prints the first Chromium binary that starts, from $GUIDEPOST_CHROMIUM or the usual names.
find_chromium() {
  local candidate path
  for candidate in ${GUIDEPOST_CHROMIUM:-chromium chromium-browser}; do
    path=$(command -v "$candidate" 2>/dev/null) || continue
    "$path" --headless --no-sandbox --version >/dev/null 2>&1 || continue
    printf '%s\n' "$path"
    return
  done
  return 1
}

# Runs a command as root: directly when already root, else through sudo without a password prompt.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo --non-interactive "$@"
  else
    die "installing Chromium needs root or sudo; install the Debian package chromium by hand or set GUIDEPOST_CHROMIUM"
  fi
}

install_chromium() {
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install Chromium by hand and set GUIDEPOST_CHROMIUM"
  local install_log=$CACHE_DIR/chromium-install.log
  log "installing the Debian package chromium with apt-get (log: $install_log)"
  {
    as_root apt-get -o DPkg::Lock::Timeout=600 update &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install --yes --no-install-recommends chromium
  } >>"$install_log" 2>&1 || {
    log "last lines of $install_log:"
    tail -n 30 "$install_log" >&2
    die "installing Chromium failed"
  }
}

main() {
  find_chromium && return
  [[ -z ${GUIDEPOST_CHROMIUM:-} ]] || die "GUIDEPOST_CHROMIUM=$GUIDEPOST_CHROMIUM does not start"
  mkdir -p "$CACHE_DIR"
  # Two test runs at once would both run apt-get; the second waits, then finds the first's install.
  hold_lock "$CACHE_DIR/chromium-install.lock"
  find_chromium && return
  install_chromium
  find_chromium || die "Chromium was installed but does not start (see $CACHE_DIR/chromium-install.log)"
}

main "$@"
