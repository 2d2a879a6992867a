{{/* The chart's name, shortened for label values. */}}
{{- define "guidepost.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; every object is <fullname>-<role> or <fullname>-<what>. */}}
{{- define "guidepost.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "guidepost.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The roles in the order their migrations run, and the entry point (dist/apps/<entry>) of each. */}}
{{- define "guidepost.roleOrder" -}}
gateway content segment profile ingestion
{{- end }}
{{- define "guidepost.entrypoint" -}}
{{- get (dict "gateway" "gateway" "content" "content-service" "segment" "segment-service" "profile" "profile-service" "ingestion" "ingestion-service") . }}
{{- end }}

{{/*
Which roles call which (apps/<app>/src/main.ts, docs/architecture.md): a role's NetworkPolicy admits these.
The gateway proxies to every service; the segment service looks profiles up and creates jobs; the
profile service creates jobs in the ingestion service's registry.
*/}}
{{- define "guidepost.callers" -}}
{{- get (dict "content" "gateway" "segment" "gateway" "profile" "gateway segment" "ingestion" "gateway segment profile") . }}
{{- end }}

{{/*
What each role connects to besides DNS, PostgreSQL, Kafka and the roles it calls (apps/<app>/src/main.ts:
BlobModule is S3, MailModule SMTP, GUIDEPOST_CLICKHOUSE_URL the event store): its NetworkPolicy's egress.
*/}}
{{- define "guidepost.stores" -}}
{{- get (dict "segment" "s3" "ingestion" "clickhouse s3 smtp") . }}
{{- end }}

{{/* The roles `role` calls: those whose callers name it. */}}
{{- define "guidepost.callees" -}}
{{- $callees := list }}
{{- range $callee := splitList " " (include "guidepost.roleOrder" .root) }}
{{- if has $.role (splitList " " (include "guidepost.callers" $callee)) }}{{ $callees = append $callees $callee }}{{ end }}
{{- end }}
{{- join " " $callees }}
{{- end }}

{{/*
The ports of an egress destination (networkPolicy.egress.<name>): its own, else (Kafka, S3) those of
the configuration: each broker's of config.kafkaBrokers, config.s3Endpoint's (443 or 80 by default).
*/}}
{{- define "guidepost.egressPorts" -}}
{{- $spec := get .root.Values.networkPolicy.egress .name }}
{{- $ports := list }}
{{- if $spec.ports }}
{{- $ports = $spec.ports }}
{{- else if eq .name "kafka" }}
{{- range $broker := splitList "," .root.Values.config.kafkaBrokers }}
{{- $ports = append $ports (dict "port" (int (regexFind "[0-9]+$" (trim $broker))) "protocol" "TCP") }}
{{- end }}
{{- else if eq .name "s3" }}
{{- $url := urlParse .root.Values.config.s3Endpoint }}
{{- $port := trimPrefix ":" (regexFind ":[0-9]+$" $url.host) | default (ternary "443" "80" (eq $url.scheme "https")) }}
{{- $ports = list (dict "port" (int $port) "protocol" "TCP") }}
{{- else }}
{{- fail (printf "networkPolicy.egress.%s.ports is empty: name the ports" .name) }}
{{- end }}
{{- toYaml (uniq $ports) }}
{{- end }}

{{/* One egress rule of the NetworkPolicies: networkPolicy.egress.<name>'s peers (any address when none) on its ports. */}}
{{- define "guidepost.egressRule" -}}
# {{ .name }}
- ports:
    {{- include "guidepost.egressPorts" . | nindent 4 }}
  {{- with (get .root.Values.networkPolicy.egress .name).to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/*
The ingestion service's Kafka subscriptions, "<contract topic> <consumer group>" per line: the topics
of libs/contracts/events and the groups of the `*.consumer.ts` files of libs/ingestion and
libs/platform/mail (the chart test checks them against the code). Kafka names are prefixed with
GUIDEPOST_KAFKA_NAMESPACE and a dot, as libs/platform/bus/src/kafka/kafka-topics.ts builds them.
*/}}
{{- define "guidepost.ingestionSubscriptions" -}}
guidepost.events.events-accepted.v1 ingestion.event-sink
guidepost.ingestion.import-staged.v1 ingestion.import-worker
guidepost.ingestion.event-export-requested.v1 ingestion.event-export
guidepost.ingestion.analytics-export-requested.v1 ingestion.analytics-export
guidepost.jobs.job-event-recorded.v1 ingestion.job-registry
guidepost.content.ingestion-filtering-rules-changed.v1 ingestion.filtering-rules
guidepost.mail.mail-requested.v1 mail.sender
{{- end }}

{{- define "guidepost.kafkaName" -}}
{{- if .namespace }}{{ printf "%s.%s" .namespace .name }}{{ else }}{{ .name }}{{ end }}
{{- end }}

{{/* Labels of every object; pass (dict "root" $ "role" "<role>") for a role's objects. */}}
{{- define "guidepost.labels" -}}
helm.sh/chart: {{ include "guidepost.chart" .root }}
{{ include "guidepost.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: guidepost
{{- end }}

{{- define "guidepost.selectorLabels" -}}
app.kubernetes.io/name: {{ include "guidepost.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .role }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{/* The label of the Services whose port serves /metrics, which the ServiceMonitor selects (not the gateway's public Service). */}}
{{- define "guidepost.metricsLabel" -}}
guidepost.io/metrics: "true"
{{- end }}

{{- define "guidepost.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "guidepost.secretName" -}}
{{- default (printf "%s-secrets" (include "guidepost.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/*
"true" when the render sees the cluster (helm install and upgrade, --dry-run=server), "" when it does
not (helm template, helm lint, a GitOps tool rendering with helm template): there `lookup` answers
nothing at all, while in a cluster a list of the release namespace's Secrets, which Helm itself needs
to read, always has its `kind`.
*/}}
{{- define "guidepost.seesCluster" -}}
{{- if hasKey (lookup "v1" "Secret" .Release.Namespace "") "kind" }}true{{ end }}
{{- end }}

{{/* The tokens a chart-made Secret lacks: not in values, not in the cluster, and not generated (a render that cannot see the cluster). */}}
{{- define "guidepost.tokensLeftOut" -}}
{{- $existing := (lookup "v1" "Secret" .Release.Namespace (include "guidepost.secretName" .)).data | default dict }}
{{- $left := list }}
{{- range $key, $setting := dict "adminToken" "GUIDEPOST_ADMIN_TOKEN" "internalToken" "GUIDEPOST_INTERNAL_TOKEN" }}
{{- if not (or (get $.Values.secrets $key) (hasKey $existing $setting)) }}{{ $left = append $left (printf "secrets.%s (%s)" $key $setting) }}{{ end }}
{{- end }}
{{- if not (include "guidepost.seesCluster" .) }}{{ join ", " $left }}{{ end }}
{{- end }}

{{- define "guidepost.configMapName" -}}
{{- printf "%s-config" (include "guidepost.fullname" .) }}
{{- end }}

{{- define "guidepost.serviceUrl" -}}
{{- printf "http://%s-%s.%s.svc.%s:%v" (include "guidepost.fullname" .root) .role .root.Release.Namespace .root.Values.clusterDomain .root.Values.service.port }}
{{- end }}

{{/*
The public API's base URL, which every process writes into `url`, `job_url` and download links:
config.publicUrl when set; else the Ingress's first host (https when a TLS entry names it); else the
gateway Service's in-cluster URL. Never the process's own listen address, which no client can reach.
*/}}
{{- define "guidepost.publicUrl" -}}
{{- if .Values.config.publicUrl -}}
{{- .Values.config.publicUrl -}}
{{- else if .Values.ingress.enabled -}}
{{- $host := (first .Values.ingress.hosts).host -}}
{{- $tlsHosts := list -}}
{{- range .Values.ingress.tls }}{{ $tlsHosts = concat $tlsHosts (.hosts | default list) }}{{ end -}}
{{- printf "%s://%s" (ternary "https" "http" (has $host $tlsHosts)) $host -}}
{{- else -}}
{{- include "guidepost.serviceUrl" (dict "root" . "role" "gateway") -}}
{{- end -}}
{{- end }}

{{/* terminationGracePeriodSeconds: the shutdown grace (rounded up), the preStop sleep and a margin. */}}
{{- define "guidepost.terminationGracePeriodSeconds" -}}
{{- add (div (add .Values.config.shutdownGraceMs 999) 1000) .Values.preStopSleepSeconds .Values.terminationMarginSeconds }}
{{- end }}

{{/* The environment of every process: the ConfigMap and the Secret. */}}
{{- define "guidepost.envFrom" -}}
- configMapRef:
    name: {{ include "guidepost.configMapName" . }}
- secretRef:
    name: {{ include "guidepost.secretName" . }}
{{- end }}

{{/* Checks that fail the render with a clear message. */}}
{{- define "guidepost.validate" -}}
{{- $partitions := int .Values.config.kafkaTopicPartitions }}
{{- $ingestion := .Values.roles.ingestion }}
{{- if and (or $ingestion.autoscaling.enabled .Values.keda.enabled) (gt (int $ingestion.autoscaling.maxReplicas) $partitions) }}
{{- fail (printf "roles.ingestion.autoscaling.maxReplicas (%v) is above config.kafkaTopicPartitions (%v): a replica above the partition count gets no partition" $ingestion.autoscaling.maxReplicas $partitions) }}
{{- end }}
{{- if and (not (or $ingestion.autoscaling.enabled .Values.keda.enabled)) (gt (int $ingestion.replicas) $partitions) }}
{{- fail (printf "roles.ingestion.replicas (%v) is above config.kafkaTopicPartitions (%v): a replica above the partition count gets no partition" $ingestion.replicas $partitions) }}
{{- end }}
{{- if eq (int .Values.service.adminPort) (int .Values.service.port) }}
{{- fail (printf "service.adminPort (%v) is service.port: the gateway's admin API needs a port of its own" .Values.service.adminPort) }}
{{- end }}
{{- range $role, $spec := .Values.roles }}
{{- with $spec.autoscaling }}
{{- if and .enabled (gt (int .minReplicas) (int .maxReplicas)) }}
{{- fail (printf "roles.%s.autoscaling.minReplicas (%v) is above its maxReplicas (%v)" $role .minReplicas .maxReplicas) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
