#!/usr/bin/env bash
# Makes sure Prometheus and promtool (Debian's `prometheus` package, 2.42 on bookworm) are installed,
# installing the package when they are not, and prints `PROMETHEUS=<path>` and `PROMTOOL=<path>`.
# The package is installed without starting its service (no init system runs here; where one does,
# policy-rc.d decides): the tests start their own Prometheus on loopback with their own settings.
# Usage: scripts/observability/install-prometheus.sh
set -euo pipefail

log() { printf '[prometheus] %s\n' "$*" >&2; }

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  command -v apt-get >/dev/null || { log "error: prometheus and promtool are missing and apt-get is not available: install Prometheus 2.42 or newer"; exit 1; }
  log "installing the Debian prometheus package (promtool included)"
  # Another engineer's apt may hold the lock: wait for it rather than fail.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends prometheus >&2
fi
echo "PROMETHEUS=$(command -v prometheus)"
echo "PROMTOOL=$(command -v promtool)"
