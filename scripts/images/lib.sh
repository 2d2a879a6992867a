# shellcheck shell=bash disable=SC2034 # its settings are read by the scripts that source it
# Shared by the scripts of scripts/images (sourced, never run): where things are, messages, and the
# KEY=value lines the scripts print for each other.

IMAGES_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$IMAGES_SCRIPTS_DIR/../.." && pwd)
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}
readonly IMAGES_SCRIPTS_DIR REPO_ROOT CACHE_DIR

LOG_TAG=images
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$IMAGES_SCRIPTS_DIR/../lib/common.sh"

# Prints the value of KEY from the KEY=value lines in TEXT.
setting() {
  local key=$1 text=$2
  sed -n "s/^$key=//p" <<<"$text" | tail -n 1
}

package_version() {
  node -p 'require(process.argv[1]).version' "$REPO_ROOT/package.json"
}
