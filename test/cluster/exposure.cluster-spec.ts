import { admin, expectProblem, server } from '../e2e/support';
import { release } from './require-release';

/** The admin API and the metrics, which only the gateway's admin Service may answer. */
const ADMIN_ONLY = ['/admin/v1/accounts', '/admin/v1/dead-letters/gateway', '/metrics'];

/**
 * What the release exposes: the gateway's public Service (what an Ingress routes to, and the
 * socat "load balancer" of scripts/cluster/test.sh in front of it) answers the public API only; the
 * admin API and /metrics answer on <release>-gateway-admin alone (the chart's `service.adminPort`).
 */
describe('what the release exposes', () => {
  it('answers neither the admin API nor /metrics through the public Service or the load balancer, with the admin token or without', async () => {
    const { adminToken } = server();
    for (const base of [server().baseUrl, release('GUIDEPOST_CLUSTER_LOAD_BALANCER_URL')]) {
      expect({ base, openapi: (await fetch(`${base}/openapi.json`)).status }).toEqual({ base, openapi: 200 });
      for (const path of ADMIN_ONLY) {
        for (const headers of [{}, { Authorization: `Bearer ${adminToken}` }] as Record<string, string>[]) {
          const answer = await fetch(`${base}${path}`, { headers });
          expect({ url: `${base}${path}`, status: answer.status }).toEqual({ url: `${base}${path}`, status: 404 });
          await expectProblem(answer, 404);
        }
      }
    }
  });

  it('answers the admin API (with its token) and /metrics on the admin Service', async () => {
    const { adminUrl, baseUrl } = server();
    expect(new URL(adminUrl).host).not.toBe(new URL(baseUrl).host);
    expect((await admin('GET', '/admin/v1/accounts')).status).toBe(200);
    await expectProblem(await fetch(`${adminUrl}/admin/v1/accounts`), 401);
    const metrics = await fetch(`${adminUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('guidepost_http_request_duration_seconds');
    // The public API is not served there.
    await expectProblem(await fetch(`${adminUrl}/openapi.json`), 404);
  });
});
