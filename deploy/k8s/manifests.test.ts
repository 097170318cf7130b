/**
 * The Kubernetes manifests (deploy/k8s), as a cluster would get them: every overlay under
 * deploy/k8s/overlays (and dev with the nats-cluster component, which deploy/README.md offers) is
 * rendered with `kubectl kustomize` and each workload (Deployment, StatefulSet, Job, ...) checked:
 *
 * - every process has one: each service in services/* (but kit), the gateway, db-setup;
 * - the container of each service and of the gateway gets every variable its config schema requires
 *   (services/kit/src/service.ts baseServiceConfig with the module's own `config`; gateway/src/config.ts
 *   gatewayConfig), from something other than an optional reference, and every value the rendering
 *   holds is one the schema accepts;
 * - every service gets ADMIN_TOKEN from a Secret and not ADMIN_LOOPBACK_TRUST (its admin port's dead
 *   letters are then served to that bearer only, never to whoever reaches the pod);
 * - readiness and liveness probes on every long-running container; the platform's own processes
 *   probe over httpGet, services on their admin port (SERVICE_PORTS, /healthz and /readyz), the
 *   gateway on its HTTP port;
 * - cpu and memory requests and limits on every container;
 * - runAsNonRoot, readOnlyRootFilesystem, no privilege escalation (and the rest of the "restricted"
 *   Pod Security Standard that the overlays' namespaces enforce);
 * - exactly one PodDisruptionBudget per long-running workload, allowing a disruption;
 * - NetworkPolicies of both types (Ingress and Egress) select every workload, and together they
 *   allow every connection a process is configured to make (its *_URL / *_ENDPOINT variables, DNS)
 *   at both ends, and the kubelet's probes;
 * - terminationGracePeriodSeconds above the preStop sleep plus the process's drain (the forced exit
 *   of services/kit/src/service.ts runMain and gateway/src/main.ts, which bounds
 *   RPC_SHUTDOWN_GRACE_MS of services/kit/src/rpc/server.ts; NATS's lame-duck time);
 * - HorizontalPodAutoscalers target existing workloads that leave `replicas` to them.
 *
 * Needs no cluster, only a kustomize that renders `components` (kustomize >= 3.7) and
 * `labels[].includeTemplates` (>= 4.5): kubectl >= 1.24 (the first to report its kustomize version,
 * v4.5.4) or a standalone `kustomize` >= 4.5.4. Without one the checks are skipped, saying why
 * (Debian bookworm's kubernetes-client is kubectl 1.20, with kustomize v2.0.3; see .ci/run).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { auditService } from "@fop/audit";
import { carriersService } from "@fop/carriers";
import { catalogService } from "@fop/catalog";
import { SERVICE_PORTS, type ServiceName } from "@fop/contracts/service-ports";
import { gatewayConfig } from "@fop/gateway";
import type { ConfigSchema } from "@fop/kit/config";
import { createMetrics, METRICS } from "@fop/kit/metrics";
import { baseServiceConfig } from "@fop/kit/service";
import { loadUnitsService } from "@fop/loadunits";
import { notificationsService } from "@fop/notifications";
import { pickingService } from "@fop/picking";
import { returnsService } from "@fop/returns";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const REPO = path.resolve(import.meta.dirname, "../..");
const K8S = path.join(REPO, "deploy/k8s");

// ---------------------------------------------------------------------------------------------
// Rendering

const MIN_KUSTOMIZE = [4, 5, 4] as const;
type Version = readonly [number, number, number];

interface Renderer {
  what: string;
  render(dir: string): string;
}

const versionOf = (text: string | undefined): Version | undefined => {
  const m = /v?(\d+)\.(\d+)\.(\d+)/.exec(text ?? "");
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};
const atLeast = (v: Version, min: Version): boolean =>
  v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2];

function run(cmd: string, args: string[]): { out: string } | { error: string } {
  try {
    return {
      out: execFileSync(cmd, args, {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        maxBuffer: 64 << 20,
      }),
    };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    return {
      error: e.code === "ENOENT" ? "not installed (not on PATH)" : String(e.stderr || e.message).trim(),
    };
  }
}

/** kubectl's built-in kustomize when it is new enough, else a standalone kustomize, else why not. */
function findRenderer(): { renderer: Renderer } | { missing: string } {
  const notes: string[] = [];
  const kubectl = run("kubectl", ["version", "--client", "-o", "json"]);
  if ("out" in kubectl) {
    const info = JSON.parse(kubectl.out) as {
      clientVersion?: { gitVersion?: string };
      kustomizeVersion?: string;
    };
    const client = info.clientVersion?.gitVersion ?? "(unknown version)";
    const kustomize = versionOf(info.kustomizeVersion);
    if (kustomize && atLeast(kustomize, MIN_KUSTOMIZE)) {
      return {
        renderer: {
          what: `kubectl ${client}, kustomize ${info.kustomizeVersion}`,
          render: (dir) =>
            execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 << 20 }),
        },
      };
    }
    notes.push(
      kustomize
        ? `kubectl ${client} embeds kustomize ${info.kustomizeVersion}`
        : `kubectl ${client} is older than 1.24 (it reports no kustomize version; 1.20, Debian bookworm's kubernetes-client, embeds kustomize v2.0.3)`,
    );
  } else {
    notes.push(`kubectl: ${kubectl.error}`);
  }
  const standalone = run("kustomize", ["version"]);
  if ("out" in standalone) {
    const v = versionOf(standalone.out);
    if (v && atLeast(v, MIN_KUSTOMIZE)) {
      return {
        renderer: {
          what: `kustomize ${v.join(".")}`,
          render: (dir) =>
            execFileSync("kustomize", ["build", dir], { encoding: "utf8", maxBuffer: 64 << 20 }),
        },
      };
    }
    notes.push(`kustomize ${standalone.out.trim()} is too old`);
  } else {
    notes.push(`kustomize: ${standalone.error}`);
  }
  return {
    missing:
      `deploy/k8s manifest checks SKIPPED: nothing here renders the overlays, which need kustomize >= ` +
      `v${MIN_KUSTOMIZE.join(".")} (components: >= 3.7; labels[].includeTemplates: >= 4.5), i.e. kubectl >= 1.24 or a ` +
      `standalone kustomize. Found: ${notes.join("; ")}. Debian bookworm packages neither a new enough kubectl ` +
      `nor kustomize (see .ci/run).`,
  };
}

const found = findRenderer();
const renderer = "renderer" in found ? found.renderer : undefined;
if (!renderer) console.warn("missing" in found ? found.missing : "");

/** A rendering: an overlay, or dev with the nats-cluster component (deploy/README.md). */
interface Variant {
  name: string;
  /** The kustomization directory; `cleanup` removes a temporary one. */
  prepare(): { dir: string; cleanup?: () => void };
}

const overlays = readdirSync(path.join(K8S, "overlays"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(K8S, "overlays", d.name, "kustomization.yaml")))
  .map((d) => d.name)
  .sort();

const variants: Variant[] = overlays.map((name) => ({
  name: `overlays/${name}`,
  prepare: () => ({ dir: path.join(K8S, "overlays", name) }),
}));
if (overlays.includes("dev") && existsSync(path.join(K8S, "components/nats-cluster"))) {
  variants.push({
    name: "overlays/dev + components/nats-cluster",
    prepare() {
      // The dev overlay with nats-cluster listed after nats, as deploy/README.md says, in a copy whose
      // relative paths lead back into the repository (kustomize refuses absolute ones).
      const dir = mkdtempSync(path.join(os.tmpdir(), "fop-kustomize-"));
      cpSync(path.join(K8S, "overlays/dev"), dir, { recursive: true });
      const file = path.join(dir, "kustomization.yaml");
      const original = readFileSync(file, "utf8");
      const nats = "  - ../../components/nats\n";
      if (!original.includes(nats)) throw new Error("overlays/dev no longer lists ../../components/nats");
      const edited = original
        .replace(nats, `${nats}  - ../../components/nats-cluster\n`)
        .replaceAll("../../", `${path.relative(dir, K8S)}/`);
      writeFileSync(file, edited);
      return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The rendered objects

type Labels = Record<string, string>;

interface Selector {
  matchLabels?: Labels;
  matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

interface Probe {
  httpGet?: { path?: string; port: number | string };
  tcpSocket?: { port: number | string };
  grpc?: { port: number };
  exec?: { command: string[] };
}

interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: ContainerPort[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      configMapKeyRef?: { name: string; key: string; optional?: boolean };
      secretKeyRef?: { name: string; key: string; optional?: boolean };
      fieldRef?: { fieldPath: string };
      resourceFieldRef?: { resource: string };
    };
  }[];
  envFrom?: {
    prefix?: string;
    configMapRef?: { name: string; optional?: boolean };
    secretRef?: { name: string; optional?: boolean };
  }[];
  resources?: {
    requests?: { cpu?: string | number; memory?: string | number };
    limits?: { cpu?: string | number; memory?: string | number };
  };
  securityContext?: any;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
}

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: any;
  terminationGracePeriodSeconds?: number;
  volumes?: { name: string; configMap?: { name: string }; hostPath?: unknown }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}

const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"];
const RUN_TO_COMPLETION = ["Job", "CronJob"];

interface Workload {
  id: string;
  kind: string;
  name: string;
  ns: string;
  obj: K8sObject;
  labels: Labels;
  pod: PodSpec;
  longRunning: boolean;
  /** The platform process it runs, if it is one. */
  process?: { kind: "gateway" } | { kind: "service"; service: string } | { kind: "db-setup" };
}

interface Rendered {
  objects: K8sObject[];
  workloads: Workload[];
  of(kind: string, ns?: string): K8sObject[];
  get(kind: string, name: string, ns: string): K8sObject | undefined;
  nsLabels(ns: string): Labels;
}

const nsOf = (o: K8sObject) => o.metadata.namespace ?? "";

function processOf(containers: Container[]): Workload["process"] {
  for (const c of containers) {
    const line = [...(c.command ?? []), ...(c.args ?? [])].join(" ");
    if (/(^|\s)gateway\/src\/main\.ts(\s|$)/.test(line)) return { kind: "gateway" };
    const svc = /(^|\s)services\/([a-z0-9-]+)\/src\/main\.ts(\s|$)/.exec(line);
    if (svc) return { kind: "service", service: svc[2]! };
    if (/(^|\s)deploy\/local\/src\/db-setup\.ts(\s|$)/.test(line)) return { kind: "db-setup" };
  }
  return undefined;
}

function parse(text: string): Rendered {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
    const o = doc.toJS() as K8sObject | null;
    if (o) objects.push(o);
  }
  const workloads: Workload[] = objects
    .filter((o) => WORKLOAD_KINDS.includes(o.kind))
    .map((o) => {
      const template = o.kind === "CronJob" ? o.spec.jobTemplate.spec.template : o.spec.template;
      const pod = template.spec as PodSpec;
      return {
        id: `${o.kind}/${o.metadata.name}`,
        kind: o.kind,
        name: o.metadata.name,
        ns: nsOf(o),
        obj: o,
        labels: (template.metadata?.labels ?? {}) as Labels,
        pod,
        longRunning: !RUN_TO_COMPLETION.includes(o.kind),
        process: processOf(pod.containers),
      };
    });
  return {
    objects,
    workloads,
    of: (kind, ns) => objects.filter((o) => o.kind === kind && (ns === undefined || nsOf(o) === ns)),
    get: (kind, name, ns) =>
      objects.find((o) => o.kind === kind && o.metadata.name === name && nsOf(o) === ns),
    nsLabels: (ns) => ({
      "kubernetes.io/metadata.name": ns,
      ...(objects.find((o) => o.kind === "Namespace" && o.metadata.name === ns)?.metadata.labels ?? {}),
    }),
  };
}

function selects(selector: Selector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const ok =
      e.operator === "In"
        ? has && (e.values ?? []).includes(labels[e.key]!)
        : e.operator === "NotIn"
          ? !has || !(e.values ?? []).includes(labels[e.key]!)
          : e.operator === "Exists"
            ? has
            : !has;
    if (!ok) return false;
  }
  return true;
}

const allContainers = (w: Workload) => [...(w.pod.initContainers ?? []), ...w.pod.containers];

/** A port of a container, by number or by name, as a number (undefined: no such named port). */
function portNumber(c: Container | undefined, port: number | string): number | undefined {
  if (typeof port === "number") return port;
  if (/^\d+$/.test(port)) return Number(port);
  return c?.ports?.find((p) => p.name === port)?.containerPort;
}

/** The workload's container ports by name (for named ports in policies and Services). */
function namedPorts(w: Workload): Map<string, { port: number; protocol: string }> {
  const ports = new Map<string, { port: number; protocol: string }>();
  for (const c of w.pod.containers)
    for (const p of c.ports ?? [])
      if (p.name) ports.set(p.name, { port: p.containerPort, protocol: p.protocol ?? "TCP" });
  return ports;
}

// ---------------------------------------------------------------------------------------------
// NetworkPolicy evaluation

interface PolicyPort {
  port?: number | string;
  endPort?: number;
  protocol?: string;
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  ports?: PolicyPort[];
  to?: Peer[];
  from?: Peer[];
}

/**
 * The other end of a connection: a workload of the rendering, a pod of another namespace (labels
 * unknown), an address outside the cluster, or the node (the kubelet's probes).
 */
type Endpoint =
  | { kind: "workload"; workload: Workload }
  | { kind: "foreign-pod"; ns: string; labels?: Labels }
  | { kind: "external" }
  | { kind: "node" };

function policyTypes(p: K8sObject): string[] {
  return p.spec.policyTypes ?? ["Ingress", ...(p.spec.egress ? ["Egress"] : [])];
}

function policiesOf(r: Rendered, w: Workload, type: "Ingress" | "Egress"): K8sObject[] {
  return r
    .of("NetworkPolicy", w.ns)
    .filter((p) => selects(p.spec.podSelector, w.labels) && policyTypes(p).includes(type));
}

function peerMatches(r: Rendered, peer: Peer, policyNs: string, other: Endpoint): boolean {
  // ipBlock: addresses outside the cluster (whether a CNI also applies it to pod or node addresses
  // varies), so it counts for external endpoints and the node, never for pods.
  if (peer.ipBlock) return other.kind === "external" || other.kind === "node";
  if (other.kind === "external" || other.kind === "node") return false;
  const ns = other.kind === "workload" ? other.workload.ns : other.ns;
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, r.nsLabels(ns)) : ns === policyNs;
  if (!nsOk) return false;
  if (other.kind === "workload") return selects(peer.podSelector, other.workload.labels);
  // A pod elsewhere whose labels this test cannot know: any podSelector is taken to match it.
  return other.labels ? selects(peer.podSelector, other.labels) : true;
}

function portMatches(
  ports: PolicyPort[] | undefined,
  port: number,
  protocol: string,
  named: Map<string, { port: number; protocol: string }> | undefined,
): boolean {
  if (!ports?.length) return true;
  return ports.some((p) => {
    if ((p.protocol ?? "TCP") !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === "number") return p.endPort ? port >= p.port && port <= p.endPort : p.port === port;
    return named?.get(p.port)?.port === port;
  });
}

/** Whether `w`'s egress policies let it connect to `to` on `port`. */
function egressAllows(r: Rendered, w: Workload, to: Endpoint, port: number, protocol = "TCP"): boolean {
  const policies = policiesOf(r, w, "Egress");
  if (policies.length === 0) return true; // not isolated for egress
  const named = to.kind === "workload" ? namedPorts(to.workload) : undefined;
  return policies.some((p) =>
    ((p.spec.egress ?? []) as Rule[]).some(
      (rule) =>
        portMatches(rule.ports, port, protocol, named) &&
        (!rule.to?.length || rule.to.some((peer) => peerMatches(r, peer, nsOf(p), to))),
    ),
  );
}

/** Whether `w`'s ingress policies admit a connection from `from` on its `port`. */
function ingressAllows(r: Rendered, w: Workload, from: Endpoint, port: number, protocol = "TCP"): boolean {
  const policies = policiesOf(r, w, "Ingress");
  if (policies.length === 0) return true;
  const named = namedPorts(w);
  return policies.some((p) =>
    ((p.spec.ingress ?? []) as Rule[]).some(
      (rule) =>
        portMatches(rule.ports, port, protocol, named) &&
        (!rule.from?.length || rule.from.some((peer) => peerMatches(r, peer, nsOf(p), from))),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// What the processes connect to: their *_URL / *_ENDPOINT variables

/** Environment variables naming something a process connects to (PUBLIC_URL is its own address). */
const isConnectionVariable = (name: string) => /(_URL|_ENDPOINT)$/.test(name) && name !== "PUBLIC_URL";

const DEFAULT_PORTS: Record<string, number> = {
  "http:": 80,
  "https:": 443,
  "nats:": 4222,
  "postgres:": 5432,
  "postgresql:": 5432,
  "smtp:": 587,
  "smtps:": 465,
};

const decode = (b64: string) => Buffer.from(b64, "base64").toString("utf8");

/** The data of a ConfigMap of the rendering (undefined: not in it). */
const configMapData = (r: Rendered, ns: string, name: string): Record<string, string> | undefined =>
  r.get("ConfigMap", name, ns)?.data;

/** The (decoded) data of a Secret of the rendering (undefined: not in it, e.g. created by hand). */
function secretData(r: Rendered, ns: string, name: string): Record<string, string> | undefined {
  const s = r.get("Secret", name, ns);
  if (!s) return undefined;
  return {
    ...Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, decode(v)])),
    ...s.stringData,
  };
}

/** Each container's connection variables, with their values where the rendering holds them. */
function connectionVariables(r: Rendered, w: Workload): { name: string; value: string | undefined }[] {
  const out: { name: string; value: string | undefined }[] = [];
  const configMap = (name: string) => configMapData(r, w.ns, name);
  const secret = (name: string) => secretData(r, w.ns, name);
  for (const c of w.pod.containers) {
    const vars = new Map<string, string | undefined>();
    for (const from of c.envFrom ?? []) {
      const data = from.configMapRef
        ? configMap(from.configMapRef.name)
        : from.secretRef
          ? secret(from.secretRef.name)
          : undefined;
      for (const [k, v] of Object.entries(data ?? {})) vars.set(k, v);
    }
    for (const e of c.env ?? []) {
      const ref = e.valueFrom;
      if (!ref) vars.set(e.name, e.value);
      else if (ref.configMapKeyRef)
        vars.set(e.name, configMap(ref.configMapKeyRef.name)?.[ref.configMapKeyRef.key]);
      else if (ref.secretKeyRef) {
        const value = secret(ref.secretKeyRef.name)?.[ref.secretKeyRef.key];
        // An optional key the rendering does not have (SMTP_URL): nothing to connect to.
        if (value !== undefined || !ref.secretKeyRef.optional) vars.set(e.name, value);
      }
    }
    for (const [name, value] of vars) if (isConnectionVariable(name)) out.push({ name, value });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the processes require: their config schemas (services/kit/src/config.ts)

/** Every service's module, whose `config` adds to baseServiceConfig (as test/support/boot.ts starts them). */
const SERVICE_MODULES = {
  catalog: catalogService,
  picking: pickingService,
  loadunits: loadUnitsService,
  carriers: carriersService,
  returns: returnsService,
  audit: auditService,
  notifications: notificationsService,
} satisfies Record<ServiceName, { config: ConfigSchema; ports: unknown }>;

/** The environment schema of the process a workload runs, and where it is declared. */
function configSchemaOf(p: Workload["process"]): { schema: ConfigSchema; what: string } | string | undefined {
  if (p?.kind === "gateway") return { schema: gatewayConfig, what: "gatewayConfig (gateway/src/config.ts)" };
  if (p?.kind !== "service") return undefined;
  if (!Object.hasOwn(SERVICE_MODULES, p.service))
    return `services/${p.service}: no ServiceModule known to this test (add it to SERVICE_MODULES)`;
  const name = p.service as ServiceName;
  return {
    schema: { ...baseServiceConfig(SERVICE_MODULES[name].ports), ...SERVICE_MODULES[name].config },
    what: `baseServiceConfig + the ${name} module's config`,
  };
}

/** A variable's schema requires it: no fallback and not optional (loadConfig). */
const requiredVariables = (schema: ConfigSchema): string[] =>
  Object.entries(schema)
    .filter(([, spec]) => spec.fallback === undefined && !spec.optional)
    .map(([name]) => name);

/**
 * What a container's environment sets, as Kubernetes resolves it (envFrom first, then env, a later
 * entry winning): whether each variable is provided, its value where the rendering holds it, and
 * where it comes from. Not provided: an empty value (loadConfig reads "" as unset), an optional
 * reference (the pod starts without it), a key a ConfigMap or Secret of the rendering lacks. A
 * Secret (or ConfigMap) the rendering does not have is taken to be created by hand, as production's
 * Secrets are, so a reference to it provides the variable, value unknown; unless the rendering
 * brings others of its kind in that namespace (dev generates all its Secrets): then it is missing.
 */
function containerEnv(
  r: Rendered,
  w: Workload,
  c: Container,
): Map<string, { provided: boolean; value: string | undefined; from: string }> {
  const vars = new Map<string, { provided: boolean; value: string | undefined; from: string }>();
  const set = (name: string, value: string | undefined, from: string, provided = value !== "") =>
    vars.set(name, { provided, value, from });
  for (const ef of c.envFrom ?? []) {
    const ref = ef.configMapRef ?? ef.secretRef;
    if (!ref) continue;
    const kind = ef.configMapRef ? "ConfigMap" : "Secret";
    const data = ef.configMapRef ? configMapData(r, w.ns, ref.name) : secretData(r, w.ns, ref.name);
    // Keys of a ConfigMap or Secret outside the rendering are unknown: they provide nothing here.
    for (const [k, v] of Object.entries(data ?? {}))
      set(`${ef.prefix ?? ""}${k}`, String(v), `envFrom ${kind} ${ref.name}`);
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom;
    const keyRef = ref?.configMapKeyRef ?? ref?.secretKeyRef;
    if (!ref) set(e.name, e.value === undefined ? "" : String(e.value), "env value");
    else if (keyRef) {
      const kind = ref.configMapKeyRef ? "ConfigMap" : "Secret";
      const from = `${kind} ${keyRef.name} key ${keyRef.key}${keyRef.optional ? " (optional)" : ""}`;
      const data = ref.configMapKeyRef
        ? configMapData(r, w.ns, keyRef.name)
        : secretData(r, w.ns, keyRef.name);
      const value = data?.[keyRef.key];
      if (keyRef.optional) set(e.name, value, from, false);
      else if (data === undefined && r.of(kind, w.ns).length > 0)
        set(e.name, undefined, `${from}: the rendering brings other ${kind}s, not this one`, false);
      else if (data === undefined) set(e.name, undefined, from, true);
      else set(e.name, value, value === undefined ? `${from}, which it lacks` : from, !!value);
    } else set(e.name, undefined, "env valueFrom", true); // fieldRef, resourceFieldRef
  }
  return vars;
}

interface Connection {
  what: string;
  to: Endpoint;
  port: number;
  protocol: string;
}

/**
 * Where a URL leads: a Service of the rendering (its pods and the container port its port maps
 * to), a Service of another namespace (`name.ns.svc...`), or an address outside the cluster.
 */
function connectionsTo(r: Rendered, w: Workload, what: string, url: URL): Connection[] | string {
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
  if (!port) return `${what}: no port for ${url.protocol}`;
  const host = url.hostname;
  const parts = host.split(".");
  const inCluster = parts.length === 1 || /\.svc(\.cluster\.local)?$/.test(host) || parts.length === 2;
  const ns = parts.length === 1 ? w.ns : parts[1]!;
  if (!inCluster) return [{ what, to: { kind: "external" }, port, protocol: "TCP" }];
  if (ns !== w.ns) return [{ what, to: { kind: "foreign-pod", ns }, port, protocol: "TCP" }];
  const service = r.get("Service", parts[0]!, w.ns);
  if (!service) return `${what}: names Service ${parts[0]}, which ${w.ns || "the rendering"} does not have`;
  const sp = (service.spec.ports ?? []).find((p: { port: number }) => p.port === port);
  if (!sp) return `${what}: Service ${parts[0]} has no port ${port}`;
  const backends = r.workloads.filter(
    (b) => b.ns === w.ns && selects({ matchLabels: service.spec.selector }, b.labels),
  );
  if (!backends.length) return `${what}: Service ${parts[0]} selects no workload`;
  const out: Connection[] = [];
  for (const b of backends) {
    const target = sp.targetPort ?? sp.port;
    const n = b.pod.containers.map((c) => portNumber(c, target)).find((x) => x !== undefined);
    if (n === undefined)
      return `${what}: Service ${parts[0]} port ${port} targets ${target}, which ${b.id} lacks`;
    out.push({ what, to: { kind: "workload", workload: b }, port: n, protocol: sp.protocol ?? "TCP" });
  }
  return out;
}

function describeEndpoint(e: Endpoint): string {
  if (e.kind === "workload") return e.workload.id;
  if (e.kind === "foreign-pod") return `a pod in namespace ${e.ns}`;
  return e.kind === "external" ? "an address outside the cluster" : "the node";
}

// ---------------------------------------------------------------------------------------------
// Quantities and drain times

function cpuMillis(q: string | number): number {
  const s = String(q);
  return s.endsWith("m") ? Number(s.slice(0, -1)) : Number(s) * 1000;
}

function memoryBytes(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  if (!m) return Number.NaN;
  const unit: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(m[1]) * (m[2] ? unit[m[2]]! : 1);
}

const source = (file: string) => readFileSync(path.join(REPO, file), "utf8");

/** The forced exit of a main module: setTimeout(() => process.exit(1), <ms>). */
function forcedExitMs(file: string): number {
  const m = /setTimeout\(\s*\(\)\s*=>\s*process\.exit\(1\),\s*([\d_]+)\s*\)/.exec(source(file));
  if (!m)
    throw new Error(`${file}: no forced exit on shutdown found: the shutdown changed, update this test`);
  return Number(m[1]!.replaceAll("_", ""));
}

function constantMs(file: string, name: string): number {
  const m = new RegExp(`const ${name} = ([\\d_]+);`).exec(source(file));
  if (!m) throw new Error(`${file}: ${name} not found: update this test`);
  return Number(m[1]!.replaceAll("_", ""));
}

/** Seconds a preStop hook sleeps (exec `sleep N`, or the sleep action). */
function preStopSleepS(c: Container): number {
  const hook = c.lifecycle?.preStop;
  if (!hook) return 0;
  if (hook.sleep) return hook.sleep.seconds;
  const m = /(?:^|[\s;&|])sleep\s+(\d+)/.exec((hook.exec?.command ?? []).join(" "));
  return m ? Number(m[1]) : 0;
}

const durationS = (text: string | undefined) => {
  const m = /^"?(\d+)(ms|s|m|h)"?$/.exec(text ?? "");
  if (!m) return 0;
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] as "ms" | "s" | "m" | "h"];
};

// ---------------------------------------------------------------------------------------------
// Monitoring: the metrics the processes expose, and the PromQL of the alerts and the dashboard

/** Labels Prometheus adds to every sample of a PodMonitor's targets, and `service`, which every process's registry sets. */
const TARGET_LABELS = ["namespace", "pod", "container", "endpoint", "instance", "job", "service"];

/**
 * Every series name the platform's processes expose, with its labels: the kit's catalog
 * (services/kit/src/metrics.ts, METRICS: what the processes create their families from) and
 * prom-client's default process metrics, histograms as their _bucket (with `le`), _sum and _count.
 */
async function exposedSeries(): Promise<Map<string, Set<string>>> {
  const series = new Map<string, Set<string>>();
  const add = (name: string, type: string, labels: Iterable<string>) => {
    const names = type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
    for (const n of names) {
      const set = new Set([...labels, ...TARGET_LABELS]);
      if (n.endsWith("_bucket")) set.add("le");
      series.set(n, set);
    }
  };
  for (const def of Object.values(METRICS)) add(def.name, def.type, def.labelNames);
  const probe = createMetrics("probe");
  for (const m of await probe.registry.getMetricsAsJSON()) {
    const labels = new Set<string>();
    for (const v of m.values as { labels: Record<string, unknown> }[])
      for (const l of Object.keys(v.labels)) if (l !== "le") labels.add(l);
    add(m.name, String(m.type), labels);
  }
  return series;
}

const PROMQL_AGGREGATIONS = new Set([
  "sum",
  "min",
  "max",
  "avg",
  "group",
  "stddev",
  "stdvar",
  "count",
  "count_values",
  "bottomk",
  "topk",
  "quantile",
  "limitk",
  "limit_ratio",
]);
const PROMQL_GROUPING = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);
const PROMQL_KEYWORDS = new Set(["bool", "and", "or", "unless", "offset", "atan2", "nan", "inf"]);
const PROMQL_FUNCTIONS = new Set(
  (
    "abs absent absent_over_time avg_over_time ceil changes clamp clamp_max clamp_min count_over_time day_of_month " +
    "day_of_week day_of_year days_in_month delta deriv exp floor histogram_avg histogram_count histogram_fraction " +
    "histogram_quantile histogram_stddev histogram_stdvar histogram_sum hour idelta increase irate label_join " +
    "label_replace last_over_time ln log10 log2 max_over_time min_over_time minute month predict_linear " +
    "present_over_time quantile_over_time rate resets round scalar sgn sort sort_desc sqrt stddev_over_time " +
    "stdvar_over_time sum_over_time time timestamp vector year"
  ).split(" "),
);

interface PromqlAnalysis {
  /** Series selected, with the labels their matchers name. */
  selectors: { metric: string; labels: string[] }[];
  /** Labels named in by / without / on / ignoring / group_left / group_right. */
  grouping: string[];
  problems: string[];
}

/**
 * What a PromQL expression selects: metric names (with their matchers' labels) and grouping labels,
 * by its tokens (strings, comments and [range] parts skipped), and what does not look right
 * (unbalanced brackets, an unknown function, a selector without a metric name).
 */
function analyzePromql(expr: string): PromqlAnalysis {
  type Token = { kind: "id" | "op" | "str" | "num" | "range"; text: string };
  const tokens: Token[] = [];
  const problems: string[] = [];
  for (let i = 0; i < expr.length; ) {
    const c = expr[i]!;
    if (/\s/.test(c)) i++;
    else if (c === "#") while (i < expr.length && expr[i] !== "\n") i++;
    else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < expr.length && expr[j] !== c) j += expr[j] === "\\" && c !== "`" ? 2 : 1;
      if (j >= expr.length) problems.push("unterminated string");
      tokens.push({ kind: "str", text: expr.slice(i, j + 1) });
      i = j + 1;
    } else if (c === "[") {
      const j = expr.indexOf("]", i);
      if (j < 0) problems.push("unterminated [");
      tokens.push({ kind: "range", text: expr.slice(i, j + 1) });
      i = j < 0 ? expr.length : j + 1;
    } else if (/[a-zA-Z_:]/.test(c)) {
      const id = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))![0];
      tokens.push({ kind: "id", text: id });
      i += id.length;
    } else if (/[0-9.]/.test(c)) {
      // A duration (offset 1h30m) or a number.
      const num =
        /^([0-9]+(ms|[smhdwy]))+(?![a-zA-Z0-9_])|^(0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?)/.exec(
          expr.slice(i),
        )?.[0] ?? c;
      tokens.push({ kind: "num", text: num });
      i += num.length;
    } else {
      const op = /^(=~|!~|!=|==|>=|<=|[(){},=<>+\-*/%^])/.exec(expr.slice(i))?.[0];
      if (!op) {
        problems.push(`unexpected ${c}`);
        i++;
        continue;
      }
      tokens.push({ kind: "op", text: op });
      i += op.length;
    }
  }
  const depth = { "(": 0, "{": 0 };
  for (const t of tokens) {
    if (t.text === "(" || t.text === "{") depth[t.text]++;
    if (t.text === ")") depth["("]--;
    if (t.text === "}") depth["{"]--;
    if (depth["("] < 0 || depth["{"] < 0) problems.push(`unbalanced ${t.text}`);
  }
  if (depth["("] || depth["{"]) problems.push("unbalanced brackets");
  const selectors: PromqlAnalysis["selectors"] = [];
  const grouping: string[] = [];
  /** The labels of a {...} matcher list starting at tokens[k] ("{"); returns the index after "}". */
  const matchers = (k: number, labels: string[]): number => {
    let j = k + 1;
    while (j < tokens.length && tokens[j]!.text !== "}") {
      const [name, op, value] = [tokens[j], tokens[j + 1], tokens[j + 2]];
      if (name?.kind !== "id" || !["=", "!=", "=~", "!~"].includes(op?.text ?? "") || value?.kind !== "str") {
        problems.push(
          `bad matcher near ${tokens
            .slice(j, j + 3)
            .map((t) => t.text)
            .join(" ")}`,
        );
        return tokens.findIndex((t, x) => x > j && t.text === "}") + 1 || tokens.length;
      }
      labels.push(name.text);
      j += 3;
      if (tokens[j]?.text === ",") j++;
    }
    return j + 1;
  };
  for (let k = 0; k < tokens.length; ) {
    const t = tokens[k]!;
    const next = tokens[k + 1];
    if (t.kind === "op" && t.text === "{") {
      problems.push("a selector without a metric name");
      k = matchers(k, []);
    } else if (t.kind !== "id") k++;
    else if (PROMQL_GROUPING.has(t.text) && next?.text === "(") {
      let j = k + 2;
      for (; j < tokens.length && tokens[j]!.text !== ")"; j++)
        if (tokens[j]!.kind === "id") grouping.push(tokens[j]!.text);
      k = j + 1;
    } else if (PROMQL_GROUPING.has(t.text) || PROMQL_KEYWORDS.has(t.text.toLowerCase())) k++;
    else if (PROMQL_AGGREGATIONS.has(t.text)) k++;
    else if (next?.text === "(") {
      if (!PROMQL_FUNCTIONS.has(t.text)) problems.push(`unknown function ${t.text}`);
      k++;
    } else {
      const labels: string[] = [];
      k = next?.text === "{" ? matchers(k + 1, labels) : k + 1;
      selectors.push({ metric: t.text, labels });
    }
  }
  return { selectors, grouping, problems };
}

/** What in `expr` the processes do not expose (names, labels), and what is malformed. */
function promqlProblems(expr: string, exposed: Map<string, Set<string>>): string[] {
  const a = analyzePromql(expr);
  const problems = [...a.problems];
  if (!a.selectors.length) problems.push("selects no metric");
  const known = new Set<string>();
  for (const s of a.selectors) {
    const labels = exposed.get(s.metric);
    if (!labels) {
      problems.push(`${s.metric} is not exposed by any process`);
      continue;
    }
    for (const l of labels) known.add(l);
    for (const l of s.labels) if (!labels.has(l)) problems.push(`${s.metric} has no label ${l}`);
  }
  for (const l of a.grouping)
    if (a.selectors.every((s) => exposed.has(s.metric)) && !known.has(l))
      problems.push(`groups by ${l}, which none of its metrics has`);
  return problems;
}

/** The PromQL of a Grafana dashboard: its panels' targets and its query variables' selectors. */
function dashboardQueries(dashboard: any): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  const panels = (list: any[]): void => {
    for (const p of list ?? []) {
      for (const t of p.targets ?? [])
        if (t.expr) out.push({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr });
      panels(p.panels);
    }
  };
  panels(dashboard.panels);
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== "query") continue;
    const q = typeof v.query === "string" ? v.query : v.query?.query;
    // label_values(<selector>, <label>): the selector is PromQL; the label must be one of its.
    const m = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(q ?? "");
    if (m) out.push({ where: `variable ${v.name}`, expr: `group by (${m[2]}) (${m[1]})` });
    else if (q) out.push({ where: `variable ${v.name}`, expr: q });
  }
  return out;
}

/** GitHub's anchors of the headings of deploy/RUNBOOK.md (where the alerts' runbook_url point). */
function runbookAnchors(): Set<string> {
  const anchors = new Set<string>();
  for (const m of source("deploy/RUNBOOK.md").matchAll(/^#{1,6}\s+(.+?)\s*$/gm))
    anchors.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  return anchors;
}

describe("analyzePromql (the check of the rules and dashboards)", () => {
  it("finds metric names with their matchers' labels and the grouping labels, and nothing else", () => {
    const a = analyzePromql(
      'histogram_quantile(0.99, sum by (le, route) (rate(req_seconds_bucket{code=~"5..", a!="x{y}"}[5m] offset 1h)))' +
        " / on (ns) group_left (pod) max without (x) (up) > bool 0.5 unless absent(other_total)",
    );
    expect(a.problems).toEqual([]);
    expect(a.selectors).toEqual([
      { metric: "req_seconds_bucket", labels: ["code", "a"] },
      { metric: "up", labels: [] },
      { metric: "other_total", labels: [] },
    ]);
    expect(a.grouping).toEqual(["le", "route", "ns", "pod", "x"]);
    expect(analyzePromql('rat(x[5m]) + {a="b"} + sum(y').problems).toEqual([
      "unbalanced brackets",
      "unknown function rat",
      "a selector without a metric name",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

const serviceDirs = readdirSync(path.join(REPO, "services"), { withFileTypes: true })
  .filter(
    (d) =>
      d.isDirectory() && d.name !== "kit" && existsSync(path.join(REPO, "services", d.name, "package.json")),
  )
  .map((d) => d.name)
  .sort();

describe.skipIf(!renderer)(`deploy/k8s rendered with ${renderer?.what ?? "nothing"}`, () => {
  describe.each(variants)("$name", (variant) => {
    let r: Rendered;
    beforeAll(() => {
      const { dir, cleanup } = variant.prepare();
      try {
        r = parse(renderer!.render(dir));
      } finally {
        cleanup?.();
      }
    });

    it("has a workload for every process: each service in services/* (but kit), the gateway, db-setup", () => {
      const problems: string[] = [];
      for (const svc of serviceDirs) {
        if (!(svc in SERVICE_PORTS)) problems.push(`services/${svc} has no ports in SERVICE_PORTS`);
        const w = r.workloads.filter((x) => x.process?.kind === "service" && x.process.service === svc);
        if (w.length !== 1) problems.push(`services/${svc}: ${w.length} workloads run it (want 1)`);
        else if (w[0]!.kind !== "Deployment" || w[0]!.name !== svc)
          problems.push(`services/${svc} runs in ${w[0]!.id}, expected Deployment/${svc}`);
      }
      const gateway = r.workloads.filter((x) => x.process?.kind === "gateway");
      if (gateway.length !== 1 || gateway[0]!.id !== "Deployment/gateway")
        problems.push(
          `the gateway runs in [${gateway.map((g) => g.id).join(", ")}], expected Deployment/gateway`,
        );
      if (!r.workloads.some((x) => x.process?.kind === "db-setup" && x.kind === "Job"))
        problems.push("no Job runs db-setup (deploy/local/src/db-setup.ts)");
      // Services (the URLs the processes use) reach pods, on ports that exist.
      for (const s of r.of("Service")) {
        const backends = r.workloads.filter(
          (w) => w.ns === nsOf(s) && selects({ matchLabels: s.spec.selector }, w.labels),
        );
        if (!backends.length) problems.push(`Service ${s.metadata.name} selects no workload`);
        for (const b of backends)
          for (const p of s.spec.ports ?? [])
            if (b.pod.containers.every((c) => portNumber(c, p.targetPort ?? p.port) === undefined))
              problems.push(`Service ${s.metadata.name} port ${p.port}: ${b.id} has no port ${p.targetPort}`);
      }
      expect(problems).toEqual([]);
    });

    it("environment: each service and the gateway get every variable their config requires, with values it accepts", () => {
      const problems: string[] = [];
      for (const w of r.workloads) {
        const found = configSchemaOf(w.process);
        if (found === undefined) continue;
        if (typeof found === "string") {
          problems.push(`${w.id}: ${found}`);
          continue;
        }
        for (const c of w.pod.containers.filter((x) => processOf([x]))) {
          const at = `${w.id} ${c.name}`;
          const vars = containerEnv(r, w, c);
          for (const name of requiredVariables(found.schema)) {
            const v = vars.get(name);
            if (!v?.provided)
              problems.push(
                `${at}: ${name} is required by ${found.what} but ${v ? `not provided (${v.from})` : "not set"}`,
              );
          }
          // The values the rendering holds, parsed as the process will (a dev key too short, ...).
          for (const [name, v] of vars) {
            const spec = found.schema[name];
            if (!spec || !v.provided || v.value === undefined || v.value.includes("$(")) continue;
            try {
              spec.parse(v.value);
            } catch (err) {
              problems.push(`${at}: ${name} (${v.from}) is refused: ${(err as Error).message}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it("admin endpoints: every service gets ADMIN_TOKEN from a Secret and no ADMIN_LOOPBACK_TRUST (dead letters fail closed)", () => {
      const problems: string[] = [];
      for (const w of r.workloads.filter((x) => x.process?.kind === "service")) {
        for (const c of w.pod.containers.filter((x) => processOf([x]))) {
          const vars = containerEnv(r, w, c);
          const token = vars.get("ADMIN_TOKEN");
          if (!token?.provided)
            problems.push(
              `${w.id} ${c.name}: ADMIN_TOKEN ${token ? `not provided (${token.from})` : "not set"}`,
            );
          else if (!token.from.startsWith("Secret"))
            problems.push(`${w.id} ${c.name}: ADMIN_TOKEN from ${token.from}, not a Secret`);
          const trust = vars.get("ADMIN_LOOPBACK_TRUST");
          if (trust?.provided)
            problems.push(
              `${w.id} ${c.name}: ADMIN_LOOPBACK_TRUST is set (${trust.from}): a developer's machine only`,
            );
        }
      }
      expect(problems).toEqual([]);
    });

    it("probes: readiness and liveness on every long-running container; httpGet on the admin port (services) or the HTTP port (gateway)", () => {
      const problems: string[] = [];
      for (const w of r.workloads.filter((x) => x.longRunning)) {
        for (const c of w.pod.containers) {
          const at = `${w.id} ${c.name}`;
          for (const kind of ["readinessProbe", "livenessProbe"] as const)
            if (!c[kind]) problems.push(`${at}: no ${kind}`);
          // Every probe's port is one the container has.
          for (const kind of ["readinessProbe", "livenessProbe", "startupProbe"] as const) {
            const port = c[kind]?.httpGet?.port ?? c[kind]?.tcpSocket?.port;
            if (port !== undefined && portNumber(c, port) === undefined)
              problems.push(`${at}: ${kind} on port ${port}, which the container does not have`);
          }
        }
        const p = w.process;
        if (p?.kind !== "service" && p?.kind !== "gateway") continue;
        const c = w.pod.containers.find((x) => processOf([x]));
        if (!c) continue;
        const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
        const expected =
          p.kind === "service"
            ? {
                port: SERVICE_PORTS[p.service as keyof typeof SERVICE_PORTS]?.admin,
                env: "ADMIN_PORT",
                what: "admin",
              }
            : { port: 8080, env: "PORT", what: "HTTP" };
        if (expected.port === undefined) continue; // reported above
        if (env[expected.env] !== undefined && Number(env[expected.env]) !== expected.port)
          problems.push(`${w.id}: ${expected.env}=${env[expected.env]}, expected ${expected.port}`);
        if (p.kind === "service") {
          const rpc = SERVICE_PORTS[p.service as keyof typeof SERVICE_PORTS].rpc;
          if (env.PORT !== undefined && Number(env.PORT) !== rpc)
            problems.push(`${w.id}: PORT=${env.PORT}, expected ${rpc}`);
          if (!c.ports?.some((x) => x.containerPort === rpc))
            problems.push(`${w.id}: no container port ${rpc} (RPC)`);
        }
        const paths = {
          livenessProbe: "/healthz",
          readinessProbe: "/readyz",
          startupProbe: "/healthz",
        } as const;
        for (const [kind, want] of Object.entries(paths) as [keyof typeof paths, string][]) {
          const probe = c[kind];
          if (!probe) continue;
          if (!probe.httpGet) {
            problems.push(`${w.id}: ${kind} is not httpGet`);
            continue;
          }
          if (portNumber(c, probe.httpGet.port) !== expected.port)
            problems.push(
              `${w.id}: ${kind} on port ${probe.httpGet.port}, not the ${expected.what} port ${expected.port}`,
            );
          if (probe.httpGet.path !== want)
            problems.push(`${w.id}: ${kind} path ${probe.httpGet.path}, want ${want}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it("resources: cpu and memory requests and limits on every container, requests within limits", () => {
      const problems: string[] = [];
      for (const w of r.workloads)
        for (const c of allContainers(w)) {
          const { requests = {}, limits = {} } = c.resources ?? {};
          const at = `${w.id} ${c.name}`;
          for (const [what, q] of Object.entries({
            "requests.cpu": requests.cpu,
            "requests.memory": requests.memory,
            "limits.cpu": limits.cpu,
            "limits.memory": limits.memory,
          }))
            if (q === undefined) problems.push(`${at}: no ${what}`);
          if (
            requests.cpu !== undefined &&
            limits.cpu !== undefined &&
            cpuMillis(requests.cpu) > cpuMillis(limits.cpu)
          )
            problems.push(`${at}: cpu request ${requests.cpu} above its limit ${limits.cpu}`);
          if (
            requests.memory !== undefined &&
            limits.memory !== undefined &&
            !(memoryBytes(requests.memory) <= memoryBytes(limits.memory))
          )
            problems.push(`${at}: memory request ${requests.memory} above its limit ${limits.memory}`);
        }
      expect(problems).toEqual([]);
    });

    it("security context: non-root, read-only root filesystem, no privilege escalation (the restricted Pod Security Standard)", () => {
      const problems: string[] = [];
      for (const w of r.workloads) {
        const pod = w.pod.securityContext ?? {};
        if (w.pod.hostNetwork || w.pod.hostPID || w.pod.hostIPC) problems.push(`${w.id}: host namespaces`);
        for (const v of w.pod.volumes ?? [])
          if (v.hostPath) problems.push(`${w.id}: hostPath volume ${v.name}`);
        for (const c of allContainers(w)) {
          const sc = c.securityContext ?? {};
          const at = `${w.id} ${c.name}`;
          if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true)
            problems.push(`${at}: runAsNonRoot is not true`);
          if ((sc.runAsUser ?? pod.runAsUser) === 0) problems.push(`${at}: runs as uid 0`);
          if (sc.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem is not true`);
          if (sc.allowPrivilegeEscalation !== false)
            problems.push(`${at}: allowPrivilegeEscalation is not false`);
          if (sc.privileged) problems.push(`${at}: privileged`);
          if (!(sc.capabilities?.drop ?? []).includes("ALL"))
            problems.push(`${at}: capabilities not dropped (ALL)`);
          const added = (sc.capabilities?.add ?? []).filter((x: string) => x !== "NET_BIND_SERVICE");
          if (added.length) problems.push(`${at}: adds capabilities ${added.join(", ")}`);
          const seccomp = (sc.seccompProfile ?? pod.seccompProfile)?.type;
          if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost")
            problems.push(`${at}: seccompProfile ${seccomp}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it("a PodDisruptionBudget for every long-running workload: exactly one, allowing a disruption", () => {
      const problems: string[] = [];
      const pdbs = r.of("PodDisruptionBudget");
      const hpaMin = (w: Workload) =>
        r
          .of("HorizontalPodAutoscaler", w.ns)
          .find((h) => h.spec.scaleTargetRef.kind === w.kind && h.spec.scaleTargetRef.name === w.name)?.spec
          .minReplicas as number | undefined;
      for (const w of r.workloads.filter((x) => x.longRunning)) {
        const mine = pdbs.filter((p) => nsOf(p) === w.ns && selects(p.spec.selector, w.labels));
        // Two budgets on one pod make the eviction API refuse to evict it at all.
        if (mine.length !== 1)
          problems.push(`${w.id}: ${mine.length} PodDisruptionBudgets (${mine.map((p) => p.metadata.name)})`);
        const replicas = hpaMin(w) ?? w.obj.spec.replicas ?? 1;
        for (const p of mine) {
          const { minAvailable, maxUnavailable } = p.spec;
          if (maxUnavailable === 0 || maxUnavailable === "0%")
            problems.push(`${w.id}: PDB ${p.metadata.name} allows no disruption (node drains block)`);
          if (typeof minAvailable === "number" && minAvailable >= replicas)
            problems.push(
              `${w.id}: PDB ${p.metadata.name} minAvailable ${minAvailable} >= ${replicas} replicas`,
            );
          if (minAvailable === "100%") problems.push(`${w.id}: PDB ${p.metadata.name} minAvailable 100%`);
        }
      }
      for (const p of pdbs)
        if (!r.workloads.some((w) => w.ns === nsOf(p) && w.longRunning && selects(p.spec.selector, w.labels)))
          problems.push(`PDB ${p.metadata.name} selects no long-running workload`);
      expect(problems).toEqual([]);
    });

    it("NetworkPolicies of both types, Ingress and Egress, select every workload", () => {
      const problems: string[] = [];
      for (const w of r.workloads)
        for (const type of ["Ingress", "Egress"] as const)
          if (!policiesOf(r, w, type).length) problems.push(`${w.id}: no ${type} NetworkPolicy selects it`);
      for (const p of r.of("NetworkPolicy"))
        if (!r.workloads.some((w) => w.ns === nsOf(p) && selects(p.spec.podSelector, w.labels)))
          problems.push(`NetworkPolicy ${p.metadata.name} selects no workload`);
      expect(problems).toEqual([]);
    });

    it("the NetworkPolicies allow what the processes connect to (both ends), DNS and the kubelet's probes", () => {
      const problems: string[] = [];
      const dns: Endpoint = { kind: "foreign-pod", ns: "kube-system", labels: { "k8s-app": "kube-dns" } };
      for (const w of r.workloads.filter((x) => x.process)) {
        for (const protocol of ["UDP", "TCP"])
          if (!egressAllows(r, w, dns, 53, protocol))
            problems.push(`${w.id}: no egress to DNS (${protocol} 53)`);
        const connections: Connection[] = [];
        for (const { name, value } of connectionVariables(r, w)) {
          if (value === undefined) {
            // A Secret the overlay expects to exist (production): the URL is unknown; a database URL
            // is taken to be an external Postgres on its default port.
            if (/DATABASE_URL$/.test(name))
              connections.push({
                what: `${name} (not in the rendering)`,
                to: { kind: "external" },
                port: 5432,
                protocol: "TCP",
              });
            continue;
          }
          for (const one of value.split(",").filter((x) => x.trim())) {
            let url: URL;
            try {
              url = new URL(one.trim());
            } catch {
              problems.push(`${w.id}: ${name}=${one} is not a URL`);
              continue;
            }
            const found = connectionsTo(r, w, `${name}=${url.protocol}//${url.host}`, url);
            if (typeof found === "string") problems.push(`${w.id}: ${found}`);
            else connections.push(...found);
          }
        }
        for (const c of connections) {
          if (!egressAllows(r, w, c.to, c.port, c.protocol))
            problems.push(
              `${w.id}: ${c.what}: its egress does not allow ${describeEndpoint(c.to)} port ${c.port}`,
            );
          if (
            c.to.kind === "workload" &&
            !ingressAllows(r, c.to.workload, { kind: "workload", workload: w }, c.port, c.protocol)
          )
            problems.push(`${w.id}: ${c.what}: ${c.to.workload.id} does not admit it on port ${c.port}`);
        }
      }
      for (const w of r.workloads.filter((x) => x.longRunning))
        for (const c of w.pod.containers)
          for (const kind of ["readinessProbe", "livenessProbe", "startupProbe"] as const) {
            const raw = c[kind]?.httpGet?.port ?? c[kind]?.tcpSocket?.port;
            const port = raw === undefined ? undefined : portNumber(c, raw);
            if (port !== undefined && !ingressAllows(r, w, { kind: "node" }, port))
              problems.push(`${w.id}: ${kind} port ${port} is not open to the node`);
          }
      expect(problems).toEqual([]);
    });

    it("terminationGracePeriodSeconds exceeds the preStop sleep plus the process's drain", () => {
      // Services: runMain forces the exit this long after SIGTERM; the RPC server's grace for running
      // calls lies within it. The gateway: its main.ts, likewise.
      const rpcGraceMs = constantMs("services/kit/src/rpc/server.ts", "RPC_SHUTDOWN_GRACE_MS");
      const serviceDrainS = Math.max(forcedExitMs("services/kit/src/service.ts"), rpcGraceMs) / 1000;
      const gatewayDrainS = forcedExitMs("gateway/src/main.ts") / 1000;
      const problems: string[] = [];
      for (const w of r.workloads.filter((x) => x.longRunning)) {
        const grace = w.pod.terminationGracePeriodSeconds ?? 30;
        let drainS =
          w.process?.kind === "service" ? serviceDrainS : w.process?.kind === "gateway" ? gatewayDrainS : 0;
        // NATS in lame-duck mode (its preStop) closes its clients over lame_duck_duration, after
        // lame_duck_grace_period.
        for (const v of w.pod.volumes ?? []) {
          const conf = Object.values(
            (v.configMap && r.get("ConfigMap", v.configMap.name, w.ns)?.data) ?? {},
          ).join("\n");
          const ldm = /lame_duck_duration:\s*(\S+)/.exec(conf);
          if (ldm)
            drainS = Math.max(
              drainS,
              durationS(ldm[1]) + durationS(/lame_duck_grace_period:\s*(\S+)/.exec(conf)?.[1] ?? "10s"),
            );
        }
        const sleepS = Math.max(0, ...w.pod.containers.map(preStopSleepS));
        if (!(grace > sleepS + drainS))
          problems.push(
            `${w.id}: terminationGracePeriodSeconds ${grace} <= preStop ${sleepS} s + drain ${drainS} s`,
          );
      }
      expect(problems).toEqual([]);
    });

    it("HorizontalPodAutoscalers target existing workloads, which leave `replicas` to them", () => {
      const problems: string[] = [];
      for (const h of r.of("HorizontalPodAutoscaler")) {
        const ref = h.spec.scaleTargetRef;
        const w = r.workloads.find((x) => x.ns === nsOf(h) && x.kind === ref.kind && x.name === ref.name);
        if (!w) problems.push(`HPA ${h.metadata.name}: no ${ref.kind}/${ref.name}`);
        else if (w.obj.spec.replicas !== undefined)
          problems.push(
            `HPA ${h.metadata.name}: ${w.id} sets replicas (${w.obj.spec.replicas}), which every apply resets`,
          );
        if (!(h.spec.minReplicas <= h.spec.maxReplicas))
          problems.push(`HPA ${h.metadata.name}: min above max`);
      }
      expect(problems).toEqual([]);
    });

    it("monitoring: PodMonitors scrape each process's metrics port once; alerts and dashboards name only metrics and labels the processes expose", async () => {
      const problems: string[] = [];
      const exposed = await exposedSeries();
      const rules = r.of("PrometheusRule");
      const dashboards = r.of("ConfigMap").filter((c) => c.metadata.labels?.grafana_dashboard === "1");
      const monitors = r.of("PodMonitor");
      if (variant.name === "overlays/production")
        for (const [what, found] of [
          ["PrometheusRule", rules],
          ["PodMonitor", monitors],
          ["Grafana dashboard ConfigMap", dashboards],
        ] as const)
          if (!found.length) problems.push(`no ${what} (components/monitoring)`);
      if (monitors.length) {
        const scraped = new Map<string, number>();
        for (const pm of monitors) {
          const at = `PodMonitor ${pm.metadata.name}`;
          const selected = r.workloads.filter(
            (w) => w.ns === nsOf(pm) && w.longRunning && selects(pm.spec.selector, w.labels),
          );
          if (!selected.length) problems.push(`${at} selects no workload`);
          for (const w of selected)
            for (const ep of pm.spec.podMetricsEndpoints ?? []) {
              const port = namedPorts(w).get(ep.port);
              const p = w.process;
              const want =
                p?.kind === "service"
                  ? SERVICE_PORTS[p.service as keyof typeof SERVICE_PORTS]?.admin
                  : p?.kind === "gateway"
                    ? 8080
                    : undefined;
              if (!port) problems.push(`${at}: ${w.id} has no port named ${ep.port}`);
              else if (want !== undefined && port.port !== want)
                problems.push(`${at}: scrapes ${w.id} on ${port.port}, not its metrics port ${want}`);
              if ((ep.path ?? "/metrics") !== "/metrics") problems.push(`${at}: path ${ep.path}`);
              scraped.set(w.id, (scraped.get(w.id) ?? 0) + 1);
            }
        }
        for (const w of r.workloads.filter(
          (x) => x.process?.kind === "service" || x.process?.kind === "gateway",
        ))
          if (scraped.get(w.id) !== 1)
            problems.push(`${w.id}: scraped by ${scraped.get(w.id) ?? 0} PodMonitor endpoints, want 1`);
      }
      const anchors = runbookAnchors();
      for (const rule of rules)
        for (const g of rule.spec.groups ?? [])
          for (const x of g.rules ?? []) {
            const at = `PrometheusRule ${rule.metadata.name}, ${g.name}, ${x.alert ?? x.record}`;
            for (const p of promqlProblems(String(x.expr), exposed)) problems.push(`${at}: ${p}`);
            if (!x.alert) continue;
            if (!["critical", "warning", "info"].includes(x.labels?.severity))
              problems.push(`${at}: severity ${x.labels?.severity}`);
            if (!x.annotations?.summary || !x.annotations?.description)
              problems.push(`${at}: no summary or description`);
            const anchor = /^deploy\/RUNBOOK\.md#(.+)$/.exec(x.annotations?.runbook_url ?? "")?.[1];
            if (!anchor || !anchors.has(anchor))
              problems.push(
                `${at}: runbook_url ${x.annotations?.runbook_url} is no heading of deploy/RUNBOOK.md`,
              );
          }
      for (const cm of dashboards)
        for (const [key, text] of Object.entries(cm.data ?? {})) {
          const at = `ConfigMap ${cm.metadata.name} ${key}`;
          let dashboard: any;
          try {
            dashboard = JSON.parse(text);
          } catch (err) {
            problems.push(`${at}: not JSON (${(err as Error).message})`);
            continue;
          }
          if (!dashboard.uid || !dashboard.title) problems.push(`${at}: no uid or title`);
          const queries = dashboardQueries(dashboard);
          if (!queries.length) problems.push(`${at}: no queries`);
          for (const q of queries)
            for (const p of promqlProblems(q.expr, exposed)) problems.push(`${at}, ${q.where}: ${p}`);
        }
      expect(problems).toEqual([]);
    });
  });
});

if (!renderer) {
  describe("deploy/k8s manifests", () => {
    it.skip(`not rendered: ${"missing" in found ? found.missing : ""}`, () => {});
  });
}
