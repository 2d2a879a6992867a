#!/usr/bin/env bash
# The Helm chart's tests (helm/guidepost), part of `npm test` through `npm run test:chart`:
#   1. `helm lint --strict` over the default values, the production example and a matrix of options;
#   2. each of those renderings (`helm template`) validated with `kubernetes-validate --strict`
#      against the oldest Kubernetes the chart claims (Chart.yaml's kubeVersion) and the newest one
#      kubernetes-validate knows; the custom resources (ScaledObject, ServiceMonitor, PrometheusRule), which
#      kubernetes-validate does not know, against their operators' CRDs (validate-custom-resources.py);
#   3. the render specs (test/helm/*.helm-spec.ts, jest), which check what a reviewer would by hand.
# helm and kubernetes-validate are installed into the cache when missing (scripts/helm/install-tools.sh).
# Nothing is skipped: a missing tool is installed or the run fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

readonly CHART=helm/guidepost
readonly NEWEST_KUBERNETES=1.37.0

tools=$(scripts/helm/install-tools.sh)
HELM=$(sed -n 's/^HELM=//p' <<<"$tools")
KUBERNETES_VALIDATE=$(sed -n 's/^KUBERNETES_VALIDATE=//p' <<<"$tools")
read -r -a crds <<<"$(sed -n 's/^CRDS=//p' <<<"$tools")"
PYTHON=$(dirname "$KUBERNETES_VALIDATE")/python
export GUIDEPOST_HELM=$HELM GUIDEPOST_KUBERNETES_VALIDATE=$KUBERNETES_VALIDATE

# ">=1.30.0-0" in Chart.yaml: the oldest version the chart claims.
oldest=$(sed -n 's/^kubeVersion: *"*>= *\([0-9][0-9.]*\).*/\1/p' "$CHART/Chart.yaml")
[[ $oldest =~ ^1\.[0-9]+\.[0-9]+$ ]] || { echo "Chart.yaml: kubeVersion \">=1.x.y-0\" expected" >&2; exit 1; }
versions=("$oldest" "$NEWEST_KUBERNETES")

# name|helm arguments (values and --set): the default values, the production example, each option.
matrix=(
  "default|"
  "production|-f $CHART/values-production.yaml"
  "monitoring-on|--set monitoring.serviceMonitor.enabled=true --set monitoring.prometheusRule.enabled=true --set monitoring.dashboards.enabled=true"
  "monitoring-labelled|--set monitoring.prometheusRule.enabled=true --set monitoring.prometheusRule.labels.release=kube-prometheus-stack --set monitoring.prometheusRule.runbookBaseUrl=https://git.example.com/guidepost/blob/v0.1.0/ --set monitoring.dashboards.enabled=true --set monitoring.dashboards.annotations.grafana_folder=Guidepost"
  "keda-on|--set keda.enabled=true"
  "keda-off-no-autoscaling|--set keda.enabled=false --set roles.ingestion.autoscaling.enabled=false --set roles.gateway.autoscaling.enabled=false"
  "existing-secret|--set secrets.existingSecret=guidepost-secrets"
  "ingress-on|--set ingress.enabled=true --set ingress.className=nginx --set ingress.tls[0].secretName=tls --set ingress.tls[0].hosts[0]=guidepost.example.com"
  "admin-ingress-on|--set adminIngress.enabled=true --set adminIngress.className=internal --set adminIngress.tls[0].secretName=admin-tls --set adminIngress.tls[0].hosts[0]=guidepost-admin.example.com --set service.type=LoadBalancer"
  "network-policy-off|--set networkPolicy.enabled=false"
  "everything-on|--set monitoring.serviceMonitor.enabled=true --set monitoring.prometheusRule.enabled=true --set monitoring.dashboards.enabled=true --set keda.enabled=true --set keda.authenticationRef=kafka-auth --set secrets.existingSecret=guidepost-secrets --set ingress.enabled=true --set adminIngress.enabled=true --set config.kafkaNamespace=prod"
)

rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
failures=0
for entry in "${matrix[@]}"; do
  name=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  if ! lint_output=$("$HELM" lint --strict "$CHART" "${args[@]}" 2>&1); then
    echo "FAIL lint     $name"
    echo "$lint_output" | sed 's/^/    /'
    failures=$((failures + 1))
    continue
  fi
  for version in "${versions[@]}"; do
    if ! "$HELM" template guidepost "$CHART" --namespace guidepost --kube-version "$version" "${args[@]}" >"$rendered/$name.yaml" 2>"$rendered/$name.err"; then
      echo "FAIL template $name (Kubernetes $version)"
      sed 's/^/    /' "$rendered/$name.err"
      failures=$((failures + 1))
      continue
    fi
    if ! validation=$("$KUBERNETES_VALIDATE" --strict --kubernetes-version "$version" "$rendered/$name.yaml" 2>&1) ||
      ! validation=$("$PYTHON" scripts/helm/validate-custom-resources.py "$rendered/$name.yaml" "${crds[@]}" 2>&1); then
      echo "FAIL validate $name (Kubernetes $version)"
      echo "$validation" | sed 's/^/    /'
      failures=$((failures + 1))
      continue
    fi
    echo "ok   $name: lint --strict, template, kubernetes-validate --strict (Kubernetes $version), $(grep -c '^kind:' "$rendered/$name.yaml") objects, ${validation##*$'\n'}"
  done
done
((failures == 0)) || { echo "$failures chart check(s) failed" >&2; exit 1; }

npx jest --config test/helm/jest.config.js --runInBand
