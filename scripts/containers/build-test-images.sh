#!/usr/bin/env bash
# Builds, with podman, the images that stand in for the official images of Kafka, PostgreSQL,
# ClickHouse and MinIO when the test servers run in containers (GUIDEPOST_TEST_SERVERS=containers) on
# a machine that cannot pull from a registry. They are made from what scripts/infra installs into the
# cache (the Kafka jars, the embedded-postgres server binaries, the MinIO binary, the chdb HTTP front)
# on local base images: the Node base of scripts/images/install-tools.sh, and for Kafka a Debian
# minbase with a Java 17 runtime (mmdebstrap). The ClickHouse one is NOT a ClickHouse server (none can
# be had here): it is the chdb front; with registry access the switch runs clickhouse/clickhouse-server.
# An image is rebuilt only when its inputs change (a label keeps their digest); a warm run takes seconds.
#
# Prints on stdout the variables that point the switch at these images and podman at its settings:
#   CONTAINERS_CONF=<file>
#   GUIDEPOST_TEST_IMAGE_KAFKA=<image>   (and _POSTGRES, _CLICKHOUSE, _MINIO)
# everything else goes to stderr.
#
# Usage: scripts/containers/build-test-images.sh   (after npm ci and npm run build)
set -euo pipefail

CONTAINERS_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly CONTAINERS_SCRIPTS_DIR
# Where the servers' binaries are and how they are installed (KAFKA_HOME, POSTGRES_BIN, MINIO_BIN, ...).
# shellcheck source-path=SCRIPTDIR source=../infra/lib.sh
source "$CONTAINERS_SCRIPTS_DIR/../infra/lib.sh"

readonly DEBIAN_SUITE=bookworm
readonly DEBIAN_MIRROR=http://deb.debian.org/debian
readonly JAVA_BASE_IMAGE=localhost/guidepost-test-java-base:17-$DEBIAN_SUITE
readonly IMAGES_DIR=$CONTAINERS_SCRIPTS_DIR/images
readonly WORK_DIR=$CACHE_DIR/test-images
readonly BUILD_LOG=$WORK_DIR/build.log
readonly INPUTS_LABEL=guidepost.test-image.inputs

LOG_TAG=test-images

main() {
  local tools
  tools=$("$REPO_ROOT/scripts/images/install-tools.sh")
  export CONTAINERS_CONF
  CONTAINERS_CONF=$(sed -n 's/^CONTAINERS_CONF=//p' <<<"$tools")
  NODE_BASE_IMAGE=$(sed -n 's/^BASE_IMAGE=//p' <<<"$tools")
  readonly NODE_BASE_IMAGE
  mkdir -p "$WORK_DIR"
  hold_lock "$WORK_DIR/lock"
  "$INFRA_SCRIPTS_DIR/install.sh" kafka postgres clickhouse minio
  build_java_base_image
  local kafka postgres clickhouse minio
  kafka=$(build_image kafka "localhost/guidepost-test-kafka:$KAFKA_VERSION" "$JAVA_BASE_IMAGE" stage_kafka "$KAFKA_HOME/lib")
  postgres=$(build_image postgres "localhost/guidepost-test-postgres:$(postgres_version)" "$NODE_BASE_IMAGE" stage_postgres "$POSTGRES_BIN/..")
  clickhouse=$(build_image clickhouse-front "localhost/guidepost-test-clickhouse-front:chdb-$(chdb_version)" "$NODE_BASE_IMAGE" \
    stage_clickhouse_front "$(dirname "$CLICKHOUSE_MAIN")" "$REPO_ROOT/node_modules/chdb" "$REPO_ROOT/node_modules/@chdb")
  minio=$(build_image minio "localhost/guidepost-test-minio:${MINIO_VERSION#v0.0.0-}" "$NODE_BASE_IMAGE" stage_minio "$MINIO_BIN")
  printf '%s=%s\n' CONTAINERS_CONF "$CONTAINERS_CONF" GUIDEPOST_TEST_IMAGE_KAFKA "$kafka" GUIDEPOST_TEST_IMAGE_POSTGRES "$postgres" \
    GUIDEPOST_TEST_IMAGE_CLICKHOUSE "$clickhouse" GUIDEPOST_TEST_IMAGE_MINIO "$minio"
}

# Debian minbase with Java 17's runtime from the Debian mirror (about a minute, once).
build_java_base_image() {
  podman image exists "$JAVA_BASE_IMAGE" && return
  log "making $JAVA_BASE_IMAGE (Debian $DEBIAN_SUITE minbase + openjdk-17-jre-headless), about a minute"
  rm -f "$WORK_DIR/java-rootfs.tar"
  run_logged "$BUILD_LOG" mmdebstrap \
    mmdebstrap --variant=minbase --include=openjdk-17-jre-headless "$DEBIAN_SUITE" "$WORK_DIR/java-rootfs.tar" "$DEBIAN_MIRROR"
  run_logged "$BUILD_LOG" "podman import" podman import "$WORK_DIR/java-rootfs.tar" "$JAVA_BASE_IMAGE"
  rm -f "$WORK_DIR/java-rootfs.tar"
}

# Builds images/NAME as TAG on BASE unless TAG was built from the same inputs; STAGE fills the build
# context with the INPUT paths' contents. Prints TAG.
build_image() {
  local name=$1 tag=$2 base=$3 stage=$4
  shift 4
  local inputs built_from context
  inputs=$(inputs_digest "$name" "$base" "$@")
  built_from=$(podman image inspect --format "{{ index .Labels \"$INPUTS_LABEL\" }}" "$tag" 2>/dev/null || true)
  if [[ $built_from == "$inputs" ]]; then
    log "$tag: up to date"
    printf '%s' "$tag"
    return
  fi
  log "$tag: building (log: $BUILD_LOG)"
  context=$WORK_DIR/context/$name
  rm -rf "$context"
  mkdir -p "$context"
  cp -a "$IMAGES_DIR/$name/." "$context/"
  "$stage" "$context"
  run_logged "$BUILD_LOG" "podman build $tag" \
    podman build --pull=never --network=none --build-arg "BASE_IMAGE=$base" --label "$INPUTS_LABEL=$inputs" \
    --tag "$tag" --file "$context/Containerfile" "$context"
  rm -rf "$context"
  printf '%s' "$tag"
}

# What an image is made of: its folder here, its base image and the names, sizes and times of its inputs.
inputs_digest() {
  local name=$1 base=$2
  shift 2
  {
    find "$IMAGES_DIR/$name" -type f -exec sha256sum {} + | sort
    podman image inspect --format '{{.Id}}' "$base"
    find -L "$@" -type f -printf '%p %s %T@\n' | sort
  } | sha256sum | cut -c1-16
}

stage_kafka() { cp -a "$KAFKA_HOME/lib" "$1/libs"; }

# The server binaries with the shared libraries they ship (symlinks made by the package's install script).
stage_postgres() { cp -a "$POSTGRES_BIN/.." "$1/native"; }

stage_minio() { cp -a "$MINIO_BIN" "$1/minio"; }

# The front's compiled code and the chdb package with its engine for this platform.
stage_clickhouse_front() {
  local app=$1/app
  mkdir -p "$app/dist/libs/platform/chdb-server" "$app/node_modules/@chdb"
  cp -a "$(dirname "$CLICKHOUSE_MAIN")" "$app/dist/libs/platform/chdb-server/src"
  cp -a "$REPO_ROOT/node_modules/chdb" "$app/node_modules/chdb"
  cp -a "$REPO_ROOT/node_modules/@chdb/lib-linux-x64-gnu" "$app/node_modules/@chdb/"
}

postgres_version() { "$POSTGRES_BIN/postgres" --version | sed -n 's/.* \([0-9][0-9.]*\).*/\1/p'; }

chdb_version() { node -p 'require(process.argv[1]).version' "$REPO_ROOT/node_modules/chdb/package.json"; }

main "$@"
