#!/usr/bin/env bash
# Installs the tools the chart's tests use into the cache, ${GUIDEPOST_CACHE_DIR:-~/.cache/guidepost},
# unless they are there already at the pinned versions:
#   - helm, built with `go install` from the Go module proxy into <cache>/bin/helm (module and build
#     caches in <cache>/gomod and <cache>/gobuild, like scripts/infra/servers/minio.sh);
#   - kubernetes-validate from PyPI, with its dependencies pinned in requirements.txt beside this
#     script, into a virtual environment <cache>/kubernetes-validate-<version>-<digest of the pins>;
#   - the CRDs of the operators the chart targets, from their Go modules (the module proxy, into
#     <cache>/gomod): KEDA's ScaledObject and the Prometheus operator's ServiceMonitor and PrometheusRule.
# Prints on stdout `HELM=<path>`, `KUBERNETES_VALIDATE=<path>` and `CRDS=<file> <file>...`;
# everything else goes to stderr. A cold helm build takes a few minutes on 2 cores; afterwards this
# returns at once.
#
# Usage: scripts/helm/install-tools.sh
set -euo pipefail

readonly HELM_MODULE=helm.sh/helm/v3
readonly HELM_VERSION=v3.22.0
readonly KEDA_MODULE=github.com/kedacore/keda/v2@v2.18.1
readonly PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator@v0.85.0
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly REQUIREMENTS=$SCRIPT_DIR/requirements.txt
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}
readonly HELM_BIN=$CACHE_DIR/bin/helm
KUBERNETES_VALIDATE_VERSION=$(sed -n 's/^kubernetes-validate==//p' "$REQUIREMENTS")
readonly KUBERNETES_VALIDATE_VERSION
KV_VENV=$CACHE_DIR/kubernetes-validate-$KUBERNETES_VALIDATE_VERSION-$(sha256sum "$REQUIREMENTS" | cut -c1-12)
readonly KV_VENV

LOG_TAG=helm-tools
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$SCRIPT_DIR/../lib/common.sh"

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
      "$KV_VENV/bin/python" -m pip install --disable-pip-version-check --no-input --no-deps --requirement "$REQUIREMENTS" &&
      "$KV_VENV/bin/python" -m pip check &&
      "$KV_VENV/bin/kubernetes-validate" --version
  } >>"$install_log" 2>&1 || {
    tail -n 30 "$install_log" >&2
    die "installing kubernetes-validate failed"
  }
  touch "$KV_VENV/.complete"
}

# Prints the folder of a Go module, downloading it into the module cache when missing.
module_dir() {
  local dir
  dir=$(cd "$CACHE_DIR" && env GOMODCACHE="$CACHE_DIR/gomod" GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || true
  [[ -n $dir && -d $dir ]] || die "go mod download $1 failed"
  printf '%s\n' "$dir"
}

crd_files() {
  local keda prometheus_operator
  keda=$(module_dir "$KEDA_MODULE")
  prometheus_operator=$(module_dir "$PROMETHEUS_OPERATOR_MODULE")
  printf '%s %s %s\n' "$keda/config/crd/bases/keda.sh_scaledobjects.yaml" \
    "$prometheus_operator/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" \
    "$prometheus_operator/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
}

main() {
  mkdir -p "$CACHE_DIR/bin"
  # Two test runs at once would build into the same folders.
  hold_lock "$CACHE_DIR/helm-tools-install.lock"
  install_helm
  install_kubernetes_validate
  local crds
  crds=$(crd_files)
  exec 9>&-
  printf 'HELM=%s\nKUBERNETES_VALIDATE=%s\nCRDS=%s\n' "$HELM_BIN" "$KV_VENV/bin/kubernetes-validate" "$crds"
}

main "$@"
