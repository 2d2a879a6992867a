#!/usr/bin/env bash
# Proves the switch GUIDEPOST_TEST_SERVERS=containers on this machine: builds the stand-in images of
# Kafka, PostgreSQL, ClickHouse (the chdb front: no ClickHouse server can be had here) and MinIO
# (scripts/containers/build-test-images.sh), serves podman's Docker-compatible API on a socket of its
# own, and runs the integration specs and a smoke of the end-to-end suite against the distributed
# shape with testcontainers starting those servers; the scripts/infra servers are not used. Stops the
# API service and removes any container of these images left behind when done.
#
# Usage: scripts/containers/test-containers.sh [extra jest arguments for both runs]   (npm run test:containers)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The end-to-end specs of the smoke: events (Kafka to ClickHouse), imports and exports (MinIO too).
readonly SMOKE_SPECS='test/e2e/(events|imports|exports)\.e2e-spec\.ts$'

main() {
  npm run build --silent
  local images
  images=$(scripts/containers/build-test-images.sh)
  set -a
  # shellcheck disable=SC1090 # CONTAINERS_CONF and GUIDEPOST_TEST_IMAGE_* lines
  source <(grep -E '^(CONTAINERS_CONF|GUIDEPOST_TEST_IMAGE_[A-Z]+)=' <<<"$images")
  set +a
  RUN_DIR=$(mktemp -d -t guidepost-test-containers-XXXXXX)
  start_docker_api "$RUN_DIR/podman.sock"
  export DOCKER_HOST=unix://$RUN_DIR/podman.sock
  # Ryuk (testcontainers' reaper) is an image from Docker Hub, which this machine cannot pull; the
  # jest teardown stops the containers, and clean_up below removes what a failed run leaves.
  export TESTCONTAINERS_RYUK_DISABLED=true
  # /.dockerenv exists here, so testcontainers would take this machine for a container and reach the
  # published ports through the podman bridge's gateway; they are published on this host.
  export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
  export GUIDEPOST_TEST_SERVERS=containers
  # Nothing of scripts/infra may leak in: the endpoints must come from the containers.
  unset GUIDEPOST_KAFKA_BROKERS GUIDEPOST_DATABASE_URL GUIDEPOST_CLICKHOUSE_URL GUIDEPOST_S3_ENDPOINT \
    GUIDEPOST_S3_ACCESS_KEY GUIDEPOST_S3_SECRET_KEY
  export GUIDEPOST_INFRA_DIR=$RUN_DIR
  # Two runs, as scripts/test-distributed.sh does: the distributed suite of the end-to-end set-up
  # would otherwise load the broker while the Kafka adapter's specs time its metadata. Each run starts
  # and stops servers of its own.
  echo "== integration specs against servers in containers"
  npx jest --selectProjects integration --runInBand "$@"
  echo "== end-to-end smoke against the distributed shape on servers in containers"
  npx jest --selectProjects e2e-distributed --runInBand --testPathPatterns "$SMOKE_SPECS" "$@"
}

start_docker_api() {
  local socket=$1 attempt
  podman system service --time=0 "unix://$socket" >"$RUN_DIR/podman-service.log" 2>&1 &
  API_PID=$!
  for ((attempt = 0; attempt < 100; attempt++)); do
    [[ -S $socket ]] && return
    kill -0 "$API_PID" 2>/dev/null || break
    sleep 0.1
  done
  cat "$RUN_DIR/podman-service.log" >&2
  echo "podman system service did not open $socket" >&2
  exit 1
}

clean_up() {
  local image leftovers
  for image in "$GUIDEPOST_TEST_IMAGE_KAFKA" "$GUIDEPOST_TEST_IMAGE_POSTGRES" "$GUIDEPOST_TEST_IMAGE_CLICKHOUSE" "$GUIDEPOST_TEST_IMAGE_MINIO"; do
    [[ -n $image ]] || continue
    leftovers=$(podman ps --all --quiet --filter "ancestor=$image")
    # shellcheck disable=SC2086 # one word per container id
    [[ -z $leftovers ]] || podman rm --force --volumes $leftovers >/dev/null
  done
  if [[ -n $API_PID ]]; then
    kill "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
  fi
  [[ -z $RUN_DIR ]] || rm -rf "$RUN_DIR"
}

RUN_DIR='' API_PID='' GUIDEPOST_TEST_IMAGE_KAFKA='' GUIDEPOST_TEST_IMAGE_POSTGRES='' GUIDEPOST_TEST_IMAGE_CLICKHOUSE='' GUIDEPOST_TEST_IMAGE_MINIO=''
trap clean_up EXIT
main "$@"
