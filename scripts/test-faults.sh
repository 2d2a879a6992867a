#!/usr/bin/env bash
# The distributed shape's fault specs (npm run test:faults): each of Kafka, PostgreSQL, ClickHouse and
# MinIO stopped and frozen under load, `kill -9` of every process and crashes mid-import, on a set of
# servers of scripts/infra of their own (its own folder and ports, started here, stopped when done):
# the specs stop and freeze its servers, which would fail any suite beside them on the shared set
# (npm test runs this stage beside the other distributed tests).
#
# Usage: scripts/test-faults.sh [extra jest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# The set's folder, and ports other than the shared set's (19xxx and 15432) and the cluster test's (3xxxx).
export GUIDEPOST_INFRA_DIR=${GUIDEPOST_FAULTS_INFRA_DIR:-$HOME/.cache/guidepost/run-faults}
export GUIDEPOST_INFRA_KAFKA_PORT=29092 GUIDEPOST_INFRA_KAFKA_CONTROLLER_PORT=29093 \
  GUIDEPOST_INFRA_POSTGRES_PORT=25432 GUIDEPOST_INFRA_CLICKHOUSE_PORT=28123 \
  GUIDEPOST_INFRA_MINIO_PORT=29000 GUIDEPOST_INFRA_MINIO_CONSOLE_PORT=29001

npm run build --silent
scripts/infra/start.sh
trap scripts/infra/stop.sh EXIT
set -a
# shellcheck source=/dev/null
source "$GUIDEPOST_INFRA_DIR/infra.env"
set +a

npx jest --selectProjects faults --runInBand "$@"
