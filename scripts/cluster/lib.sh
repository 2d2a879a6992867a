# shellcheck shell=bash disable=SC2034 # its settings are read by the scripts that source it
# Shared by install.sh, up.sh and down.sh (sourced, never run): the pinned versions, where the
# cluster's binaries and its running state live, and small helpers.

CLUSTER_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG_TAG=cluster
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$CLUSTER_SCRIPTS_DIR/../lib/common.sh"
REPO_ROOT=$(cd "$CLUSTER_SCRIPTS_DIR/../.." && pwd)
readonly CLUSTER_SCRIPTS_DIR REPO_ROOT

readonly KUBERNETES_VERSION=v1.37.2
CACHE_DIR=${GUIDEPOST_CACHE_DIR:-$HOME/.cache/guidepost}
readonly CACHE_DIR
# Built once per machine; the version is in the name so that a new pin builds beside the old one.
readonly KUBERNETES_DIR=$CACHE_DIR/kubernetes-$KUBERNETES_VERSION
readonly KUBE_BIN=$KUBERNETES_DIR/bin
readonly PAUSE_IMAGE=localhost/guidepost-pause:$KUBERNETES_VERSION
readonly PAUSE_ARCHIVE=$KUBERNETES_DIR/pause-image.tar
# The running cluster's run folder: certificates, etcd data, containerd's root, kubeconfigs, logs.
RUN_DIR=${GUIDEPOST_CLUSTER_DIR:-$CACHE_DIR/cluster}
readonly RUN_DIR
readonly LOG_DIR=$RUN_DIR/logs PID_DIR=$RUN_DIR/pids STATE_DIR=$RUN_DIR/state PKI_DIR=$RUN_DIR/pki
readonly KUBECONFIG_FILE=$RUN_DIR/kubeconfig
readonly CONTAINERD_SOCKET=$RUN_DIR/containerd/containerd.sock CONTAINERD_STATE=$RUN_DIR/containerd/state
# Where containerd 1.6 puts its shims' sockets and runc's state, whatever its configuration says.
readonly CONTAINERD_RUNTIME_DIR=/run/containerd
# Debian's containernetworking-plugins.
readonly CNI_BIN_DIR=/usr/lib/cni

# The node is this machine, by its host name (which must resolve to loopback).
NODE_NAME=$(hostname)
readonly NODE_NAME
readonly CLUSTER_DOMAIN=cluster.local
# Private ranges of our own, away from podman's 10.88.0.0/16. The bridge's host address is where
# CoreDNS and the cluster run's test servers listen.
readonly BRIDGE=guidepost0 POD_CIDR=10.244.0.0/24 BRIDGE_ADDRESS=10.244.0.1
readonly SERVICE_CIDR=10.96.0.0/24 KUBERNETES_SERVICE_IP=10.96.0.1
# Our rule that keeps forwarding inside the bridge.
readonly FORWARD_CHAIN=GUIDEPOST-CLUSTER-FORWARD
# Every control-plane port is on 127.0.0.1; the unusual ones keep clear of other servers' defaults.
readonly ETCD_PORT=32379 ETCD_PEER_PORT=32380 APISERVER_PORT=36443 COREDNS_READY_PORT=38181
readonly KUBELET_PORT=10250 KUBELET_HEALTHZ_PORT=10248

# Machine settings the cluster changes (the kubelet sets the vm and kernel ones at start, the
# network ones are ours); up.sh records them, down.sh restores them.
readonly CHANGED_SYSCTLS=(
  vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes
  net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.ipv4.conf.all.route_localnet
  net.netfilter.nf_conntrack_max net.netfilter.nf_conntrack_tcp_timeout_established
  net.netfilter.nf_conntrack_tcp_timeout_close_wait
)
# The cluster's daemons, in start order; down.sh stops them in reverse.
readonly DAEMONS=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns)

# podman with the settings scripts/images makes for this machine (its containers.conf).
podman_cmd() {
  local conf
  conf=$("$REPO_ROOT/scripts/images/install-tools.sh" | sed -n 's/^CONTAINERS_CONF=//p')
  [[ -n $conf ]] || die "scripts/images/install-tools.sh printed no CONTAINERS_CONF"
  CONTAINERS_CONF=$conf podman "$@"
}

kubectl_cmd() {
  "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"
}

ctr_cmd() {
  ctr --address "$CONTAINERD_SOCKET" --namespace k8s.io "$@"
}

# Starts NAME's COMMAND in its own session, detached from this script (the cluster outlives up.sh),
# logging to <logs>/NAME.log, with its pid in <pids>/NAME. The lock on descriptor 9 stays here.
start_daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$LOG_DIR/$name.log" 2>&1 9>&- &
  printf '%s\n' "$!" >"$PID_DIR/$name"
}

# The pid of daemon NAME if it is still running (and really is ours: its command line is checked).
daemon_pid() {
  local pid
  pid=$(cat "$PID_DIR/$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == *"$1"* ]] || return 1
  printf '%s' "$pid"
}
