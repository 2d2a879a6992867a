#!/usr/bin/env bash
# Tears down the cluster of scripts/cluster/up.sh completely and puts the machine back as up.sh found
# it: pods stopped through the kubelet (so their network is released), then every daemon stopped,
# containerd's leftover shims, mounts and state removed, the pods' network namespaces, the bridge
# and its route deleted, the kube iptables chains and our forwarding rule removed, the kubepods
# cgroups removed and the recorded sysctls restored. Then it checks that nothing is left and fails,
# naming what is, if something is. Safe to run at any point of a failed bring-up, and twice.
# The logs stay in <run folder>/logs; everything else in the run folder goes.
#
# Usage: scripts/cluster/down.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly STOP_GRACE_SECONDS=30

stop_daemon() {
  local name=$1 pid attempt
  pid=$(daemon_pid "$name") || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((attempt = 0; attempt < STOP_GRACE_SECONDS * 10; attempt++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "$name did not stop within ${STOP_GRACE_SECONDS}s: killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

# With the kubelet still running, deleting the pods makes it stop their containers and release their
# network through CNI, the way a node is drained. Controllers and the scheduler go first so that no
# pod is recreated.
drain_pods() {
  daemon_pid kubelet >/dev/null && daemon_pid kube-apiserver >/dev/null || return 0
  stop_daemon kube-controller-manager
  stop_daemon kube-scheduler
  kubectl_cmd delete pods --all --all-namespaces --wait=true --timeout=90s >/dev/null 2>&1 ||
    log "some pods did not stop in time: their containers are removed below"
}

# The shims of containerd's containers run on after containerd itself; they name its socket.
kill_shims() {
  local shim child
  for shim in $(pgrep -f -- "-address $CONTAINERD_SOCKET" || true); do
    for child in $(pgrep -P "$shim" || true); do kill -KILL "$child" 2>/dev/null || true; done
    kill -KILL "$shim" 2>/dev/null || true
  done
}

remove_containers() {
  if daemon_pid containerd >/dev/null; then
    local id
    for id in $(ctr_cmd tasks list -q 2>/dev/null || true); do
      ctr_cmd tasks kill --signal SIGKILL "$id" >/dev/null 2>&1 || true
      ctr_cmd tasks delete --force "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr_cmd containers list -q 2>/dev/null || true); do
      ctr_cmd containers delete "$id" >/dev/null 2>&1 || true
    done
  fi
  stop_daemon containerd
  kill_shims
  # Only the empty folders of a runtime folder that containerd created.
  if [[ -d $CONTAINERD_RUNTIME_DIR && ! -f $STATE_DIR/containerd-runtime-dir-existed ]]; then
    find "$CONTAINERD_RUNTIME_DIR" -depth -type d -empty -delete
  fi
}

# Mounts under the run folder (overlay rootfs, shm, volumes), deepest first.
unmount_all() {
  local mount_point
  awk -v dir="$RUN_DIR/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount_point; do
    umount -l "$mount_point" 2>/dev/null || true
  done
}

# Network namespaces that appeared while the cluster was up (the pods').
remove_network_namespaces() {
  local name
  [[ -f $STATE_DIR/netns-before ]] || return 0
  for name in $(ls /var/run/netns 2>/dev/null || true); do
    grep -qxF "$name" "$STATE_DIR/netns-before" || ip netns delete "$name" 2>/dev/null || true
  done
}

# Prints the KUBE-* chains of TABLE for the iptables binary IPT.
kube_chains() {
  "$1" -w -t "$2" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ { print $2 }'
}

# Deletes RULE (as `iptables -S` prints it: -A CHAIN ...) from TABLE.
delete_rule() {
  local ipt=$1 table=$2 rule=$3
  # shellcheck disable=SC2086 # the rule is iptables' own words, split as it printed them
  "$ipt" -w -t "$table" -D ${rule#-A } 2>/dev/null || true
}

# kube-proxy's own cleanup first, then whatever the kubelet made (KUBE-FIREWALL, the canaries):
# the jumps into the chains, then the chains.
remove_kube_chains() {
  if [[ -x $KUBE_BIN/kube-proxy ]]; then
    "$KUBE_BIN/kube-proxy" --cleanup >>"$LOG_DIR/kube-proxy-cleanup.log" 2>&1 || true
  fi
  local ipt table rule chain rules
  for ipt in iptables ip6tables; do
    for table in filter nat mangle; do
      mapfile -t rules < <("$ipt" -w -t "$table" -S 2>/dev/null | grep -E '^-A [^ ]+ .*-j KUBE-' || true)
      for rule in "${rules[@]}"; do delete_rule "$ipt" "$table" "$rule"; done
      for chain in $(kube_chains "$ipt" "$table"); do "$ipt" -w -t "$table" -F "$chain" 2>/dev/null || true; done
      for chain in $(kube_chains "$ipt" "$table"); do "$ipt" -w -t "$table" -X "$chain" 2>/dev/null || true; done
    done
  done
}

remove_network() {
  remove_network_namespaces
  remove_kube_chains
  if iptables -w -S "$FORWARD_CHAIN" >/dev/null 2>&1; then
    iptables -w -D FORWARD -j "$FORWARD_CHAIN" 2>/dev/null || true
    iptables -w -F "$FORWARD_CHAIN"
    iptables -w -X "$FORWARD_CHAIN"
  fi
  ip route del "$SERVICE_CIDR" 2>/dev/null || true
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  return 0
}

# The kubelet's cgroup tree in every hierarchy, emptied of processes by now, removed leaves first.
remove_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/*/kubepods; do
    [[ -d $dir ]] || continue
    find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

restore_sysctls() {
  [[ -f $STATE_DIR/sysctls ]] || return 0
  local setting
  while IFS= read -r setting; do
    sysctl -qw "$setting" 2>/dev/null || log "could not restore $setting"
  done <"$STATE_DIR/sysctls"
}

# Prints one line per thing the cluster left behind; nothing when the machine is clean.
leftovers() {
  local name expected actual
  for name in "${DAEMONS[@]}"; do
    daemon_pid "$name" >/dev/null && echo "daemon $name is still running"
  done
  pgrep -f -- "-address $CONTAINERD_SOCKET" >/dev/null && echo "containerd shims are still running"
  grep -q " $RUN_DIR/" /proc/mounts && echo "mounts under $RUN_DIR remain"
  ip link show "$BRIDGE" >/dev/null 2>&1 && echo "the bridge $BRIDGE remains"
  ip route show "$SERVICE_CIDR" | grep -q . && echo "the route to $SERVICE_CIDR remains"
  for name in iptables ip6tables; do
    "$name" -w -t filter -S 2>/dev/null | grep -q -- "$FORWARD_CHAIN" && echo "$name: $FORWARD_CHAIN remains"
    for expected in filter nat mangle; do
      [[ -n $(kube_chains "$name" "$expected") ]] && echo "$name -t $expected: KUBE-* chains remain"
    done
  done
  compgen -G '/sys/fs/cgroup/*/kubepods' >/dev/null && echo "kubepods cgroups remain"
  [[ -e $CONTAINERD_RUNTIME_DIR && -f $STATE_DIR/up && ! -f $STATE_DIR/containerd-runtime-dir-existed ]] &&
    echo "$CONTAINERD_RUNTIME_DIR remains"
  if [[ -f $STATE_DIR/netns-before ]]; then
    for name in $(ls /var/run/netns 2>/dev/null || true); do
      grep -qxF "$name" "$STATE_DIR/netns-before" || echo "network namespace $name remains"
    done
  fi
  if [[ -f $STATE_DIR/sysctls ]]; then
    while IFS='=' read -r name expected; do
      actual=$(sysctl -n "$name" 2>/dev/null) || continue
      [[ $actual == "$expected" ]] || echo "sysctl $name is $actual, was $expected"
    done <"$STATE_DIR/sysctls"
  fi
  return 0
}

main() {
  ((EUID == 0)) || die "run as root"
  [[ -d $RUN_DIR ]] || return 0
  hold_lock "$CACHE_DIR/cluster.lock"
  mkdir -p "$LOG_DIR"
  drain_pods
  local name
  for name in coredns kube-proxy kubelet kube-scheduler kube-controller-manager; do stop_daemon "$name"; done
  remove_containers
  unmount_all
  remove_network
  remove_cgroups
  stop_daemon kube-apiserver
  stop_daemon etcd
  restore_sysctls
  local left
  left=$(leftovers)
  [[ -z $left ]] || die "the teardown left things behind:"$'\n'"$left"
  # Everything but the logs; the state folder (what up.sh recorded) last.
  find "$RUN_DIR" -mindepth 1 -maxdepth 1 ! -name logs ! -name state -exec rm -rf {} +
  rm -rf "$STATE_DIR"
  log "cluster torn down; machine settings restored"
}

main "$@"
