import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A Secret as the fake cluster holds it: its `data`, base64 values. */
export type SecretData = Record<string, string>;

export interface FakeCluster {
  /** A kubeconfig that points helm at it (`--kubeconfig`, with `--dry-run=server` so that `lookup` asks it). */
  readonly kubeconfig: string;
  /** Every request it was sent, `METHOD path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Just enough of a Kubernetes API server for `helm template --dry-run=server` to run the chart's
 * `lookup`s against it: the core API's discovery and the Secrets of one namespace (get and list).
 * What `lookup` does in a real cluster (helm install and upgrade) is then a render test; only its
 * RBAC and a real Secret's life across `helm upgrade` are left to the cluster test.
 */
export async function startFakeCluster(namespace: string, secrets: Record<string, SecretData>): Promise<FakeCluster> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    requests.push(`${request.method} ${url.pathname}`);
    const answer = (status: number, body: object): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const secretOf = (name: string) => ({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name, namespace },
      type: 'Opaque',
      data: secrets[name],
    });
    if (url.pathname === '/api/v1') {
      return answer(200, {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [{ name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: ['get', 'list'] }],
      });
    }
    const match = new RegExp(`^/api/v1/namespaces/${namespace}/secrets(?:/([^/]+))?$`).exec(url.pathname);
    if (match && match[1] === undefined) {
      return answer(200, {
        kind: 'SecretList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: Object.keys(secrets).map(secretOf),
      });
    }
    if (match && secrets[match[1]]) return answer(200, secretOf(match[1]));
    answer(404, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      details: { name: match?.[1], kind: 'secrets' },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const folder = mkdtempSync(path.join(tmpdir(), 'guidepost-fake-cluster-'));
  const kubeconfig = path.join(folder, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: fake, cluster: { server: "http://127.0.0.1:${port}" } }]`,
      'users: [{ name: fake, user: { token: fake } }]',
      `contexts: [{ name: fake, context: { cluster: fake, user: fake, namespace: ${namespace} } }]`,
      'current-context: fake',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    kubeconfig,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
