/**
 * A rolling restart under load loses nothing: every process is rolled, one by one, while loops of
 * reads and writes go through the gateway. Every request must succeed as it would without the
 * restarts (a 503/504 or a broken connection is a failure, a write too), and every write must end up
 * in the audit log exactly once.
 *
 * - Each service runs as its own process; in turn each gets SIGTERM, drains, exits and starts again
 *   on the same ports (no load balancer: the gateway's connection to the new process is a new one to
 *   the same address).
 * - The gateway runs as 2 processes behind an endpoints proxy standing in for their Service
 *   (support/endpoints-proxy.ts: per connection, round robin over its endpoints, as kube-proxy does;
 *   no retries). The load's keep-alive connections stay on a gateway after it left the endpoints, so
 *   its drain must answer what they still send and move them (Connection: close) before it closes. Each is replaced as Kubernetes rolls the gateway Deployment (maxSurge 1,
 *   maxUnavailable 0; deploy/k8s/base/gateway.yaml): a new process starts on a new port and, once its
 *   /readyz says 200, becomes an endpoint; the old one leaves the endpoints, and after the preStop
 *   sleep (shortened) gets SIGTERM and must exit 0 on its own within the grace period.
 */
import { describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import {
  type ApiResponse,
  eventually,
  type GatewayProcess,
  type GatewayReplicas,
  type ProcessExit,
  SERVICE_NAMES,
  type ServiceName,
  type System,
  startSystem,
} from "../../support/system.ts";

const SERVICES = SERVICE_NAMES;

type Api = ReturnType<System["as"]>;

const GATEWAY_REPLICAS = 2;
/** The gateway pod's preStop sleep (5 s in the manifest): time for the endpoint removal to spread. */
const PRE_STOP_MS = 1000;
/** terminationGracePeriodSeconds (30): preStop and the drain together, then SIGKILL. */
const GRACE_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Failure {
  request: string;
  status: number;
  body: string;
  at: number;
}

/** Every request of the loops, and the writes the audit log must show (entityRef@version). */
class Load {
  readonly failures: Failure[] = [];
  readonly writes = new Map<string, string>(); // entityRef@version -> operation
  requests = 0;
  /** Requests that took over a second (they waited for a restarting service), and the longest. */
  slow = 0;
  longestMs = 0;
  private readonly started = Date.now();
  private readonly api: Api;
  constructor(api: Api) {
    this.api = api;
  }

  /** Sends a request that must answer `expected`; a thrown error (a connection refused) counts too. */
  async send(
    expected: number,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse | undefined> {
    this.requests++;
    const request = `${method} ${path}`;
    const at = Date.now() - this.started;
    try {
      const res = await this.api(method, path, body);
      const ms = Date.now() - this.started - at;
      if (ms > 1000) this.slow++;
      this.longestMs = Math.max(this.longestMs, ms);
      if (res.status !== expected) {
        this.failures.push({ request, status: res.status, body: res.text.slice(0, 300), at });
        return undefined;
      }
      return res;
    } catch (err) {
      this.failures.push({ request, status: 0, body: String(err), at });
      return undefined;
    }
  }

  wrote(entityRef: string, version: number, operation: string) {
    this.writes.set(`${entityRef}@${version}`, operation);
  }
}

/** create a category, read it, replace it on its version, read it, search. */
async function categories(load: Load, n: number) {
  const created = await load.send(201, "POST", "/api/categories", {
    nameLocalized: { en_US: `rolling ${n}` },
  });
  if (!created) return;
  const id = created.body.id as string;
  load.wrote(id, 1, "CATEGORY_CREATED");
  const read = await load.send(200, "GET", `/api/categories/${id}`);
  if (read && read.body.version !== 1)
    load.failures.push({ request: `GET ${id}`, status: 200, body: "version", at: 0 });
  const replaced = await load.send(200, "PUT", `/api/categories/${id}`, {
    version: 1,
    nameLocalized: { en_US: `rolling ${n} (2)` },
  });
  if (replaced) load.wrote(id, 2, "CATEGORY_UPDATED");
  await load.send(200, "GET", `/api/categories/${id}`);
  await load.send(200, "POST", "/api/categories/search", { query: {}, size: 5 });
}

/** create a pick job, read it, its load units (loadunits asks picking), search. */
async function pickJobs(load: Load, facilityId: string, n: number) {
  const created = await load.send(
    201,
    "POST",
    "/api/pickjobs",
    pickJobBody(facilityId, { tenantOrderId: `R-${n}` }),
  );
  if (!created) return;
  const id = created.body.id as string;
  load.wrote(id, 1, "PICK_JOB_CREATED");
  await load.send(200, "GET", `/api/pickjobs/${id}`);
  await load.send(200, "GET", `/api/pickjobs/${id}/loadunits`);
  await load.send(200, "POST", "/api/pickjobs/search", { query: {}, size: 5 });
}

/** The other services: a carrier written and read, returns, notifications and audit read. */
async function others(load: Load, n: number) {
  const carrier = await load.send(201, "POST", "/api/carriers", {
    key: `CUSTOM_R${n}`,
    name: `Carrier ${n}`,
  });
  if (carrier) {
    load.wrote(carrier.body.id, 1, "CARRIER_CREATED");
    await load.send(200, "GET", `/api/carriers/${carrier.body.id}`);
  }
  await load.send(200, "GET", "/api/itemreturnjobs?size=5");
  await load.send(200, "GET", "/api/subscriptions");
  await load.send(200, "POST", "/api/audits/search", { query: { entityType: { eq: "CATEGORY" } }, size: 5 });
}

/** Every audit record of the tenant: how many per entityRef@version, for the refs written. */
async function auditCounts(api: Api, refs: Set<string>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let after: string | undefined;
  for (;;) {
    const res = await api("POST", "/api/audits/search", {
      query: {},
      size: 250,
      ...(after ? { after } : {}),
    });
    if (res.status !== 200) throw new Error(`audit search ${res.status}: ${res.text}`);
    for (const a of res.body.audits) {
      if (!refs.has(a.entityRef)) continue;
      const key = `${a.entityRef}@${a.entityVersion}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if (!res.body.pageInfo.hasNextPage) return counts;
    after = res.body.pageInfo.endCursor;
  }
}

interface GatewayRoll {
  replaced: string;
  by: string;
  /** The new process: spawn to /readyz 200. */
  startMs: number;
  /** The old process: SIGTERM to exit. */
  exitMs: number;
  /** How it exited; undefined: still running at the end of the grace period (then SIGKILLed). */
  exit: ProcessExit | undefined;
}

/**
 * Replaces one gateway process as a Deployment's rolling update does with maxSurge 1 and
 * maxUnavailable 0: the new pod first, an endpoint once ready; then the old pod terminates: its
 * endpoint is removed, its preStop hook sleeps, it gets SIGTERM, and SIGKILL if the grace period ends.
 */
async function rollGateway(gateways: GatewayReplicas, old: GatewayProcess): Promise<GatewayRoll> {
  const startStarted = Date.now();
  const next = await gateways.start();
  const startMs = Date.now() - startStarted;
  gateways.proxy.add(next.url);
  gateways.proxy.remove(old.url);
  await sleep(PRE_STOP_MS);
  const termStarted = Date.now();
  old.signal("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    old.exited,
    new Promise<undefined>((r) => {
      timer = setTimeout(() => r(undefined), GRACE_MS - PRE_STOP_MS);
    }),
  ]);
  clearTimeout(timer);
  const exitMs = Date.now() - termStarted;
  if (!exit) {
    old.signal("SIGKILL");
    await old.exited;
  }
  return { replaced: old.url, by: next.url, startMs, exitMs, exit };
}

/** /readyz of a service's admin port: its status, or 0 when nothing listens. */
const readyz = (adminUrl: string) =>
  fetch(`${adminUrl}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

describe("rolling restart", () => {
  it("rolls every service and gateway process under load: no failed request, every write audited exactly once", async () => {
    const t0 = Date.now();
    const sys = await startSystem({
      childProcesses: SERVICES,
      gatewayReplicas: GATEWAY_REPLICAS,
      // Cursors signed alike by every process, as in a deployment (a page's cursor outlives a restart).
      serviceEnv: { OUTBOX_POLL_MS: "200", CURSOR_SECRET: "rolling-restart" },
    });
    const booted = Date.now() - t0;
    const gateways = sys.gateways!;
    try {
      const api = sys.as(await sys.token("rolling"));
      const facility = await api("POST", "/api/facilities", {
        name: "Rolling store",
        address: facilityAddress,
      });
      expect(facility.status, facility.text).toBe(201);
      const load = new Load(api);
      let running = true;
      let n = 0;
      const loop = async (step: (i: number) => Promise<void>) => {
        while (running) {
          await step(n++);
          // A steady load, not a saturating one: the machine also starts the services again.
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const loops = [
        loop((i) => categories(load, i)),
        loop((i) => categories(load, i)),
        loop((i) => pickJobs(load, facility.body.id, i)),
        loop((i) => others(load, i)),
      ];

      const restarts: { service: ServiceName; drainMs: number; startMs: number; readyz: number[] }[] = [];
      const gatewayRolls: GatewayRoll[] = [];
      try {
        await new Promise((r) => setTimeout(r, 1000));
        for (const service of SERVICES) {
          const { adminUrl } = sys.services[service];
          const stopStarted = Date.now();
          const stopped = sys.stopService(service); // SIGTERM, then the exit
          // What the admin port says while the process drains: 503 at once, never ready again.
          const seen: number[] = [];
          let exited = false;
          void stopped.then(() => {
            exited = true;
          });
          while (!exited) {
            const status = await readyz(adminUrl);
            if (seen.at(-1) !== status) seen.push(status);
            await new Promise((r) => setTimeout(r, 5));
          }
          await stopped;
          const drainMs = Date.now() - stopStarted;
          const startStarted = Date.now();
          await sys.restartService(service);
          restarts.push({ service, drainMs, startMs: Date.now() - startStarted, readyz: seen });
          await new Promise((r) => setTimeout(r, 700)); // load on the new process
        }
        for (const old of [...gateways.processes]) {
          gatewayRolls.push(await rollGateway(gateways, old));
          await sleep(700); // load on the new process
        }
      } finally {
        running = false;
        await Promise.all(loops);
      }
      const loadMs = Date.now() - t0 - booted;

      // Every write audited exactly once: all arrive, none twice, nothing else for those entities.
      const refs = new Set([...load.writes.keys()].map((k) => k.split("@")[0]!));
      const auditStarted = Date.now();
      await eventually(async () => (await auditCounts(api, refs)).size >= load.writes.size, 30_000, 250);
      await new Promise((r) => setTimeout(r, 1500)); // a duplicate would show up by now
      const counts = await auditCounts(api, refs);
      const auditMs = Date.now() - auditStarted;

      console.log(
        JSON.stringify({
          bootMs: booted,
          loadMs,
          auditCatchUpMs: auditMs,
          requests: load.requests,
          writes: load.writes.size,
          slowRequests: load.slow,
          longestRequestMs: load.longestMs,
          restarts,
          gatewayRolls,
          forwarded: Object.fromEntries(gateways.proxy.forwarded),
        }),
      );
      expect(load.failures).toEqual([]);
      expect(load.requests).toBeGreaterThan(200);
      const missing = [...load.writes.keys()].filter((k) => !counts.has(k));
      const doubled = [...counts].filter(([, c]) => c !== 1);
      const unexpected = [...counts.keys()].filter((k) => !load.writes.has(k));
      expect({ missing, doubled, unexpected }).toEqual({ missing: [], doubled: [], unexpected: [] });
      for (const r of restarts) {
        // Once unready, never ready again before the admin port closed (0). (The drain can be
        // quicker than a poll sees: services/kit's drain test shows the 503 itself.)
        expect(r.readyz.join(" "), r.service).toMatch(/^(200 )?(503 )?0$/);
      }
      expect(restarts.some((r) => r.readyz.includes(503))).toBe(true);
      // Each gateway process was replaced, and exited 0 on its own within the grace period.
      expect(gatewayRolls.map((r) => r.exit)).toEqual(
        Array.from({ length: GATEWAY_REPLICAS }, () => ({ code: 0, signal: null })),
      );
      // The load went through every gateway process, the replaced ones and their replacements.
      const replacements = gatewayRolls.map((r) => r.by);
      expect(gateways.proxy.endpoints).toEqual(replacements);
      for (const url of [...gatewayRolls.map((r) => r.replaced), ...replacements])
        expect(gateways.proxy.forwarded.get(url) ?? 0, url).toBeGreaterThan(0);
    } finally {
      await sys.close();
    }
  }, 150_000);
});
