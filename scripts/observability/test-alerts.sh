#!/usr/bin/env bash
# The alert rules' tests (`npm run test:alerts`): `promtool check rules` over the generated rules file
# (helm/guidepost/alerts/guidepost.rules.json, from tools/dashboards/src/alerts.ts by `npm run
# dashboards`), then `promtool test rules` over test/alerts/*.test.yaml, which show every alert firing
# on series shaped like Guidepost's and staying quiet where it must. promtool is installed when missing.
# Usage: scripts/observability/test-alerts.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

tools=$(scripts/observability/install-prometheus.sh)
PROMTOOL=$(sed -n 's/^PROMTOOL=//p' <<<"$tools")

"$PROMTOOL" check rules helm/guidepost/alerts/guidepost.rules.json
"$PROMTOOL" test rules test/alerts/*.test.yaml
