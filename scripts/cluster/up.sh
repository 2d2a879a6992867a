#!/usr/bin/env bash
# Brings up a single-node Kubernetes cluster on this machine, everything on loopback or on a bridge of
# its own, and leaves it running for the caller (tear it down with scripts/cluster/down.sh):
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler (127.0.0.1), containerd, kubelet,
#   kube-proxy (iptables mode), CoreDNS (on the bridge's host address; it answers for the cluster's
#   names only, nothing is forwarded), pods on a CNI bridge with host-local addresses.
# Nothing leaves the machine: pods get no default route (only the pod and service ranges), nothing is
# masqueraded, and the forwarding the services need is limited to the bridge by a rule of our own.
# The machine settings it changes (sysctls, iptables, routes, cgroups, mounts) are recorded in the run
# folder first; down.sh puts them back. A failed bring-up tears down what it started.
# Writes <run folder>/kubeconfig (cluster-admin) and <run folder>/cluster.env (KUBECONFIG, the
# bridge's host address, the ranges). The run folder is ${GUIDEPOST_CLUSTER_DIR:-<cache>/cluster}.
#
# Usage: scripts/cluster/up.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly READY_TIMEOUT_SECONDS=180

# Waits until COMMAND succeeds, for at most READY_TIMEOUT_SECONDS; WHAT names it in the error.
await() {
  local what=$1 deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what: not ready after ${READY_TIMEOUT_SECONDS}s (logs: $LOG_DIR)"
    sleep 1
  done
  log "$what: ready"
}

preflight() {
  ((EUID == 0)) || die "run as root: the cluster sets up network namespaces, iptables and cgroups"
  [[ ! -f $RUN_DIR/state/up ]] || die "a cluster is already up in $RUN_DIR: scripts/cluster/down.sh first"
  local address
  address=$(getent ahostsv4 "$NODE_NAME" | awk 'NR == 1 { print $1 }')
  # The API server reaches the kubelet by the node's host name, which must therefore be loopback.
  [[ $address == 127.* ]] || die "the host name $NODE_NAME must resolve to a loopback address (it is '$address')"
}

# Records what down.sh must put back, before anything changes.
record_machine_state() {
  mkdir -p "$STATE_DIR"
  local name
  for name in "${CHANGED_SYSCTLS[@]}"; do
    [[ -e /proc/sys/${name//.//} ]] && printf '%s=%s\n' "$name" "$(sysctl -n "$name")"
  done >"$STATE_DIR/sysctls"
  ls /var/run/netns 2>/dev/null >"$STATE_DIR/netns-before" || true
  # containerd keeps its shims' sockets and runc's state there, whatever its configured state folder.
  [[ -e $CONTAINERD_RUNTIME_DIR ]] && touch "$STATE_DIR/containerd-runtime-dir-existed"
  touch "$STATE_DIR/up"
}

make_certificates() {
  local pki=$PKI_DIR
  mkdir -p "$pki"
  (
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=guidepost-test-cluster-ca" \
      -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
    issue_certificate apiserver "/CN=kube-apiserver" \
      "subjectAltName=IP:127.0.0.1,IP:$KUBERNETES_SERVICE_IP,IP:$BRIDGE_ADDRESS,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$CLUSTER_DOMAIN"
    # The API server's identity towards the kubelet (logs, exec, port-forward).
    issue_certificate apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" ""
    openssl genrsa -out "$pki/service-accounts.key" 2048 2>/dev/null
    openssl rsa -in "$pki/service-accounts.key" -pubout -out "$pki/service-accounts.pub" 2>/dev/null
  )
}

# Writes <pki>/NAME.crt and .key, signed by the cluster's CA, for SUBJECT with the extension EXTENSION.
issue_certificate() {
  local name=$1 subject=$2 extension=$3 pki=$PKI_DIR
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
    -out "$pki/$name.crt" ${extension:+-extfile <(printf '%s\n' "$extension")} 2>/dev/null
  rm -f "$pki/$name.csr"
}

# Each component gets a static bearer token naming its user (and groups); RBAC's built-in bindings
# give the system users their rights, coredns gets its own (manifests/coredns-rbac.yaml).
make_tokens() {
  (umask 077 && : >"$PKI_DIR/tokens.csv")
  add_token admin admin system:masters
  add_token controller-manager system:kube-controller-manager ""
  add_token scheduler system:kube-scheduler ""
  add_token kube-proxy system:kube-proxy ""
  add_token kubelet "system:node:$NODE_NAME" system:nodes
  add_token coredns guidepost:coredns ""
  cp "$RUN_DIR/admin.kubeconfig" "$KUBECONFIG_FILE"
}

# Adds a token for USER in GROUPS and writes <run folder>/NAME.kubeconfig with it.
add_token() {
  local name=$1 user=$2 groups=$3 token
  token=$(openssl rand -hex 24)
  printf '%s,%s,%s,"%s"\n' "$token" "$user" "$name" "$groups" >>"$PKI_DIR/tokens.csv"
  write_kubeconfig "$RUN_DIR/$name.kubeconfig" "$token"
}

write_kubeconfig() {
  local file=$1 token=$2
  (umask 077 && cat >"$file") <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: guidepost-test
    cluster: { server: "https://127.0.0.1:$APISERVER_PORT", certificate-authority: "$PKI_DIR/ca.crt" }
users:
  - name: user
    user: { token: "$token" }
contexts:
  - name: guidepost-test
    context: { cluster: guidepost-test, user: user, namespace: default }
current-context: guidepost-test
EOF
}

# The bridge exists before any pod so that CoreDNS and the test servers can listen on its address;
# the CNI bridge plugin adopts it. The host reaches services through a route into it.
make_network() {
  ip link add "$BRIDGE" type bridge
  ip addr add "$BRIDGE_ADDRESS/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  ip route add "$SERVICE_CIDR" dev "$BRIDGE" src "$BRIDGE_ADDRESS"
  # Services are routed through the host (pod -> service IP -> other pod) so forwarding must be on;
  # only between the bridge's own ports, never to or from another interface.
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  iptables -w -N "$FORWARD_CHAIN"
  iptables -w -A "$FORWARD_CHAIN" -i "$BRIDGE" ! -o "$BRIDGE" -j DROP
  iptables -w -A "$FORWARD_CHAIN" -o "$BRIDGE" ! -i "$BRIDGE" -j DROP
  iptables -w -I FORWARD 1 -j "$FORWARD_CHAIN"
  mkdir -p "$RUN_DIR/cni/net.d"
  cat >"$RUN_DIR/cni/net.d/10-guidepost.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "guidepost-test",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$RUN_DIR/cni/ipam",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$BRIDGE_ADDRESS" }]],
        "routes": [{ "dst": "$SERVICE_CIDR" }]
      }
    }
  ]
}
EOF
}

start_containerd() {
  mkdir -p "$RUN_DIR/containerd"
  cat >"$RUN_DIR/containerd/config.toml" <<EOF
version = 2
root = "$RUN_DIR/containerd/root"
state = "$CONTAINERD_STATE"
[grpc]
  address = "$CONTAINERD_SOCKET"
[ttrpc]
  address = "$CONTAINERD_SOCKET.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$RUN_DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Without CAP_SYS_RESOURCE a sandbox cannot lower its OOM score adjustment below the parent's.
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN_DIR"
    conf_dir = "$RUN_DIR/cni/net.d"
EOF
  start_daemon containerd containerd --config "$RUN_DIR/containerd/config.toml"
  await containerd ctr_cmd version
  ctr_cmd images import --no-unpack=false "$PAUSE_ARCHIVE" >/dev/null
}

start_control_plane() {
  mkdir -p "$RUN_DIR/etcd"
  start_daemon etcd etcd --name guidepost-test --data-dir "$RUN_DIR/etcd/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "guidepost-test=http://127.0.0.1:$ETCD_PEER_PORT" --log-level warn
  await etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  # The endpoint reconciler would publish the loopback advertise address as the kubernetes
  # Service's endpoint, which the API refuses: with it off, that Service has no endpoints (pods of
  # this chart do not call the API).
  start_daemon kube-apiserver "$KUBE_BIN/kube-apiserver" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --endpoint-reconciler-type=none --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --tls-cert-file="$PKI_DIR/apiserver.crt" --tls-private-key-file="$PKI_DIR/apiserver.key" \
    --client-ca-file="$PKI_DIR/ca.crt" --token-auth-file="$PKI_DIR/tokens.csv" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-account-issuer="https://kubernetes.default.svc.$CLUSTER_DOMAIN" \
    --service-account-key-file="$PKI_DIR/service-accounts.pub" \
    --service-account-signing-key-file="$PKI_DIR/service-accounts.key" \
    --kubelet-client-certificate="$PKI_DIR/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$PKI_DIR/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=Hostname,InternalIP
  await kube-apiserver kubectl_cmd get --raw /readyz
  start_daemon kube-controller-manager "$KUBE_BIN/kube-controller-manager" \
    --kubeconfig="$RUN_DIR/controller-manager.kubeconfig" --bind-address=127.0.0.1 --secure-port=0 \
    --leader-elect=false --use-service-account-credentials=true \
    --root-ca-file="$PKI_DIR/ca.crt" --service-account-private-key-file="$PKI_DIR/service-accounts.key"
  start_daemon kube-scheduler "$KUBE_BIN/kube-scheduler" \
    --kubeconfig="$RUN_DIR/scheduler.kubeconfig" --bind-address=127.0.0.1 --secure-port=0 --leader-elect=false
  kubectl_cmd apply -f "$CLUSTER_SCRIPTS_DIR/manifests/coredns-rbac.yaml" >/dev/null
}

start_node() {
  mkdir -p "$RUN_DIR/kubelet" "$RUN_DIR/pod-logs"
  cat >"$RUN_DIR/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
readOnlyPort: 0
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: false }
  x509: { clientCAFile: "$PKI_DIR/ca.crt" }
# Only holders of a certificate from the cluster's CA get in at all (the API server).
authorization: { mode: AlwaysAllow }
containerRuntimeEndpoint: "unix://$CONTAINERD_SOCKET"
# This machine has cgroups v1 and no systemd.
failCgroupV1: false
cgroupDriver: cgroupfs
# Without CAP_SYS_RESOURCE the kubelet may not lower its own OOM score.
oomScoreAdj: 0
clusterDNS: ["$BRIDGE_ADDRESS"]
clusterDomain: $CLUSTER_DOMAIN
# Pods learn no resolver of the host's: cluster names only.
resolvConf: ""
podLogsDir: "$RUN_DIR/pod-logs"
failSwapOn: false
# A shared test machine: never evict or collect images because the disk is fuller than a real node's.
evictionHard: { memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%" }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
  start_daemon kubelet "$KUBE_BIN/kubelet" --config="$RUN_DIR/kubelet/config.yaml" \
    --kubeconfig="$RUN_DIR/kubelet.kubeconfig" --hostname-override="$NODE_NAME" \
    --root-dir="$RUN_DIR/kubelet/root" --cert-dir="$RUN_DIR/kubelet/pki"
  cat >"$RUN_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: { kubeconfig: "$RUN_DIR/kube-proxy.kubeconfig" }
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
healthzBindAddress: ""
metricsBindAddress: ""
# Leave the machine's conntrack settings and route_localnet alone.
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
iptables: { localhostNodePorts: false }
EOF
  start_daemon kube-proxy "$KUBE_BIN/kube-proxy" --config="$RUN_DIR/kube-proxy.yaml"
  await "node $NODE_NAME" kubectl_cmd wait --for=condition=Ready "node/$NODE_NAME" --timeout=2s
}

start_coredns() {
  cat >"$RUN_DIR/Corefile" <<EOF
.:53 {
    bind $BRIDGE_ADDRESS
    errors
    ready 127.0.0.1:$COREDNS_READY_PORT
    kubernetes $CLUSTER_DOMAIN in-addr.arpa ip6.arpa {
        kubeconfig $RUN_DIR/coredns.kubeconfig guidepost-test
        pods insecure
    }
    cache 5
}
EOF
  start_daemon coredns "$KUBE_BIN/coredns" -conf "$RUN_DIR/Corefile"
  await coredns curl -sf "http://127.0.0.1:$COREDNS_READY_PORT/ready"
}

write_env_file() {
  cat >"$RUN_DIR/cluster.env" <<EOF
# Written by scripts/cluster/up.sh. Use: source $RUN_DIR/cluster.env
export KUBECONFIG=$KUBECONFIG_FILE
export GUIDEPOST_CLUSTER_BRIDGE_ADDRESS=$BRIDGE_ADDRESS
export GUIDEPOST_CLUSTER_POD_CIDR=$POD_CIDR
export GUIDEPOST_CLUSTER_SERVICE_CIDR=$SERVICE_CIDR
export GUIDEPOST_CLUSTER_CONTAINERD_SOCKET=$CONTAINERD_SOCKET
EOF
}

on_exit() {
  local status=$?
  ((status == 0)) && return
  log "bring-up failed: tearing down what was started"
  # down.sh takes the same lock.
  exec 9>&-
  "$CLUSTER_SCRIPTS_DIR/down.sh" || true
  exit "$status"
}

main() {
  "$CLUSTER_SCRIPTS_DIR/install.sh" >/dev/null
  hold_lock "$CACHE_DIR/cluster.lock"
  preflight
  local started=$SECONDS
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$PID_DIR"
  record_machine_state
  trap on_exit EXIT
  make_certificates
  make_tokens
  make_network
  start_containerd
  start_control_plane
  start_node
  start_coredns
  write_env_file
  log "cluster up in $((SECONDS - started))s: KUBECONFIG=$KUBECONFIG_FILE (source $RUN_DIR/cluster.env)"
}

main "$@"
