#!/usr/bin/env bash
# The dashboards' proof (`npm run test:dashboards`): builds, starts the real servers of scripts/infra
# (installed into the cache on first use; they keep running afterwards, as for the distributed tests)
# and installs Prometheus when missing, then runs test/dashboards/*.prom-spec.ts: a real Prometheus
# on loopback scrapes every process of a distributed suite under load, and every panel's query and
# every alert's expression of the chart (helm/guidepost/dashboards, helm/guidepost/alerts) is run
# through its HTTP API. The spec starts and stops its own suite and Prometheus.
# Usage: scripts/observability/test-dashboards.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

tools=$(scripts/observability/install-prometheus.sh)
GUIDEPOST_PROMETHEUS=$(sed -n 's/^PROMETHEUS=//p' <<<"$tools")
export GUIDEPOST_PROMETHEUS

npm run build --silent
scripts/infra/start.sh
set -a
# shellcheck source=/dev/null
source "${GUIDEPOST_INFRA_DIR:-$HOME/.cache/guidepost/run}/infra.env"
set +a

npx jest --config test/dashboards/jest.config.js --runInBand
