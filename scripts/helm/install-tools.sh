#!/usr/bin/env bash
# Installs the tools the chart's tests use into the cache, ${GUIDEPOST_CACHE_DIR:-~/.cache/guidepost},
# unless they are there already at the pinned versions:
#   - helm, built with `go install` from the Go module proxy into <cache>/bin/helm (module and build
#     caches in <cache>/gomod and <cache>/gobuild, like scripts/infra/servers/minio.sh);
#   - kubernetes-validate from PyPI into a virtual environment <cache>/kubernetes-validate-<version>.
# Prints two lines on stdout, `HELM=<path>` and `KUBERNETES_VALIDATE=<path>`; everything else goes
# to stderr. A cold helm build takes a few minutes on 2 cores; afterwards this returns at once.
#
# Usage: scripts/helm/install-tools.sh
set -euo pipefail

readonly HELM_MODULE=helm.sh/helm/v3
readonly HELM_VERSION=v3.22.0
readonly KUBERNETES_VALIDATE_VERSION=1.37.0
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}
readonly HELM_BIN=$CACHE_DIR/bin/helm
readonly KV_VENV=$CACHE_DIR/kubernetes-validate-$KUBERNETES_VALIDATE_VERSION

log() { printf '[helm-tools] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# The binary records the module version it was built from; a different pin means a rebuild.
helm_is_installed() {
  [[ -x $HELM_BIN ]] || return 1
  local build_info
  build_info=$(go version -m "$HELM_BIN" 2>/dev/null) || return 1
  grep -qE "^[[:space:]]+mod[[:space:]]+${HELM_MODULE}[[:space:]]+${HELM_VERSION}[[:space:]]" <<<"$build_info"
}

install_helm() {
  command -v go >/dev/null || die "helm: go (1.24 or newer) is not installed"
  helm_is_installed && return
  local build_log=$CACHE_DIR/helm-build.log
  log "building helm $HELM_VERSION with go install, minutes on a cold cache (log: $build_log)"
  # helm reports its version from these variables; without them `helm version` says v3.x-dev.
  env GOBIN="$CACHE_DIR/bin" GOMODCACHE="$CACHE_DIR/gomod" GOCACHE="$CACHE_DIR/gobuild" CGO_ENABLED=0 GOFLAGS=-trimpath \
    go install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
    "$HELM_MODULE/cmd/helm@$HELM_VERSION" >>"$build_log" 2>&1 || {
    tail -n 30 "$build_log" >&2
    die "building helm failed"
  }
  helm_is_installed || die "helm: the build finished but $HELM_BIN is not $HELM_VERSION"
}

install_kubernetes_validate() {
  [[ -f $KV_VENV/.complete ]] && return
  local python install_log=$CACHE_DIR/kubernetes-validate-install.log
  python=$(command -v "${GUIDEPOST_PYTHON:-python3}") || die "no python3 found (set GUIDEPOST_PYTHON)"
  log "installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION into $KV_VENV (log: $install_log)"
  # Built in place; only the marker written last makes it count, so an interrupted install is redone.
  rm -rf "$KV_VENV"
  {
    "$python" -m venv "$KV_VENV" &&
      "$KV_VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
        "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" &&
      "$KV_VENV/bin/kubernetes-validate" --version
  } >>"$install_log" 2>&1 || {
    tail -n 30 "$install_log" >&2
    die "installing kubernetes-validate failed"
  }
  touch "$KV_VENV/.complete"
}

main() {
  mkdir -p "$CACHE_DIR/bin"
  # Two test runs at once would build into the same folders.
  exec 9>"$CACHE_DIR/helm-tools-install.lock"
  flock 9
  install_helm
  install_kubernetes_validate
  exec 9>&-
  printf 'HELM=%s\nKUBERNETES_VALIDATE=%s\n' "$HELM_BIN" "$KV_VENV/bin/kubernetes-validate"
}

main "$@"
