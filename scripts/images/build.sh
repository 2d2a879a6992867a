#!/usr/bin/env bash
# Builds Guidepost's two images from deploy/Dockerfile with podman, on the local base image that
# install-tools.sh makes (this machine reaches no image registry):
#   localhost/guidepost-service:<tag>      the five roles of the distributed shape (target `service`)
#   localhost/guidepost-standalone:<tag>   the one-process shape (target `standalone`)
# The tag defaults to package.json's version. The labels carry that version and the git commit. Both
# images come from one snapshot of the tree (the build context, without what .dockerignore leaves
# out), so edits made meanwhile cannot split them. On a warm cache only the layers after a changed
# file are rebuilt (the npm install is kept while the package files are unchanged; the TypeScript
# build reruns on any source change).
# Prints on stdout, for the scripts that read it:
#   CONTAINERS_CONF=<file>          (podman must be run with it on this machine)
#   SERVICE_IMAGE=<reference>
#   STANDALONE_IMAGE=<reference>
#   SERVICE_IMAGE_BYTES=<size>      and STANDALONE_IMAGE_BYTES=<size> (uncompressed, as podman counts)
# Progress goes to stderr; the build's own output to <cache>/images-build.log.
#
# Usage: scripts/images/build.sh [--tag TAG]
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
readonly SERVICE_REPOSITORY=localhost/guidepost-service
readonly STANDALONE_REPOSITORY=localhost/guidepost-standalone
readonly BUILD_LOG=$CACHE_DIR/images-build.log

# The commit the images are built from; a tree with uncommitted changes says so.
revision() {
  local commit
  commit=$(git -C "$REPO_ROOT" rev-parse HEAD 2>/dev/null) || {
    printf 'unknown'
    return
  }
  git -C "$REPO_ROOT" diff --quiet HEAD -- apps libs tools package.json package-lock.json deploy 2>/dev/null || commit+=-modified
  printf '%s' "$commit"
}

source_url() {
  git -C "$REPO_ROOT" remote get-url origin 2>/dev/null || printf 'unknown'
}

# The CA bundle this machine's Node trusts for the registry.
ca_bundle() {
  local bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  [[ -f $bundle ]] || die "no CA bundle at $bundle (set NODE_EXTRA_CA_CERTS to the one npm needs)"
  printf '%s' "$bundle"
}

# Copies the build context into DIR.
snapshot_context() {
  local dir=$1
  tar -C "$REPO_ROOT" --exclude-from=<(grep -v '^#' "$REPO_ROOT/.dockerignore" | sed '/^$/d') -cf - . | tar -C "$dir" -xf -
}

build_target() {
  local context=$1 target=$2 image=$3 base=$4 version=$5 revision=$6
  log "building $image (target $target; log: $BUILD_LOG)"
  # --network host: the npm install in the build stage reaches the registry as the host does, trusting
  # the same authorities (NODE_EXTRA_CA_CERTS or the system bundle), passed as a secret, not a layer.
  podman build --pull=never --network host --layers --secret "id=npm_ca,src=$(ca_bundle)" \
    --file "$context/deploy/Dockerfile" --target "$target" --tag "$image" \
    --build-arg "BASE_IMAGE=$base" --build-arg "VERSION=$version" \
    --build-arg "REVISION=$revision" --build-arg "SOURCE=$(source_url)" \
    "$context" >>"$BUILD_LOG" 2>&1 || {
    tail -n 40 "$BUILD_LOG" >&2
    die "building $image failed"
  }
}

image_bytes() {
  podman image inspect --format '{{.Size}}' "$1"
}

main() {
  local tag=''
  while (($# > 0)); do
    case $1 in
      --tag)
        (($# >= 2)) || die '--tag needs a value'
        tag=$2
        shift 2
        ;;
      *) die "unknown argument '$1' (usage: scripts/images/build.sh [--tag TAG])" ;;
    esac
  done
  local tools version
  tools=$("$IMAGES_SCRIPTS_DIR/install-tools.sh")
  export CONTAINERS_CONF
  CONTAINERS_CONF=$(setting CONTAINERS_CONF "$tools")
  version=$(package_version)
  tag=${tag:-$version}
  [[ $tag =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || die "'$tag' is not a valid image tag"

  # The images and cluster tests may build at once (npm test runs them in different lanes): one
  # build at a time, the second then reusing the first one's layers.
  hold_lock "$CACHE_DIR/images-build.lock"
  local base service=$SERVICE_REPOSITORY:$tag standalone=$STANDALONE_REPOSITORY:$tag started=$SECONDS commit
  base=$(setting BASE_IMAGE "$tools")
  CONTEXT_DIR=$(mktemp -d "${TMPDIR:-/tmp}/guidepost-image-context.XXXXXX")
  trap 'rm -rf "$CONTEXT_DIR"' EXIT
  commit=$(revision)
  snapshot_context "$CONTEXT_DIR"
  : >"$BUILD_LOG"
  build_target "$CONTEXT_DIR" service "$service" "$base" "$version" "$commit"
  build_target "$CONTEXT_DIR" standalone "$standalone" "$base" "$version" "$commit"
  log "built both images in $((SECONDS - started)) s"
  printf 'CONTAINERS_CONF=%s\nSERVICE_IMAGE=%s\nSTANDALONE_IMAGE=%s\nSERVICE_IMAGE_BYTES=%s\nSTANDALONE_IMAGE_BYTES=%s\n' \
    "$CONTAINERS_CONF" "$service" "$standalone" "$(image_bytes "$service")" "$(image_bytes "$standalone")"
}

main "$@"
