#!/usr/bin/env bash
# Proves the Helm chart on a real single-node Kubernetes cluster (npm run test:cluster):
#   1. builds what is missing (the cluster's binaries, Guidepost's service image, helm and the CRDs);
#   2. brings the cluster up (scripts/cluster/up.sh) and, for its pods, a set of test servers of its
#      own (scripts/infra with GUIDEPOST_INFRA_DIR in the run folder, other ports, bound to the pod
#      bridge's host address): the shared servers on loopback are not touched;
#   3. imports the image into containerd (no registry here), twice tagged: the install's tag and the
#      upgrade's; applies KEDA's and the Prometheus operator's CRDs;
#   4. `helm install --wait` with test/cluster/values.yaml: every pod Ready, the migration hook Job
#      completed and deleted by its policy;
#   5. the end-to-end suite through the gateway Service (its ClusterIP, routed from the host into the
#      bridge; the links in answers lead to a socat "load balancer" in front of it) and the admin API
#      through the gateway's admin Service, then test/cluster/*.cluster-spec.ts: the public Service
#      and the load balancer answer neither the admin API nor /metrics, the admin Service both;
#      `helm upgrade` to the other tag under a tracking load, no failed request, every acknowledged
#      event stored;
#   6. `helm uninstall --wait`: nothing of the release left in its namespace;
#   7. the test servers stopped and the cluster torn down; down.sh fails if anything is left. The
#      logs of every pod the specs ran beside, deleted ones included, stay in $LOG_DIR/pods.
# Step 7 runs whatever happens (trap). Needs root. A warm run takes several minutes.
#
# Usage: scripts/cluster/test.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly RELEASE=guidepost NAMESPACE=guidepost
readonly CHART=$REPO_ROOT/helm/guidepost VALUES=$REPO_ROOT/test/cluster/values.yaml
readonly INSTALL_TIMEOUT=15m
# The release's public address (config.publicUrl, the base of the links in its answers) must be
# known before the install, unlike the gateway Service's ClusterIP: a forwarder on the bridge's host
# address into that Service stands for the load balancer in front of a real cluster. The specs call
# the ClusterIP itself and follow the links through the forwarder.
readonly LOAD_BALANCER_PORT=38080

# The cluster run's own test servers: on the bridge, on ports clear of the shared set's.
cluster_infra() {
  env GUIDEPOST_INFRA_DIR="$RUN_DIR/infra" GUIDEPOST_INFRA_BIND_HOST="$BRIDGE_ADDRESS" \
    GUIDEPOST_INFRA_KAFKA_PORT=39092 GUIDEPOST_INFRA_KAFKA_CONTROLLER_PORT=39093 \
    GUIDEPOST_INFRA_POSTGRES_PORT=35432 GUIDEPOST_INFRA_CLICKHOUSE_PORT=38123 \
    GUIDEPOST_INFRA_MINIO_PORT=39000 GUIDEPOST_INFRA_MINIO_CONSOLE_PORT=39001 "$@"
}

# Prints the value of KEY from the KEY=value lines in TEXT.
setting() {
  sed -n "s/^$1=//p" <<<"$2" | tail -n 1
}

teardown() {
  local status=$?
  trap - EXIT
  log "tearing down"
  [[ -n ${LOAD_BALANCER_PID:-} ]] && kill "$LOAD_BALANCER_PID" 2>/dev/null
  [[ -n ${POD_LOG_KEEPER_PID:-} ]] && { kill "$POD_LOG_KEEPER_PID" 2>/dev/null; keep_pod_logs; }
  [[ -d $RUN_DIR/infra ]] && { cluster_infra "$REPO_ROOT/scripts/infra/stop.sh" || status=1; }
  "$CLUSTER_SCRIPTS_DIR/down.sh" || status=1
  if ((status == 0)); then log "passed in $((SECONDS - START))s"; else log "FAILED (logs: $LOG_DIR)"; fi
  exit "$status"
}

# Saves the service image from podman and imports it into the cluster's containerd under both tags.
import_image() {
  local image=$1 upgrade_image=$2 conf=$3
  log "importing $image into containerd"
  CONTAINERS_CONF=$conf podman save --format docker-archive "$image" | ctr_cmd images import - >/dev/null
  ctr_cmd images tag --force "$image" "$upgrade_image" >/dev/null
}

apply_crds() {
  local crd
  for crd in "$@"; do kubectl_cmd apply --server-side -f "$crd" >/dev/null; done
  kubectl_cmd wait --for=condition=Established crd --all --timeout=60s >/dev/null
}

# The install's secrets and endpoints: the cluster run's test servers, a ClickHouse database made here.
install_release() {
  local tag=$1 admin_token=$2
  curl -sf --data-binary 'CREATE DATABASE IF NOT EXISTS guidepost' "$GUIDEPOST_CLICKHOUSE_URL/" >/dev/null
  kubectl_cmd create namespace "$NAMESPACE" >/dev/null
  log "helm install (waits for every pod to be Ready)"
  local started=$SECONDS
  "$HELM" install "$RELEASE" "$CHART" --namespace "$NAMESPACE" --values "$VALUES" --wait --timeout "$INSTALL_TIMEOUT" \
    --set-string "image.tag=$tag" \
    --set-string "config.kafkaBrokers=$GUIDEPOST_KAFKA_BROKERS" \
    --set-string "config.s3Endpoint=$GUIDEPOST_S3_ENDPOINT" \
    --set-string "config.publicUrl=$(public_url)" \
    --set-string "secrets.adminToken=$admin_token" \
    --set-string "secrets.databaseUrl=$GUIDEPOST_DATABASE_URL" \
    --set-string "secrets.clickhouseUrl=$GUIDEPOST_CLICKHOUSE_URL/guidepost" \
    --set-string "secrets.s3AccessKey=$GUIDEPOST_S3_ACCESS_KEY" \
    --set-string "secrets.s3SecretKey=$GUIDEPOST_S3_SECRET_KEY" >/dev/null || {
    kubectl_cmd get pods,jobs --namespace "$NAMESPACE" -o wide >&2 || true
    die "helm install failed"
  }
  log "helm install: done in $((SECONDS - started))s"
}

# Every pod Ready, and the migration Job ran to completion and was then deleted (hook-succeeded).
check_installed() {
  kubectl_cmd wait --namespace "$NAMESPACE" --for=condition=Ready pods --all --timeout=60s >/dev/null ||
    die "not every pod of the release is Ready"
  local job=$RELEASE-migrations
  kubectl_cmd get events --namespace "$NAMESPACE" --field-selector "involvedObject.kind=Job,involvedObject.name=$job,reason=Completed" \
    -o name | grep -q . || die "no Completed event of the migration Job $job"
  [[ -z $(kubectl_cmd get job "$job" --namespace "$NAMESPACE" --ignore-not-found -o name) ]] ||
    die "the migration Job $job is still there after it succeeded (its hook-delete-policy says hook-succeeded)"
  log "every pod Ready; the migration Job completed and was deleted"
}

public_url() {
  printf 'http://%s:%s' "$BRIDGE_ADDRESS" "$LOAD_BALANCER_PORT"
}

# The gateway Service's address: its ClusterIP, routed from the host into the bridge, where
# kube-proxy picks a gateway pod for each connection.
gateway_address() {
  kubectl_cmd get service "$RELEASE-gateway" --namespace "$NAMESPACE" -o jsonpath='{.spec.clusterIP}:{.spec.ports[0].port}'
}

# The gateway's admin Service (the admin API and the gateway's /metrics), in the cluster only.
gateway_admin_address() {
  kubectl_cmd get service "$RELEASE-gateway-admin" --namespace "$NAMESPACE" -o jsonpath='{.spec.clusterIP}:{.spec.ports[0].port}'
}

# Forwards every connection to the public address to the gateway Service.
start_load_balancer() {
  socat "TCP-LISTEN:$LOAD_BALANCER_PORT,bind=$BRIDGE_ADDRESS,fork,reuseaddr" "TCP:$(gateway_address)" 2>>"$LOG_DIR/load-balancer.log" &
  LOAD_BALANCER_PID=$!
  local attempt
  for ((attempt = 0; attempt < 50; attempt++)); do
    curl -sf "$(public_url)/health/ready" >/dev/null && return
    sleep 0.2
  done
  die "the gateway does not answer at $(public_url)/health/ready"
}

# The kubelet deletes a pod's log with the pod, and a rolling update deletes the old pods: the specs'
# pod logs are copied into $LOG_DIR/pods every 2 s and at teardown, so that a failure can be read in
# the log of the pod that answered it, old or new.
keep_pod_logs() {
  mkdir -p "$LOG_DIR/pods"
  cp -r --update "$RUN_DIR/pod-logs/." "$LOG_DIR/pods/" 2>/dev/null || true
}

start_pod_log_keeper() {
  rm -rf "$LOG_DIR/pods"
  while sleep 2; do keep_pod_logs; done &
  POD_LOG_KEEPER_PID=$!
}

run_specs() {
  local project=$1
  log "jest: $project"
  (cd "$REPO_ROOT" && npx jest --config test/cluster/jest.config.js --selectProjects "$project" --runInBand)
}

# After `helm uninstall`, the namespace holds only what Kubernetes itself puts in every namespace
# (once the pods, which their Deployments' deletion stops, have run their graceful stop).
check_uninstalled() {
  kubectl_cmd wait --namespace "$NAMESPACE" --for=delete pods --all --timeout=120s >/dev/null ||
    die "pods of the release still there 120s after helm uninstall"
  local resources leftovers
  resources=$(kubectl_cmd api-resources --namespaced --verbs=list -o name | grep -vxE 'events|events.events.k8s.io' | paste -sd, -)
  leftovers=$(kubectl_cmd get "$resources" --namespace "$NAMESPACE" --ignore-not-found -o name |
    grep -vxE 'configmap/kube-root-ca.crt|serviceaccount/default' || true)
  [[ -z $leftovers ]] || die "helm uninstall left behind:"$'\n'"$leftovers"
  log "helm uninstall: nothing of the release is left"
}

main() {
  START=$SECONDS
  "$CLUSTER_SCRIPTS_DIR/install.sh" >/dev/null
  local images helm_tools
  images=$("$REPO_ROOT/scripts/images/build.sh")
  helm_tools=$("$REPO_ROOT/scripts/helm/install-tools.sh")
  HELM=$(setting HELM "$helm_tools")
  local image tag conf
  image=$(setting SERVICE_IMAGE "$images")
  conf=$(setting CONTAINERS_CONF "$images")
  tag=${image##*:}

  trap teardown EXIT
  "$CLUSTER_SCRIPTS_DIR/up.sh"
  # shellcheck source=/dev/null # written by up.sh
  source "$RUN_DIR/cluster.env"
  cluster_infra "$REPO_ROOT/scripts/infra/start.sh"
  set -a
  # shellcheck source=/dev/null # written by scripts/infra/start.sh
  source "$RUN_DIR/infra/infra.env"
  set +a

  import_image "$image" "${image%:*}:$tag-upgrade" "$conf"
  # shellcheck disable=SC2046 # the CRD files, one word each
  apply_crds $(setting CRDS "$helm_tools")
  local admin_token
  admin_token=$(openssl rand -hex 24)
  install_release "$tag" "$admin_token"
  check_installed

  start_load_balancer
  start_pod_log_keeper
  export GUIDEPOST_E2E_BASE_URL GUIDEPOST_E2E_ADMIN_URL GUIDEPOST_E2E_ADMIN_TOKEN=$admin_token
  GUIDEPOST_E2E_BASE_URL=http://$(gateway_address)
  GUIDEPOST_E2E_ADMIN_URL=http://$(gateway_admin_address)
  export GUIDEPOST_CLUSTER_HELM=$HELM GUIDEPOST_CLUSTER_KUBECTL=$KUBE_BIN/kubectl \
    GUIDEPOST_CLUSTER_RELEASE=$RELEASE GUIDEPOST_CLUSTER_NAMESPACE=$NAMESPACE GUIDEPOST_CLUSTER_CHART=$CHART \
    GUIDEPOST_CLUSTER_UPGRADE_TAG=$tag-upgrade GUIDEPOST_CLUSTER_CLICKHOUSE_URL=$GUIDEPOST_CLICKHOUSE_URL/guidepost \
    GUIDEPOST_CLUSTER_LOAD_BALANCER_URL=$(public_url)
  run_specs e2e-cluster
  run_specs cluster

  "$HELM" uninstall "$RELEASE" --namespace "$NAMESPACE" --wait --timeout 5m >/dev/null
  check_uninstalled
}

main "$@"
