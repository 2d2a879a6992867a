#!/usr/bin/env bash
# Installs what a single-node Kubernetes cluster needs on this machine (see scripts/cluster/up.sh),
# unless it is there already:
#   - from Debian (apt-get): containerd, runc, the CNI plugins (bridge, host-local, loopback),
#     conntrack (kube-proxy), etcd-server, iptables, socat (test.sh's load balancer), gcc and
#     libc6-dev (the static pause binary);
#   - built from the Go module proxy into <cache>/kubernetes-<version>/bin (module and build caches
#     in <cache>/gomod and <cache>/gobuild, like scripts/helm/install-tools.sh): kube-apiserver,
#     kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl and coredns;
#   - the sandbox ("pause") image, built from the pause.c that the kubernetes module carries, as a
#     docker-archive the cluster imports at start (no registry is reachable here).
# k8s.io/kubernetes cannot be built as a module by itself: its go.mod points its 33 staging modules
# (k8s.io/api, k8s.io/client-go, ...) at folders the module zip leaves out. A wrapper module in the
# cache requires it and replaces each of them with the published k8s.io/<name> v0.<minor>.<patch>.
# A cold build took 24 minutes here (2 cores shared with other builds: 16 for the six kubernetes
# binaries, 8 for coredns); afterwards this returns at once.
# Prints `KUBERNETES_DIR=<folder>` on stdout; everything else goes to stderr.
#
# Usage: scripts/cluster/install.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly COREDNS_MODULE=github.com/coredns/coredns
readonly COREDNS_VERSION=v1.15.0
readonly KUBE_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
# podman (to build the sandbox image) comes with scripts/images/install-tools.sh.
readonly APT_PACKAGES=(containerd runc containernetworking-plugins conntrack etcd-server iptables socat gcc libc6-dev)

go_env() {
  env GOMODCACHE="$CACHE_DIR/gomod" GOCACHE="$CACHE_DIR/gobuild" GOFLAGS="-mod=mod -trimpath" CGO_ENABLED=0 "$@"
}

install_packages() {
  local package missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  ((${#missing[@]} == 0)) && return
  log "apt-get install ${missing[*]}"
  # Others may be installing at the same time: wait for dpkg's lock rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The kubernetes module's go.mod; downloads the module itself into the module cache when missing.
kubernetes_go_mod() {
  local dir
  dir=$(cd "$CACHE_DIR" && go_env go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p') || true
  [[ -n $dir && -f $dir ]] || die "go mod download k8s.io/kubernetes@$KUBERNETES_VERSION failed"
  printf '%s\n' "$dir"
}

write_wrapper_module() {
  local wrapper=$1 staging_version=v0.${KUBERNETES_VERSION#v1.} go_mod
  go_mod=$(kubernetes_go_mod)
  mkdir -p "$wrapper"
  {
    printf 'module guidepost.local/kubernetes-build\n\ngo 1.25\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$KUBERNETES_VERSION"
    # Every `k8s.io/<name> => ./staging/...` line of the module's own replace block.
    sed -n 's|^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*$|\1|p' "$go_mod" |
      while read -r module; do printf '\t%s => %s %s\n' "$module" "$module" "$staging_version"; done
    printf ')\n'
  } >"$wrapper/go.mod"
}

kube_ldflags() {
  local minor=${KUBERNETES_VERSION#v1.}
  minor=${minor%%.*}
  local flags="-s -w" pkg
  # kubectl and helm read these; without them the cluster reports v0.0.0 and charts' kubeVersion fails.
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  printf '%s' "$flags"
}

kube_binaries_installed() {
  local command
  for command in "${KUBE_COMMANDS[@]}"; do
    [[ -x $KUBE_BIN/$command ]] || return 1
  done
  [[ $("$KUBE_BIN/kubectl" version --client -o json 2>/dev/null) == *"\"gitVersion\": \"$KUBERNETES_VERSION\""* ]]
}

build_kube_binaries() {
  kube_binaries_installed && return
  local wrapper=$KUBERNETES_DIR/wrapper build_log=$KUBERNETES_DIR/build.log command packages=()
  write_wrapper_module "$wrapper"
  for command in "${KUBE_COMMANDS[@]}"; do packages+=("k8s.io/kubernetes/cmd/$command"); done
  log "building ${KUBE_COMMANDS[*]} $KUBERNETES_VERSION, about 15 minutes on a cold cache (log: $build_log)"
  mkdir -p "$KUBE_BIN.partial"
  (
    cd "$wrapper" &&
      go_env go get "k8s.io/kubernetes@$KUBERNETES_VERSION" "${packages[@]}" &&
      go_env go build -o "$KUBE_BIN.partial/" -ldflags "$(kube_ldflags)" "${packages[@]}"
  ) >>"$build_log" 2>&1 || {
    tail -n 30 "$build_log" >&2
    die "building the kubernetes binaries failed"
  }
  mkdir -p "$KUBE_BIN"
  mv -f "$KUBE_BIN.partial"/* "$KUBE_BIN/"
  rmdir "$KUBE_BIN.partial"
  kube_binaries_installed || die "the build finished but $KUBE_BIN/kubectl is not $KUBERNETES_VERSION"
}

coredns_installed() {
  [[ -x $KUBE_BIN/coredns ]] && go version -m "$KUBE_BIN/coredns" 2>/dev/null |
    grep -qE "^[[:space:]]+mod[[:space:]]+${COREDNS_MODULE}[[:space:]]+${COREDNS_VERSION}[[:space:]]"
}

build_coredns() {
  coredns_installed && return
  local build_log=$KUBERNETES_DIR/coredns-build.log
  log "building coredns $COREDNS_VERSION (log: $build_log)"
  go_env GOBIN="$KUBE_BIN" GOFLAGS=-trimpath go install -ldflags "-s -w" "$COREDNS_MODULE@$COREDNS_VERSION" >>"$build_log" 2>&1 || {
    tail -n 30 "$build_log" >&2
    die "building coredns failed"
  }
}

# The sandbox image: upstream's pause.c, static, alone in an image FROM scratch.
build_pause_image() {
  [[ -f $PAUSE_ARCHIVE ]] && return
  local context=$KUBERNETES_DIR/pause-build
  local source=$CACHE_DIR/gomod/k8s.io/kubernetes@$KUBERNETES_VERSION/build/pause/linux/pause.c
  [[ -f $source ]] || die "pause.c is missing from the kubernetes module ($source)"
  log "building the sandbox image $PAUSE_IMAGE"
  rm -rf "$context"
  mkdir -p "$context"
  gcc -Os -Wall -Werror -static -DVERSION="$KUBERNETES_VERSION" -o "$context/pause" "$source"
  strip "$context/pause"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$context/Containerfile"
  podman_cmd build --quiet --pull=never --tag "$PAUSE_IMAGE" --file "$context/Containerfile" "$context" >&2
  podman_cmd save --quiet --format docker-archive --output "$PAUSE_ARCHIVE.partial" "$PAUSE_IMAGE"
  mv "$PAUSE_ARCHIVE.partial" "$PAUSE_ARCHIVE"
  rm -rf "$context"
}

main() {
  mkdir -p "$KUBERNETES_DIR"
  # Two runs at once would build into the same folders.
  hold_lock "$KUBERNETES_DIR/install.lock"
  command -v go >/dev/null || die "go (1.25 or newer) is not installed"
  build_kube_binaries
  build_coredns
  install_packages
  build_pause_image
  printf 'KUBERNETES_DIR=%s\n' "$KUBERNETES_DIR"
}

main "$@"
