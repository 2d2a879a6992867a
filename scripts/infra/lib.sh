# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034 # its settings are read by the scripts that source it
# Shared by install.sh, start.sh and stop.sh (sourced, never run): where things live, the ports and
# credentials of the test servers, and the helpers that pick, probe and report on them.
#
# Every server has a file in servers/ that defines, for its NAME:
#   NAME_install        install what is missing into the cache (idempotent, cheap when warm)
#   NAME_prepare        create or update its state folder and configuration before a start
#   NAME_command        fill SERVER_ENV (VAR=value words) and SERVER_COMMAND (the foreground process)
#   NAME_ready          succeed once the server answers like a client needs it to
#   NAME_ports          print the loopback ports it listens on
#   NAME_stop_signal    print the signal that shuts it down cleanly
#   NAME_extra_logs     print log files it writes besides its stdout (shown when it fails)
# A server keeps all its state under $INFRA_DIR/NAME/; that path is also on its command line, which is
# how a pid file is told apart from a recycled pid.

INFRA_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=infra
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$INFRA_SCRIPTS_DIR/../lib/common.sh"
REPO_ROOT=$(cd "$INFRA_SCRIPTS_DIR/../.." && pwd)
readonly INFRA_SCRIPTS_DIR REPO_ROOT

# Downloads and builds (shared by every run on this machine) and the running servers' state. The
# second default is spelled out rather than derived from the first: it is part of the contract that
# integration specs rely on.
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}
INFRA_DIR=${GUIDEPOST_INFRA_DIR:-$HOME/.cache/guidepost/run}
ENV_FILE=$INFRA_DIR/infra.env
readonly CACHE_DIR INFRA_DIR ENV_FILE

readonly ALL_SERVERS=(kafka postgres clickhouse minio)

# Prints the integer in environment variable NAME (DEFAULT when unset), which must lie in MIN..MAX.
integer_setting() {
  local name=$1 default=$2 min=$3 max=$4 value
  value=${!name:-$default}
  if ! [[ $value =~ ^[1-9][0-9]{0,8}$ ]] || ((value < min || value > max)); then
    die "$name must be a whole number from $min to $max, not '$value'"
  fi
  printf '%s' "$value"
}

KAFKA_PORT=$(integer_setting GUIDEPOST_INFRA_KAFKA_PORT 19092 1 65535)
KAFKA_CONTROLLER_PORT=$(integer_setting GUIDEPOST_INFRA_KAFKA_CONTROLLER_PORT 19093 1 65535)
POSTGRES_PORT=$(integer_setting GUIDEPOST_INFRA_POSTGRES_PORT 15432 1 65535)
CLICKHOUSE_PORT=$(integer_setting GUIDEPOST_INFRA_CLICKHOUSE_PORT 18123 1 65535)
MINIO_PORT=$(integer_setting GUIDEPOST_INFRA_MINIO_PORT 19000 1 65535)
MINIO_CONSOLE_PORT=$(integer_setting GUIDEPOST_INFRA_MINIO_CONSOLE_PORT 19001 1 65535)
readonly KAFKA_PORT KAFKA_CONTROLLER_PORT POSTGRES_PORT CLICKHOUSE_PORT MINIO_PORT MINIO_CONSOLE_PORT

# The IPv4 address the servers listen on and hand to clients (Kafka advertises it): loopback unless
# GUIDEPOST_INFRA_BIND_HOST says otherwise. scripts/cluster starts a second set (its own
# GUIDEPOST_INFRA_DIR and ports) on its pod bridge's host address, which pods can reach.
BIND_HOST=${GUIDEPOST_INFRA_BIND_HOST:-127.0.0.1}
[[ $BIND_HOST =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "GUIDEPOST_INFRA_BIND_HOST must be an IPv4 address, not '$BIND_HOST'"
readonly BIND_HOST

# Fixed credentials: these servers listen on loopback only and hold test data.
readonly POSTGRES_USER=guidepost POSTGRES_PASSWORD=guidepost POSTGRES_DATABASE=guidepost
readonly S3_ACCESS_KEY=guidepost S3_SECRET_KEY=guidepost-secret

START_TIMEOUT_SECONDS=$(integer_setting GUIDEPOST_INFRA_START_TIMEOUT_SECONDS 120 1 3600)
STOP_GRACE_SECONDS=$(integer_setting GUIDEPOST_INFRA_STOP_GRACE_SECONDS 30 1 3600)
readonly START_TIMEOUT_SECONDS STOP_GRACE_SECONDS

# shellcheck source=servers/kafka.sh
source "$INFRA_SCRIPTS_DIR/servers/kafka.sh"
# shellcheck source=servers/postgres.sh
source "$INFRA_SCRIPTS_DIR/servers/postgres.sh"
# shellcheck source=servers/clickhouse.sh
source "$INFRA_SCRIPTS_DIR/servers/clickhouse.sh"
# shellcheck source=servers/minio.sh
source "$INFRA_SCRIPTS_DIR/servers/minio.sh"

# Sets SELECTED to the servers named in the arguments (all of them when none), rejecting unknown names.
select_servers() {
  if (($# == 0)); then
    SELECTED=("${ALL_SERVERS[@]}")
    return
  fi
  SELECTED=()
  local name
  for name in "$@"; do
    [[ " ${ALL_SERVERS[*]} " == *" $name "* ]] || die "unknown server '$name' (expected one of: ${ALL_SERVERS[*]})"
    SELECTED+=("$name")
  done
}

state_dir() { printf '%s/%s' "$INFRA_DIR" "$1"; }
pid_file() { printf '%s/%s.pid' "$INFRA_DIR" "$1"; }
log_file() { printf '%s/%s.log' "$INFRA_DIR" "$1"; }

# Prints the pid of the server when its pid file names a live process that is that server.
running_pid() {
  local name=$1 pid command_line
  pid=$(cat "$(pid_file "$name")" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  # The pid may have been recycled since the server died: its command line must name its state folder.
  command_line=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  [[ $command_line == *"$(state_dir "$name")/"* ]] || return 1
  printf '%s' "$pid"
}

port_in_use() {
  (: </dev/tcp/"$BIND_HOST"/"$1") 2>/dev/null
}

http_ok() {
  curl --silent --fail --output /dev/null --max-time 2 "$1"
}

# Runs COMMAND with its output appended to LOG (installers and one-off tools are chatty); when it fails,
# shows the end of LOG and stops, saying that WHAT failed.
run_logged() {
  local log=$1 what=$2
  shift 2
  "$@" >>"$log" 2>&1 && return
  log "last lines of $log:"
  tail -n 40 "$log" >&2
  die "$what failed"
}

# Prints the end of every log the server writes, so a failure explains itself.
show_logs() {
  local name=$1 file
  for file in "$(log_file "$name")" $("${name}_extra_logs"); do
    [[ -s $file ]] || continue
    log "last lines of $file:"
    tail -n 40 "$file" >&2
  done
}

# hold_lock (scripts/lib/common.sh) keeps two runs from both installing or both starting the same
# server; servers started afterwards must not inherit its fd 9.
