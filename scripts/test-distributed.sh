#!/usr/bin/env bash
# The distributed shape's tests, on real servers: starts Kafka, PostgreSQL, ClickHouse (the chdb HTTP
# front) and MinIO (installing them into the cache on first use), then runs the adapters' integration
# specs, the whole end-to-end suite against the gateway of the distributed suite, and the specs of
# scaling, replicas, dead letters and shutdown. The servers keep running afterwards
# (scripts/infra/stop.sh stops them). The specs that stop and freeze servers run on a set of their
# own: scripts/test-faults.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run build --silent
scripts/infra/start.sh
set -a
# shellcheck source=/dev/null
source "${GUIDEPOST_INFRA_DIR:-$HOME/.cache/guidepost/run}/infra.env"
set +a

echo "== integration specs (adapters against the real servers)"
npx jest --selectProjects integration --runInBand
echo "== end-to-end suite against the distributed shape"
npx jest --selectProjects e2e-distributed --runInBand
echo "== scaling, replicas, dead letters and shutdown"
npx jest --selectProjects distributed --runInBand
