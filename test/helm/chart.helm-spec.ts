import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as contractEvents from '@guidepost/contracts-events';
import { ALL_TOPICS, type Topic } from '@guidepost/contracts-events';
import { type FakeCluster, startFakeCluster } from './fake-cluster';

/*
 * The Helm chart (helm/guidepost), rendered with the real helm and checked as a reviewer would by
 * hand. What the chart must know about the code (entry points, required settings, who calls whom, the
 * ingestion service's topics and consumer groups) is read from the code here, so the two cannot drift.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const CHART = path.join(ROOT, 'helm/guidepost');
const RELEASE = 'gp';
const NAMESPACE = 'guidepost';
/** Within the chart's kubeVersion; helm template assumes v1.20 otherwise. */
const KUBERNETES_VERSION = '1.37.0';
const FULLNAME = `${RELEASE}-guidepost`;
const ROLES = ['gateway', 'content', 'segment', 'profile', 'ingestion'] as const;
type Role = (typeof ROLES)[number];
const ENTRY: Record<Role, string> = {
  gateway: 'gateway',
  content: 'content-service',
  segment: 'segment-service',
  profile: 'profile-service',
  ingestion: 'ingestion-service',
};

type Labels = Record<string, string>;
interface Meta {
  name: string;
  labels?: Labels;
  annotations?: Labels;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  command: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { limits?: Labels; requests?: Labels };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    runAsNonRoot?: boolean;
    capabilities?: { drop?: string[] };
  };
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: { topologyKey: string; labelSelector: { matchLabels: Labels } }[];
  volumes?: { name: string; emptyDir?: object }[];
}
interface Peer {
  podSelector?: { matchLabels?: Labels };
  namespaceSelector?: { matchLabels?: Labels };
  ipBlock?: { cidr: string };
}
interface EgressRule {
  to?: Peer[];
  ports?: { port: number; protocol?: string }[];
}
interface ServicePort {
  name: string;
  port: number;
  targetPort: string | number;
}
interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  data?: Labels;
  spec?: {
    type?: string;
    ports?: ServicePort[];
    replicas?: number;
    template?: { metadata?: Meta; spec: PodSpec };
    selector?: { matchLabels?: Labels };
    podSelector?: { matchLabels: Labels };
    policyTypes?: string[];
    ingress?: { from?: Peer[]; ports?: { port: string | number }[] }[];
    egress?: EgressRule[];
    scaleTargetRef?: { name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    maxReplicas?: number;
    metrics?: { type: string; resource?: { name: string } }[];
    triggers?: { type: string; metadata: Labels }[];
    endpoints?: { port: string; path: string; relabelings?: { sourceLabels?: string[]; targetLabel: string }[] }[];
    groups?: { name: string; rules: { alert: string; annotations: Labels; labels: Labels }[] }[];
    rules?: { host?: string; http: { paths: IngressPath[] } }[];
  };
}

interface Tools {
  helm: string;
  python: string;
}

let tools: Tools;

/** helm and kubernetes-validate's Python (with PyYAML) from the cache: installed when missing, never skipped. */
function installTools(): Tools {
  let helm = process.env.GUIDEPOST_HELM;
  let validate = process.env.GUIDEPOST_KUBERNETES_VALIDATE;
  if (!helm || !validate) {
    const run = spawnSync(path.join(ROOT, 'scripts/helm/install-tools.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (run.status !== 0) throw new Error(`scripts/helm/install-tools.sh failed (exit ${run.status})`);
    const found = Object.fromEntries(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    helm = found.HELM;
    validate = found.KUBERNETES_VALIDATE;
  }
  if (!helm || !validate) throw new Error('scripts/helm/install-tools.sh named no helm or kubernetes-validate');
  return { helm, python: path.join(path.dirname(validate), 'python') };
}

function helmTemplate(args: readonly string[], chart = CHART): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(tools.helm, ['template', RELEASE, chart, '--namespace', NAMESPACE, '--kube-version', KUBERNETES_VERSION, ...args], {
    encoding: 'utf8',
  });
}

function parseManifests(text: string): K8sObject[] {
  const parsed = spawnSync(
    tools.python,
    ['-c', 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(sys.stdin) if d], sys.stdout)'],
    {
      input: text,
      encoding: 'utf8',
    },
  );
  if (parsed.status !== 0) throw new Error(`the rendering is not YAML:\n${parsed.stderr}`);
  return JSON.parse(parsed.stdout) as K8sObject[];
}

function render(...args: string[]): K8sObject[] {
  const result = helmTemplate(args);
  if (result.status !== 0) throw new Error(`helm template ${args.join(' ')} failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** A render whose `lookup`s ask `cluster` (`--dry-run=server`), as helm install and upgrade do a real one. */
async function renderSeeing(cluster: FakeCluster, ...args: string[]): Promise<K8sObject[]> {
  const helmArgs = [
    'template',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    '--kube-version',
    KUBERNETES_VERSION,
    '--dry-run=server',
    '--kubeconfig',
    cluster.kubeconfig,
    ...args,
  ];
  const { stdout } = await promisify(execFile)(tools.helm, helmArgs, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return parseManifests(stdout);
}

/** NOTES.txt as helm install would print it (helm template prints no notes: rendered here through a ConfigMap in a copy of the chart). */
function renderNotes(...args: string[]): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'guidepost-notes-'));
  try {
    const chart = path.join(folder, 'guidepost');
    cpSync(CHART, chart, { recursive: true });
    const notes = readFileSync(path.join(chart, 'templates/NOTES.txt'), 'utf8');
    rmSync(path.join(chart, 'templates/NOTES.txt'));
    writeFileSync(path.join(chart, 'templates/_notes-probe.tpl'), `{{- define "guidepost.notesProbe" -}}\n${notes}\n{{- end }}\n`);
    writeFileSync(
      path.join(chart, 'templates/notes-probe.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes-probe\ndata:\n  notes: {{ include "guidepost.notesProbe" . | quote }}\n',
    );
    const result = helmTemplate(['--show-only', 'templates/notes-probe.yaml', ...args], chart);
    if (result.status !== 0) throw new Error(`NOTES.txt does not render:\n${result.stderr}`);
    return parseManifests(result.stdout)[0].data!.notes;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function renderError(...args: string[]): string {
  const result = helmTemplate(args);
  expect(result.status).not.toBe(0);
  return result.stderr;
}

const ofKind = (objects: K8sObject[], kind: string): K8sObject[] => objects.filter((object) => object.kind === kind);
function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendering`);
  return found;
}
const podLabels = (role: string): Labels => ({
  'app.kubernetes.io/name': 'guidepost',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': role,
});
const matches = (selector: Labels, labels: Labels | undefined): boolean =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

const source = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** What `runServiceHost` requires of every host, plus what each app's main.ts adds. */
function requiredSettings(role: Role): string[] {
  const host = source('libs/platform/host/src/service-host.ts');
  const always = /const ALWAYS_REQUIRED[^=]*=\s*\[([^\]]*)\]/.exec(host);
  const own = /requires:\s*\[([^\]]*)\]/.exec(source(`apps/${ENTRY[role]}/src/main.ts`));
  if (!always) throw new Error('ALWAYS_REQUIRED not found in service-host.ts');
  return [always[1], own?.[1] ?? ''].flatMap((list) => [...list.matchAll(/'(GUIDEPOST_[A-Z_]+)'/g)].map((match) => match[1]));
}

/** The roles that call `role`: those whose main.ts requires its service URL. */
function callersFromCode(role: Role): Role[] {
  return ROLES.filter((caller) => caller !== role && requiredSettings(caller).includes(`GUIDEPOST_${role.toUpperCase()}_SERVICE_URL`));
}

/** Every topic of the contracts by the name the code imports it under, so that a new subscription needs no change here. */
const CONTRACT_TOPICS: Record<string, Topic> = Object.fromEntries(
  Object.entries(contractEvents as Record<string, unknown>).filter((entry): entry is [string, Topic] =>
    ALL_TOPICS.includes(entry[1] as Topic),
  ),
);

/** Every `bus.subscribe({ topic, group })` of the ingestion service's code, with the group constant resolved. */
function ingestionSubscriptions(): { topic: string; group: string }[] {
  const files = [
    ...readdirSync(path.join(ROOT, 'libs/ingestion/src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.consumer.ts'))
      .map((file) => `libs/ingestion/src/${file}`),
    'libs/platform/mail/src/mail-requested.consumer.ts',
  ];
  return files.flatMap((file) => {
    const text = source(file);
    return [...text.matchAll(/subscribe\(\{\s*topic:\s*(\w+),\s*group:\s*(\w+)/g)].map(([, topicName, groupConstant]) => {
      const topic = CONTRACT_TOPICS[topicName];
      const group = new RegExp(`const ${groupConstant}\\s*=\\s*'([^']+)'`).exec(text)?.[1];
      if (!topic || !group) throw new Error(`${file}: subscription ${topicName}/${groupConstant} not understood; add it to this spec`);
      return { topic: topic.name, group };
    });
  });
}

const SECRET_VALUES = {
  adminToken: 'admin-token-sentinel-0123456789',
  internalToken: 'internal-token-sentinel-0123456789abcdef',
  databaseUrl: 'postgresql://guidepost:db-password-sentinel@pg:5432/guidepost',
  clickhouseUrl: 'http://guidepost:ch-password-sentinel@clickhouse:8123/guidepost',
  s3AccessKey: 's3-access-sentinel',
  s3SecretKey: 's3-secret-sentinel-0123',
  smtpUrl: 'smtp://mail:smtp-password-sentinel@smtp:587',
};
const withSecrets = Object.entries(SECRET_VALUES).flatMap(([key, value]) => ['--set-string', `secrets.${key}=${value}`]);

beforeAll(() => {
  tools = installTools();
});

describe('the Deployments', () => {
  it('run one role each, with both probes, requests and limits, a restricted context and the grace period', () => {
    const objects = render();
    expect(
      ofKind(objects, 'Deployment')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(ROLES.map((role) => `${FULLNAME}-${role}`).sort());
    for (const role of ROLES) {
      const deployment = named(objects, 'Deployment', `${FULLNAME}-${role}`);
      const pod = deployment.spec!.template!.spec;
      expect(deployment.spec!.selector!.matchLabels).toEqual(podLabels(role));
      expect(matches(podLabels(role), deployment.spec!.template!.metadata!.labels)).toBe(true);
      expect(pod.containers).toHaveLength(1);
      const [container] = pod.containers;
      expect(container.command).toEqual(['node', `dist/apps/${ENTRY[role]}/src/main.js`]);
      expect(source(`apps/${ENTRY[role]}/src/main.ts`)).toContain('runServiceHost');
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      expect(Object.keys(container.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(container.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        runAsNonRoot: true,
      });
      expect(container.securityContext?.capabilities?.drop).toContain('ALL');
      // What must be writable is an emptyDir.
      const emptyDirs = new Set((pod.volumes ?? []).filter((volume) => volume.emptyDir).map((volume) => volume.name));
      expect(
        container.volumeMounts
          ?.filter((mount) => emptyDirs.has(mount.name))
          .map((mount) => mount.mountPath)
          .sort(),
      ).toEqual(['/data', '/tmp']);
      // 25 s of shutdown grace (the default), then 5 s of preStop sleep and a 5 s margin.
      expect(container.lifecycle?.preStop?.sleep?.seconds).toBe(5);
      expect(pod.terminationGracePeriodSeconds).toBe(35);
      expect(pod.topologySpreadConstraints?.map((constraint) => constraint.topologyKey)).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const constraint of pod.topologySpreadConstraints ?? []) expect(constraint.labelSelector.matchLabels).toEqual(podLabels(role));
      expect(named(objects, 'ServiceAccount', `${FULLNAME}-${role}`)).toBeDefined();
      const budget = named(objects, 'PodDisruptionBudget', `${FULLNAME}-${role}`);
      expect(budget.spec!.selector!.matchLabels).toEqual(podLabels(role));
      const service = named(objects, 'Service', `${FULLNAME}-${role}`);
      expect(service.spec!.selector).toEqual(podLabels(role));
    }
  });

  it("size V8's heap for the pod: the chart's NODE_OPTIONS, a role's own instead when it sets one", () => {
    const nodeOptions = (objects: K8sObject[], role: Role): string | undefined =>
      named(objects, 'Deployment', `${FULLNAME}-${role}`).spec!.template!.spec.containers[0].env?.find(
        (variable) => variable.name === 'NODE_OPTIONS',
      )?.value;
    const defaults = render();
    for (const role of ROLES) expect(nodeOptions(defaults, role)).toBe('--max-old-space-size=160 --max-semi-space-size=4');
    const ingestionOwn = render('--set', 'roles.ingestion.nodeOptions=--max-old-space-size=640');
    expect(nodeOptions(ingestionOwn, 'ingestion')).toBe('--max-old-space-size=640');
    expect(nodeOptions(ingestionOwn, 'gateway')).toBe('--max-old-space-size=160 --max-semi-space-size=4');
    // Flags only: Node refuses to start on anything else in NODE_OPTIONS.
    expect(renderError('--set', 'nodeOptions=max-old-space-size=160')).toMatch(/nodeOptions/);
  });

  it('derive terminationGracePeriodSeconds from GUIDEPOST_SHUTDOWN_GRACE_MS', () => {
    const objects = render('--set', 'config.shutdownGraceMs=60500');
    const config = named(objects, 'ConfigMap', `${FULLNAME}-config`);
    expect(config.data!.GUIDEPOST_SHUTDOWN_GRACE_MS).toBe('60500');
    for (const deployment of ofKind(objects, 'Deployment'))
      expect(deployment.spec!.template!.spec.terminationGracePeriodSeconds).toBe(61 + 5 + 5);
  });

  it('give every process the settings its host requires, with the service URLs of the in-cluster Services', () => {
    const objects = render(...withSecrets);
    const config = named(objects, 'ConfigMap', `${FULLNAME}-config`);
    const secret = named(objects, 'Secret', `${FULLNAME}-secrets`);
    expect(config.data!.GUIDEPOST_MIGRATE_ON_START).toBe('false');
    for (const role of ROLES) {
      const [container] = named(objects, 'Deployment', `${FULLNAME}-${role}`).spec!.template!.spec.containers;
      expect(container.envFrom).toEqual([{ configMapRef: { name: config.metadata.name } }, { secretRef: { name: secret.metadata.name } }]);
      const available = new Set([...Object.keys(config.data!), ...Object.keys(secret.data!)]);
      expect(requiredSettings(role).filter((setting) => !available.has(setting))).toEqual([]);
    }
    for (const role of ROLES.filter((role) => role !== 'gateway')) {
      const url = config.data![`GUIDEPOST_${role.toUpperCase()}_SERVICE_URL`];
      expect(url).toBe(`http://${FULLNAME}-${role}.${NAMESPACE}.svc.cluster.local:8080`);
      expect(named(objects, 'Service', `${FULLNAME}-${role}`).spec!.selector).toEqual(podLabels(role));
    }
  });

  it('write links with a base URL clients can reach: the one given, else the Ingress host, else the gateway Service', () => {
    const publicUrl = (...args: string[]): string | undefined =>
      named(render(...args), 'ConfigMap', `${FULLNAME}-config`).data!.GUIDEPOST_PUBLIC_URL;
    expect(publicUrl()).toBe(`http://${FULLNAME}-gateway.${NAMESPACE}.svc.cluster.local:8080`);
    expect(publicUrl('--set', 'ingress.enabled=true')).toBe('http://guidepost.example.com');
    const tls = ['--set', 'ingress.tls[0].secretName=tls', '--set', 'ingress.tls[0].hosts[0]=guidepost.example.com'];
    expect(publicUrl('--set', 'ingress.enabled=true', ...tls)).toBe('https://guidepost.example.com');
    expect(publicUrl('--set', 'ingress.enabled=true', '--set', 'config.publicUrl=https://api.example.org')).toBe('https://api.example.org');
  });
});

/** The container port a Service port leads to (by name), in the Deployment of the pods it selects. */
function containerPortBehind(
  objects: K8sObject[],
  service: K8sObject,
  servicePort: ServicePort,
): { role: string; name: string; containerPort: number } {
  const role = (service.spec!.selector as Labels)['app.kubernetes.io/component'];
  const [container] = named(objects, 'Deployment', `${FULLNAME}-${role}`).spec!.template!.spec.containers;
  const port = container.ports?.find((candidate) => candidate.name === servicePort.targetPort);
  if (!port)
    throw new Error(
      `${service.metadata.name}: port ${servicePort.name} leads to no container port named ${String(servicePort.targetPort)}`,
    );
  return { role, name: port.name, containerPort: port.containerPort };
}

const gatewayEnv = (objects: K8sObject[], name: string): string | undefined =>
  named(objects, 'Deployment', `${FULLNAME}-gateway`).spec!.template!.spec.containers[0].env?.find((variable) => variable.name === name)
    ?.value;

describe('the public API and the admin API', () => {
  it("the default Ingress routes /v2, /openapi.json and /docs only, to the gateway's public port: no /admin, no /metrics", () => {
    for (const args of [
      ['--set', 'ingress.enabled=true'],
      ['-f', path.join(CHART, 'values-production.yaml')],
    ]) {
      const objects = render(...args);
      const paths = named(objects, 'Ingress', FULLNAME).spec!.rules!.flatMap((rule) => rule.http.paths);
      expect(paths.map((entry) => entry.path)).toEqual(['/v2', '/openapi.json', '/docs']);
      expect(paths.filter((entry) => /^\/(admin|metrics)/.test(entry.path) || entry.path === '/')).toEqual([]);
      for (const entry of paths) expect(entry.backend.service).toEqual({ name: `${FULLNAME}-gateway`, port: { name: 'http' } });
    }
  });

  it("the gateway's public Service leads only to the port that does not serve the admin API or /metrics", () => {
    expect(source('libs/platform/config/src/config.schema.ts')).toMatch(/GUIDEPOST_ADMIN_PORT: Type\.Optional/);
    const objects = render('--set', 'service.type=LoadBalancer');
    const config = named(objects, 'ConfigMap', `${FULLNAME}-config`);
    const publicService = named(objects, 'Service', `${FULLNAME}-gateway`);
    expect(publicService.spec!.type).toBe('LoadBalancer');
    expect(publicService.spec!.ports!.map((port) => containerPortBehind(objects, publicService, port))).toEqual([
      { role: 'gateway', name: 'http', containerPort: Number(config.data!.GUIDEPOST_PORT) },
    ]);
    // The gateway serves the admin API and /metrics on another port (404 on GUIDEPOST_PORT).
    expect(gatewayEnv(objects, 'GUIDEPOST_ADMIN_PORT')).toBe('9090');
    expect(config.data!.GUIDEPOST_PORT).toBe('8080');
  });

  it("the admin API and the gateway's /metrics have a ClusterIP Service of their own, on GUIDEPOST_ADMIN_PORT", () => {
    const objects = render('--set', 'service.type=LoadBalancer', '--set', 'service.adminPort=9191');
    const adminService = named(objects, 'Service', `${FULLNAME}-gateway-admin`);
    expect(adminService.spec!.type).toBe('ClusterIP');
    expect(adminService.spec!.selector).toEqual(podLabels('gateway'));
    expect(adminService.spec!.ports!.map((port) => ({ port: port.port, to: containerPortBehind(objects, adminService, port) }))).toEqual([
      { port: 9191, to: { role: 'gateway', name: 'admin', containerPort: 9191 } },
    ]);
    expect(gatewayEnv(objects, 'GUIDEPOST_ADMIN_PORT')).toBe('9191');
    // Only the gateway: the services serve their admin routes to the gateway on their HTTP port.
    for (const role of ROLES.filter((role) => role !== 'gateway')) {
      const [container] = named(objects, 'Deployment', `${FULLNAME}-${role}`).spec!.template!.spec.containers;
      expect(container.env?.map((variable) => variable.name)).not.toContain('GUIDEPOST_ADMIN_PORT');
      expect(container.ports?.map((port) => port.name)).toEqual(['http']);
    }
    expect(named(objects, 'ConfigMap', `${FULLNAME}-config`).data).not.toHaveProperty('GUIDEPOST_ADMIN_PORT');
  });

  it('refuses an admin port that is the HTTP port, and GUIDEPOST_ADMIN_PORT in config.extraEnv', () => {
    expect(renderError('--set', 'service.adminPort=8080')).toContain(
      "service.adminPort (8080) is service.port: the gateway's admin API needs a port of its own",
    );
    expect(renderError('--set', 'config.extraEnv.GUIDEPOST_ADMIN_PORT=9999')).toContain("invalid propertyName 'GUIDEPOST_ADMIN_PORT'");
  });
});

describe('secrets', () => {
  it('never appear in a ConfigMap; the chart-made Secret holds them', () => {
    const objects = render(...withSecrets, '-f', path.join(CHART, 'values.yaml'));
    const configMaps = ofKind(objects, 'ConfigMap');
    expect(configMaps.length).toBeGreaterThan(0);
    const everyConfigValue = configMaps.flatMap((configMap) => Object.entries(configMap.data ?? {}).flat()).join('\n');
    for (const value of Object.values(SECRET_VALUES)) expect(everyConfigValue).not.toContain(value);
    for (const key of ['TOKEN', 'DATABASE_URL', 'CLICKHOUSE_URL', 'ACCESS_KEY', 'SECRET_KEY', 'SMTP_URL'])
      expect(everyConfigValue).not.toContain(key);
    const secret = named(objects, 'Secret', `${FULLNAME}-secrets`);
    const decoded = Object.values(secret.data!).map((value) => Buffer.from(value, 'base64').toString('utf8'));
    expect(decoded.sort()).toEqual(Object.values(SECRET_VALUES).sort());
  });

  it('come from an existing Secret when one is named: the chart makes none', () => {
    const objects = render('--set', 'secrets.existingSecret=my-secrets');
    expect(ofKind(objects, 'Secret')).toEqual([]);
    for (const deployment of ofKind(objects, 'Deployment')) {
      expect(deployment.spec!.template!.spec.containers[0].envFrom).toContainEqual({ secretRef: { name: 'my-secrets' } });
    }
    const job = named(objects, 'Job', `${FULLNAME}-migrations`);
    const refs = [...job.spec!.template!.spec.initContainers!, ...job.spec!.template!.spec.containers].flatMap((container) =>
      (container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef.name] : [])),
    );
    expect(new Set(refs)).toEqual(new Set(['my-secrets']));
  });

  it('hold no token a render that cannot see the cluster (helm template, GitOps) would make anew each time: every such render is the same', () => {
    const first = helmTemplate([]);
    expect(first.status).toBe(0);
    expect(helmTemplate([]).stdout).toBe(first.stdout);
    const secret = named(parseManifests(first.stdout), 'Secret', `${FULLNAME}-secrets`);
    expect(Object.keys(secret.data ?? {})).not.toEqual(expect.arrayContaining(['GUIDEPOST_ADMIN_TOKEN']));
    expect(Object.keys(secret.data ?? {})).not.toEqual(expect.arrayContaining(['GUIDEPOST_INTERNAL_TOKEN']));
    // The operator is told what to set; not when the tokens are given, or the Secret is theirs.
    expect(renderNotes()).toContain(
      'secrets.adminToken (GUIDEPOST_ADMIN_TOKEN), secrets.internalToken (GUIDEPOST_INTERNAL_TOKEN) are left out',
    );
    expect(renderNotes(...withSecrets)).not.toContain('left out');
    expect(renderNotes('--set', 'secrets.existingSecret=mine')).not.toContain('left out');
    expect(renderNotes()).toContain(`port-forward svc/${FULLNAME}-gateway-admin 9090:9090`);
  });

  it('generate both tokens in the render of the first install, which sees the cluster and no Secret there yet', async () => {
    const cluster = await startFakeCluster(NAMESPACE, {});
    try {
      const tokens = async (): Promise<Labels> => named(await renderSeeing(cluster), 'Secret', `${FULLNAME}-secrets`).data!;
      const [first, second] = [await tokens(), await tokens()];
      for (const data of [first, second]) {
        expect(Buffer.from(data.GUIDEPOST_ADMIN_TOKEN, 'base64').toString()).toMatch(/^[A-Za-z0-9]{40}$/);
        expect(Buffer.from(data.GUIDEPOST_INTERNAL_TOKEN, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
      }
      // Each first install its own tokens.
      expect(second.GUIDEPOST_INTERNAL_TOKEN).not.toBe(first.GUIDEPOST_INTERNAL_TOKEN);
      expect(cluster.requests).toContain(`GET /api/v1/namespaces/${NAMESPACE}/secrets/${FULLNAME}-secrets`);
    } finally {
      await cluster.close();
    }
  });

  it('keep the tokens of the Secret in the cluster in every later render (helm upgrade, --dry-run=server), values winning over them', async () => {
    const kept = {
      GUIDEPOST_ADMIN_TOKEN: Buffer.from('kept-admin-token-0123456789').toString('base64'),
      GUIDEPOST_INTERNAL_TOKEN: Buffer.from('kept-internal-token-0123456789abcdef').toString('base64'),
    };
    const cluster = await startFakeCluster(NAMESPACE, {
      [`${FULLNAME}-secrets`]: { ...kept, GUIDEPOST_DATABASE_URL: Buffer.from('postgresql://old').toString('base64') },
    });
    try {
      for (let render = 0; render < 2; render += 1) {
        expect(named(await renderSeeing(cluster), 'Secret', `${FULLNAME}-secrets`).data).toEqual(kept);
      }
      const given = named(
        await renderSeeing(cluster, '--set-string', 'secrets.adminToken=given-admin-token-0123456789'),
        'Secret',
        `${FULLNAME}-secrets`,
      ).data!;
      expect(given).toEqual({ ...kept, GUIDEPOST_ADMIN_TOKEN: Buffer.from('given-admin-token-0123456789').toString('base64') });
    } finally {
      await cluster.close();
    }
  });

  it('refuse a secret setting in config.extraEnv', () => {
    expect(renderError('--set', 'config.extraEnv.GUIDEPOST_ADMIN_TOKEN=abcdefabcdefabcdef')).toContain(
      "invalid propertyName 'GUIDEPOST_ADMIN_TOKEN'",
    );
  });
});

describe('the NetworkPolicies', () => {
  it("select each role's pods and admit only its callers (from the code) and Prometheus; the gateway alone is open", () => {
    const objects = render();
    const prometheus = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
    };
    expect(callersFromCode('ingestion').sort()).toEqual(['gateway', 'profile', 'segment']);
    for (const role of ROLES) {
      const policy = named(objects, 'NetworkPolicy', `${FULLNAME}-${role}`);
      expect(policy.spec!.podSelector!.matchLabels).toEqual(podLabels(role));
      expect(policy.spec!.policyTypes).toContain('Ingress');
      const rules = policy.spec!.ingress!;
      const peers = rules.flatMap((rule) => rule.from ?? []);
      if (role === 'gateway') {
        // The public API is open; the admin port (admin API and /metrics) only to adminFrom (none) and Prometheus.
        const [publicRule, adminRule, ...others] = rules;
        expect(publicRule).toEqual({ ports: [{ port: 'http', protocol: 'TCP' }] });
        expect(adminRule).toEqual({ ports: [{ port: 'admin', protocol: 'TCP' }], from: [prometheus] });
        expect(others).toEqual([]);
      } else {
        for (const rule of rules) expect(rule.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
        expect(rules.every((rule) => rule.from !== undefined && rule.from.length > 0)).toBe(true);
        const podCallers = peers
          .filter((peer) => !peer.namespaceSelector)
          .map((peer) => peer.podSelector!.matchLabels!['app.kubernetes.io/component']);
        expect(podCallers.sort()).toEqual(callersFromCode(role).sort());
        for (const peer of peers.filter((peer) => !peer.namespaceSelector))
          expect(peer.podSelector!.matchLabels).toEqual(podLabels(peer.podSelector!.matchLabels!['app.kubernetes.io/component']));
      }
      expect(peers.filter((peer) => peer.namespaceSelector)).toEqual([prometheus]);
    }
  });

  it("admit to the gateway's admin port only the peers named in values, never everyone", () => {
    const adminRules = (...args: string[]) =>
      named(render(...args), 'NetworkPolicy', `${FULLNAME}-gateway`).spec!.ingress!.filter((rule) =>
        rule.ports?.some((port) => port.port === 'admin'),
      );
    const controller = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-internal' } } };
    const [rule] = adminRules('--set-json', `networkPolicy.adminFrom=${JSON.stringify([controller])}`);
    expect(rule.from).toEqual([
      controller,
      expect.objectContaining({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }),
    ]);
    // No peer at all: no rule (a rule without `from` would admit every address).
    expect(adminRules('--set-json', 'networkPolicy.metricsFrom=[]')).toEqual([]);
  });

  it('restrict the gateway to the peers named in values', () => {
    const objects = render('-f', path.join(CHART, 'values-production.yaml'));
    const rules = named(objects, 'NetworkPolicy', `${FULLNAME}-gateway`).spec!.ingress!;
    expect(rules.every((rule) => rule.from !== undefined && rule.from.length > 0)).toBe(true);
    expect(rules[0].from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]);
  });
});

/** What each role connects to besides the others, from its main.ts: S3 (BlobModule), SMTP (MailModule), ClickHouse. */
function storesFromCode(role: Role): string[] {
  const main = source(`apps/${ENTRY[role]}/src/main.ts`);
  const stores = ['dns', 'postgresql', 'kafka'];
  if (requiredSettings(role).includes('GUIDEPOST_CLICKHOUSE_URL')) stores.push('clickhouse');
  if (/\bBlobModule\b/.test(main)) stores.push('s3');
  if (/\bMailModule\b/.test(main)) stores.push('smtp');
  return stores;
}

/** The default ports of each egress destination (config.kafkaBrokers kafka:9092, config.s3Endpoint http://minio:9000). */
const STORE_PORTS: Record<string, string> = {
  dns: '53/UDP 53/TCP',
  postgresql: '5432/TCP',
  kafka: '9092/TCP',
  clickhouse: '8123/TCP',
  s3: '9000/TCP',
  smtp: '587/TCP 465/TCP',
};
const portsOf = (rule: EgressRule): string => (rule.ports ?? []).map((port) => `${port.port}/${port.protocol ?? 'TCP'}`).join(' ');
const egressOf = (objects: K8sObject[], name: string): EgressRule[] => named(objects, 'NetworkPolicy', name).spec!.egress ?? [];

describe("the NetworkPolicies' egress", () => {
  it('lets each role reach only the roles it calls (from the code), DNS, PostgreSQL, Kafka and the stores its code uses', () => {
    const objects = render();
    expect(storesFromCode('ingestion')).toEqual(['dns', 'postgresql', 'kafka', 'clickhouse', 's3', 'smtp']);
    expect(storesFromCode('gateway')).toEqual(['dns', 'postgresql', 'kafka']);
    for (const role of ROLES) {
      const policy = named(objects, 'NetworkPolicy', `${FULLNAME}-${role}`);
      expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
      const rules = policy.spec!.egress!;
      // Never a rule without ports: with no `to` either, it would let the pods reach anything.
      for (const rule of rules) expect(rule.ports?.length).toBeGreaterThan(0);
      const callees = ROLES.filter((callee) => callersFromCode(callee).includes(role));
      const stores = callees.length > 0 ? rules.slice(1) : rules;
      if (callees.length > 0) {
        expect(portsOf(rules[0])).toBe('8080/TCP');
        expect(rules[0].to).toEqual(callees.map((callee) => ({ podSelector: { matchLabels: podLabels(callee) } })));
      }
      // The defaults name no addresses (any address, on the store's ports only): values narrow them.
      expect(stores.map((rule) => ({ ports: portsOf(rule), to: rule.to }))).toEqual(
        storesFromCode(role).map((store) => ({ ports: STORE_PORTS[store], to: undefined })),
      );
    }
    expect(ROLES.filter((role) => ROLES.some((callee) => callersFromCode(callee).includes(role))).sort()).toEqual([
      'gateway',
      'profile',
      'segment',
    ]);
  });

  it("takes each destination's peers and ports from values, and the Kafka and S3 ports from the configuration by default", () => {
    const postgresql = { to: [{ ipBlock: { cidr: '10.0.5.0/24' } }], ports: [{ port: 6432, protocol: 'TCP' }] };
    const extra = { to: [{ ipBlock: { cidr: '10.9.9.9/32' } }], ports: [{ port: 4317, protocol: 'TCP' }] };
    const objects = render(
      '--set-json',
      `networkPolicy.egress.postgresql=${JSON.stringify(postgresql)}`,
      '--set-json',
      `networkPolicy.egress.extra=${JSON.stringify([extra])}`,
      '--set',
      'config.kafkaBrokers=kafka-0:9093\\,kafka-1:9094\\,kafka-2:9093',
      '--set',
      'config.s3Endpoint=https://s3.eu-west-1.amazonaws.com',
    );
    const rules = egressOf(objects, `${FULLNAME}-ingestion`);
    expect(rules).toContainEqual(postgresql);
    expect(rules[rules.length - 1]).toEqual(extra);
    expect(rules.map(portsOf)).toEqual(expect.arrayContaining(['9093/TCP 9094/TCP', '443/TCP']));
    expect(rules.map(portsOf)).not.toContain('5432/TCP');
    const production = render('-f', path.join(CHART, 'values-production.yaml'));
    for (const role of ROLES)
      for (const rule of egressOf(production, `${FULLNAME}-${role}`))
        if (portsOf(rule) !== '443/TCP') expect(rule.to?.length).toBeGreaterThan(0);
  });

  it('keeps the migrations Job to DNS, PostgreSQL and ClickHouse, and lets nothing reach it', () => {
    const objects = render(...withSecrets);
    const job = named(objects, 'Job', `${FULLNAME}-migrations`);
    const policy = named(objects, 'NetworkPolicy', `${FULLNAME}-migrations`);
    expect(matches(policy.spec!.podSelector!.matchLabels, job.spec!.template!.metadata!.labels)).toBe(true);
    expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec!.ingress).toBeUndefined();
    expect(policy.spec!.egress!.map(portsOf)).toEqual([STORE_PORTS.dns, STORE_PORTS.postgresql, STORE_PORTS.clickhouse]);
    // The roles' policies do not select it.
    for (const role of ROLES)
      expect(
        matches(
          named(objects, 'NetworkPolicy', `${FULLNAME}-${role}`).spec!.podSelector!.matchLabels,
          job.spec!.template!.metadata!.labels,
        ),
      ).toBe(false);
  });

  it('leaves egress open when networkPolicy.egress.enabled is false', () => {
    const objects = render('--set', 'networkPolicy.egress.enabled=false');
    for (const role of ROLES) {
      expect(named(objects, 'NetworkPolicy', `${FULLNAME}-${role}`).spec!.policyTypes).toEqual(['Ingress']);
      expect(egressOf(objects, `${FULLNAME}-${role}`)).toEqual([]);
    }
    expect(ofKind(objects, 'NetworkPolicy').map((policy) => policy.metadata.name)).not.toContain(`${FULLNAME}-migrations`);
  });
});

describe('scaling', () => {
  it('scales the ingestion service with KEDA on the lag of its real topics and groups, never above the partitions', () => {
    const objects = render('--set', 'keda.enabled=true', '--set', 'config.kafkaNamespace=prod', '--set', 'config.kafkaTopicPartitions=6');
    const scaled = named(objects, 'ScaledObject', `${FULLNAME}-ingestion`);
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled.spec!.scaleTargetRef!.name).toBe(`${FULLNAME}-ingestion`);
    expect(scaled.spec!.maxReplicaCount).toBeLessThanOrEqual(6);
    const expected = ingestionSubscriptions().map(({ topic, group }) => `prod.${topic} prod.${group}`);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    const triggers = scaled.spec!.triggers!;
    expect(triggers.every((trigger) => trigger.type === 'kafka' && trigger.metadata.bootstrapServers === 'kafka:9092')).toBe(true);
    expect(triggers.map((trigger) => `${trigger.metadata.topic} ${trigger.metadata.consumerGroup}`).sort()).toEqual(expected.sort());
    // KEDA makes the ingestion HPA; the chart makes only the gateway's.
    expect(ofKind(objects, 'HorizontalPodAutoscaler').map((hpa) => hpa.metadata.name)).toEqual([`${FULLNAME}-gateway`]);
    expect(named(objects, 'Deployment', `${FULLNAME}-ingestion`).spec!.replicas).toBeUndefined();
  });

  it('falls back to a CPU HPA for ingestion without KEDA, and gives the gateway one', () => {
    const objects = render();
    expect(ofKind(objects, 'ScaledObject')).toEqual([]);
    for (const role of ['gateway', 'ingestion']) {
      const hpa = named(objects, 'HorizontalPodAutoscaler', `${FULLNAME}-${role}`);
      expect(hpa.spec!.scaleTargetRef!.name).toBe(`${FULLNAME}-${role}`);
      expect(hpa.spec!.metrics).toEqual([
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      ]);
    }
    expect(named(objects, 'HorizontalPodAutoscaler', `${FULLNAME}-ingestion`).spec!.maxReplicas).toBeLessThanOrEqual(6);
  });

  it('refuses more ingestion replicas than partitions', () => {
    expect(renderError('--set', 'roles.ingestion.autoscaling.maxReplicas=8')).toContain(
      'roles.ingestion.autoscaling.maxReplicas (8) is above config.kafkaTopicPartitions (6)',
    );
    expect(renderError('--set', 'roles.ingestion.autoscaling.enabled=false', '--set', 'roles.ingestion.replicas=7')).toContain(
      'roles.ingestion.replicas (7) is above config.kafkaTopicPartitions (6)',
    );
  });
});

describe('the migrations', () => {
  it("are a pre-install and pre-upgrade hook Job running every role's migrate, in order", () => {
    const objects = render(...withSecrets);
    const job = named(objects, 'Job', `${FULLNAME}-migrations`);
    expect(job.metadata.annotations!['helm.sh/hook'].split(',').sort()).toEqual(['pre-install', 'pre-upgrade']);
    const pod = job.spec!.template!.spec;
    const steps = [...(pod.initContainers ?? []), ...pod.containers];
    expect(steps.map((step) => step.command)).toEqual(ROLES.map((role) => ['node', `dist/apps/${ENTRY[role]}/src/main.js`, 'migrate']));
    const ingestion = steps[steps.length - 1];
    expect(ingestion.env?.map((variable) => variable.name)).toEqual(
      expect.arrayContaining(['GUIDEPOST_DATABASE_URL', 'GUIDEPOST_CLICKHOUSE_URL']),
    );
    for (const step of steps) expect(step.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
    // What the Job needs exists before it: hooks with a lower weight.
    const jobWeight = Number(job.metadata.annotations!['helm.sh/hook-weight']);
    for (const kind of ['Secret', 'ServiceAccount']) {
      const dependency = named(objects, kind, `${FULLNAME}-migrations`);
      expect(dependency.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(Number(dependency.metadata.annotations!['helm.sh/hook-weight'])).toBeLessThan(jobWeight);
    }
    // The serving replicas never migrate.
    expect(
      ofKind(objects, 'Deployment').flatMap((deployment) =>
        deployment.spec!.template!.spec.containers.map((container) => container.command.join(' ')),
      ),
    ).not.toContain('migrate');
  });
});

describe('options', () => {
  it('routes the Ingress to the gateway only', () => {
    const objects = render('--set', 'ingress.enabled=true');
    const ingress = named(objects, 'Ingress', FULLNAME);
    const backends = ingress.spec!.rules!.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service.name));
    expect(new Set(backends)).toEqual(new Set([`${FULLNAME}-gateway`]));
  });

  it('exposes the admin API on purpose only: an Ingress of its own to the admin Service, /admin and never /metrics', () => {
    expect(ofKind(render('--set', 'ingress.enabled=true'), 'Ingress').map((ingress) => ingress.metadata.name)).toEqual([FULLNAME]);
    const objects = render(
      '--set',
      'adminIngress.enabled=true',
      '--set',
      'adminIngress.className=internal',
      '--set',
      'adminIngress.hosts[0].host=admin.example.com',
    );
    const ingress = named(objects, 'Ingress', `${FULLNAME}-admin`);
    expect(ingress.spec!.rules).toEqual([
      {
        host: 'admin.example.com',
        http: {
          paths: [
            { path: '/admin', pathType: 'Prefix', backend: { service: { name: `${FULLNAME}-gateway-admin`, port: { name: 'admin' } } } },
          ],
        },
      },
    ]);
    // Only the admin Ingress: the public one stays off unless asked for.
    expect(ofKind(objects, 'Ingress')).toHaveLength(1);
  });

  it('scrapes /metrics of every process with a ServiceMonitor: the services on their HTTP port, the gateway on its admin port', () => {
    expect(ofKind(render(), 'ServiceMonitor')).toEqual([]);
    const objects = render('--set', 'monitoring.serviceMonitor.enabled=true');
    const monitor = named(objects, 'ServiceMonitor', FULLNAME);
    const endpoints = monitor.spec!.endpoints!;
    expect(endpoints).toEqual([
      expect.objectContaining({ port: 'http', path: '/metrics' }),
      expect.objectContaining({ port: 'admin', path: '/metrics' }),
    ]);
    const selected = ofKind(objects, 'Service').filter((service) => matches(monitor.spec!.selector!.matchLabels!, service.metadata.labels));
    const services = ROLES.filter((role) => role !== 'gateway').map((role) => `${FULLNAME}-${role}`);
    expect(selected.map((service) => service.metadata.name).sort()).toEqual([...services, `${FULLNAME}-gateway-admin`].sort());
    // Each selected Service is scraped through exactly one endpoint; the public gateway Service through none.
    for (const service of selected) {
      expect(endpoints.filter((endpoint) => service.spec!.ports!.some((port) => port.name === endpoint.port))).toHaveLength(1);
    }
    // The dashboards and alerts select by guidepost_role, which the ServiceMonitor takes from each Service's component label.
    for (const endpoint of endpoints) {
      expect(endpoint.relabelings).toEqual([
        { sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_component'], targetLabel: 'guidepost_role' },
      ]);
    }
    expect(selected.map((service) => service.metadata.labels!['app.kubernetes.io/component']).sort()).toEqual([...ROLES].sort());
  });

  it('ships every generated alert rule in a PrometheusRule, runbook links under the base URL, with the labels its Prometheus selects', () => {
    expect(ofKind(render(), 'PrometheusRule')).toEqual([]);
    const objects = render(
      '--set',
      'monitoring.prometheusRule.enabled=true',
      '--set',
      'monitoring.prometheusRule.labels.release=kube-prometheus-stack',
      '--set',
      'monitoring.prometheusRule.runbookBaseUrl=https://git.example.com/guidepost/blob/v1/',
    );
    const rule = named(objects, 'PrometheusRule', FULLNAME);
    expect(rule.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    const generated = JSON.parse(source('helm/guidepost/alerts/guidepost.rules.json')) as {
      groups: { rules: { alert: string; annotations: Labels }[] }[];
    };
    const rendered = rule.spec!.groups!.flatMap((group) => group.rules);
    const expected = generated.groups.flatMap((group) => group.rules);
    expect(rendered.map((entry) => entry.alert)).toEqual(expected.map((entry) => entry.alert));
    expect(rendered.length).toBeGreaterThanOrEqual(7);
    for (const [index, entry] of rendered.entries()) {
      expect(entry).toEqual({
        ...expected[index],
        annotations: {
          ...expected[index].annotations,
          runbook_url: `https://git.example.com/guidepost/blob/v1/${expected[index].annotations.runbook_url}`,
        },
      });
    }
  });

  it('ships every generated dashboard as a ConfigMap the Grafana sidecar picks up', () => {
    expect(ofKind(render(), 'ConfigMap').filter((map) => map.metadata.name.includes('dashboard'))).toEqual([]);
    const objects = render(
      '--set',
      'monitoring.dashboards.enabled=true',
      '--set',
      'monitoring.dashboards.annotations.grafana_folder=Guidepost',
    );
    const dashboards = readdirSync(path.join(CHART, 'dashboards')).filter((file) => file.endsWith('.json'));
    expect(dashboards.length).toBe(4);
    for (const file of dashboards) {
      const map = named(objects, 'ConfigMap', `${FULLNAME}-dashboard-${file.replace(/\.json$/, '')}`);
      expect(map.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
      expect(map.metadata.annotations).toEqual({ grafana_folder: 'Guidepost' });
      expect(Object.keys(map.data!)).toEqual([`guidepost-${file}`]);
      expect(JSON.parse(map.data![`guidepost-${file}`])).toEqual(JSON.parse(source(`helm/guidepost/dashboards/${file}`)));
    }
  });
});

describe('values.schema.json', () => {
  it("fails a wrong value with the schema's message", () => {
    const message = renderError('--set', 'roles.gateway.replicas=-1');
    expect(message).toContain("values don't meet the specifications of the schema");
    expect(message).toMatch(/roles\/gateway\/replicas|roles\.gateway\.replicas/);
    expect(renderError('--set', 'config.logLevel=loud')).toMatch(/logLevel/);
    expect(renderError('--set', 'securityContext.readOnlyRootFilesystem=false')).toMatch(/readOnlyRootFilesystem/);
  });

  it('refuses a runbook base URL that is not an http(s) folder', () => {
    expect(renderError('--set', 'monitoring.prometheusRule.runbookBaseUrl=docs')).toMatch(/runbookBaseUrl/);
  });
});
