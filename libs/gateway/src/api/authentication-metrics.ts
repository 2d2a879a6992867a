import type { MetricsRegistry } from '@guidepost/platform-observability';
import type { AttemptListener, AttemptOutcome, CredentialKind } from '../application/authentication-throttle';

const CREDENTIALS: readonly CredentialKind[] = ['api_key', 'admin_token'];
const OUTCOMES: readonly AttemptOutcome[] = ['refused', 'throttled'];

/**
 * `guidepost_auth_failures_total{credential, outcome}`: attempts refused with a wrong API key or admin
 * token (401) and attempts throttled after too many of those (429), what `GuidepostAuthenticationFailures`
 * watches. Every pair starts at 0, so a panel or an alert sees a flat line rather than no data.
 */
export function countAttempts(metrics: MetricsRegistry): AttemptListener {
  const counter = metrics.counter({
    name: 'guidepost_auth_failures_total',
    help: 'Failed authentication: attempts with a wrong API key or admin token (refused, 401) and attempts throttled after too many failures (throttled, 429)',
    labelNames: ['credential', 'outcome'],
  });
  for (const credential of CREDENTIALS) for (const outcome of OUTCOMES) counter.inc({ credential, outcome }, 0);
  return (credential, outcome) => counter.inc({ credential, outcome });
}
