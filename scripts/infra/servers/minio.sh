# shellcheck shell=bash disable=SC2034 # SERVER_ENV and SERVER_COMMAND are read by start.sh
# MinIO, the S3 server, built from source with `go install`: its community edition ships no binaries
# any more, only source. Sourced by lib.sh; see there for the functions every server defines.
#
# Version: the last release tag (v0.0.0-20251015172955-9e49d5e7a648) is no longer served by the Go
# module proxy (403), so this pins what the proxy answers for @latest: the newest commit of the
# no longer maintained repository, 7aac2a2c5b7c of 2026-02-12. A cold build takes minutes and a few GiB of memory;
# the module and build caches live in the cache folder so that it happens once per machine.

readonly MINIO_MODULE=github.com/minio/minio
readonly MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
readonly MINIO_BIN=$CACHE_DIR/bin/minio

minio_install() {
  minio_is_installed && return
  command -v go >/dev/null || die "minio: go (1.24 or newer) is not installed"
  local build_log=$CACHE_DIR/minio-build.log
  log "minio: building $MINIO_MODULE@$MINIO_VERSION, minutes on a cold cache (log: $build_log)"
  mkdir -p "$CACHE_DIR"
  # kqueue: the build tag MinIO's release builds use; without cgo the binary is self-contained.
  run_logged "$build_log" "minio: go install $MINIO_MODULE@$MINIO_VERSION" \
    env GOBIN="$CACHE_DIR/bin" GOMODCACHE="$CACHE_DIR/gomod" GOCACHE="$CACHE_DIR/gobuild" CGO_ENABLED=0 GOFLAGS=-trimpath \
    go install -tags kqueue "$MINIO_MODULE@$MINIO_VERSION"
  minio_is_installed || die "minio: the build finished but $MINIO_BIN is not $MINIO_VERSION"
}

# The binary records the module version it was built from; a different pin means a rebuild.
minio_is_installed() {
  [[ -x $MINIO_BIN ]] || return 1
  command -v go >/dev/null || return 0
  local build_info
  # Read it whole before matching: grep -q in a pipe would stop reading early and fail the pipe.
  build_info=$(go version -m "$MINIO_BIN") || return 1
  grep -qE "^[[:space:]]+mod[[:space:]]+${MINIO_MODULE}[[:space:]]+${MINIO_VERSION}[[:space:]]" <<<"$build_info"
}

minio_prepare() {
  mkdir -p "$(state_dir minio)/data"
}

minio_command() {
  SERVER_ENV=(
    "MINIO_ROOT_USER=$S3_ACCESS_KEY" "MINIO_ROOT_PASSWORD=$S3_SECRET_KEY"
    MINIO_BROWSER=off MINIO_UPDATE=off
  )
  SERVER_COMMAND=(
    "$MINIO_BIN" server --quiet --address "$BIND_HOST:$MINIO_PORT" --console-address "$BIND_HOST:$MINIO_CONSOLE_PORT"
    "$(state_dir minio)/data"
  )
}

minio_ready() { http_ok "$(minio_url)/minio/health/live"; }
minio_url() { printf 'http://%s:%s' "$BIND_HOST" "$MINIO_PORT"; }
minio_ports() { echo "$MINIO_PORT" "$MINIO_CONSOLE_PORT"; }
minio_stop_signal() { echo TERM; }
minio_extra_logs() { :; }
