/**
 * The rate limit is one for the cluster: 3 gateway processes behind an endpoints proxy (per
 * connection, round robin, as a Service), each limiting a tenant to 20/s with a burst of 20, hold
 * that limit together (gateway/src/rate-limit: each subtracts the others' takes, exchanged over core
 * NATS every 100 ms). And it fails open: while the gateways cannot reach NATS they serve on, each
 * on its own limit, and count what they decided alone in fop_rate_limit_unsynced_requests_total.
 *
 * The gateways reach NATS through a TCP proxy this test opens and cuts, so their NATS_URL names a
 * port that is closed at first (NATS unreachable from the start), then open (the exchange
 * connects), then closed again (the connection lost).
 */
import http from "node:http";
import { type EndpointsProxy, startEndpointsProxy } from "@fop/kit/dev/endpoints-proxy";
import { freePort } from "@fop/kit/dev/infra";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parsePrometheusText } from "../../support/prometheus.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

const PER_SECOND = 20;
const BURST = 20;
const REPLICAS = 3;
const ROUTE = "/api/categories";

let sys: System;
let natsPort: number;
let natsProxy: CuttableProxy;

beforeAll(async () => {
  natsPort = await freePort();
  natsProxy = cuttableProxy(natsPort, new URL(inject("natsUrl")));
  sys = await startSystem({
    gatewayReplicas: REPLICAS,
    gatewayEnv: {
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_PER_SECOND: String(PER_SECOND),
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_SYNC_MS: "100",
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
    },
  });
}, 120_000);
afterAll(async () => {
  await sys?.close();
  await natsProxy?.cut();
});

const gatewayUrls = () => sys.gateways!.processes.map((g) => g.url);

/** Per gateway (its own address, not the proxy's): requests it answered on ROUTE, and the unsynced counter. */
async function gatewayCounts() {
  return Promise.all(
    gatewayUrls().map(async (url) => {
      const m = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
      const answered = m
        .find("http_server_request_duration_seconds_count", { http_route: ROUTE })
        .reduce((n, s) => n + s.value, 0);
      return { answered, unsynced: m.value("fop_rate_limit_unsynced_requests_total") };
    }),
  );
}

/** Whether every gateway exchanges its counts now: a request to each leaves its unsynced counter as it was. */
async function allSynced(): Promise<boolean> {
  const token = await sys.token("probe");
  for (const url of gatewayUrls()) {
    const count = async () =>
      parsePrometheusText(await (await fetch(`${url}/metrics`)).text()).value(
        "fop_rate_limit_unsynced_requests_total",
      );
    const before = await count();
    await fetch(`${url}${ROUTE}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
    if ((await count()) !== before) return false;
  }
  return true;
}

/**
 * `perSecond` GETs of ROUTE as `tenant` for `seconds`, evenly spaced (open loop: sent on schedule,
 * whatever the answers), round robin over `connections` keep-alive connections of their own (each
 * one lands on one gateway, as the proxy chooses). Resolves with every status and Retry-After.
 */
async function load(tenant: string, perSecond: number, seconds: number, connections: number) {
  const token = await sys.token(tenant);
  const agents = Array.from(
    { length: connections },
    () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
  );
  const { port } = new URL(sys.baseUrl);
  const get = (agent: http.Agent) =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = http.get(
        { host: "127.0.0.1", port, path: ROUTE, agent, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: res.headers["retry-after"] as string | undefined,
            }),
          );
        },
      );
      req.on("error", reject);
    });
  const total = perSecond * seconds;
  const started = performance.now();
  const answers: Promise<{ status: number; retryAfter: string | undefined }>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    answers.push(get(agents[i % connections]!));
  }
  const results = await Promise.all(answers);
  for (const a of agents) a.destroy();
  return results;
}

const count = (results: { status: number }[], status: number) =>
  results.filter((r) => r.status === status).length;

describe("the rate limit across 3 gateways", () => {
  it("fails open while NATS is unreachable (from the start): served on each gateway's own limit, counted", async () => {
    const before = await gatewayCounts();
    // 3x the limit for 3 s: the cluster's limit would admit 20 + 3 x 20 = 80.
    const results = await load("unsynced-start", 3 * PER_SECOND, 3, 6);
    const after = await gatewayCounts();
    console.log(
      `NATS unreachable from the start: ${count(results, 200)} of ${results.length} accepted; unsynced per gateway ` +
        after.map((g, i) => g.unsynced - before[i]!.unsynced).join(", "),
    );
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(count(results, 200)).toBeGreaterThan(BURST + 3 * PER_SECOND + 20);
    after.forEach((g, i) => {
      expect(g.answered - before[i]!.answered, `gateway ${i} got requests`).toBeGreaterThan(0);
      expect(g.unsynced - before[i]!.unsynced, `gateway ${i} counted them`).toBeGreaterThanOrEqual(
        g.answered - before[i]!.answered,
      );
    });
  });

  it("holds one limit for the cluster: a tenant at 3x its limit for 10 s gets limit x 10 s + burst (±10%), another is unaffected", async () => {
    await natsProxy.open();
    await eventually(allSynced, 20_000, 300);
    const before = await gatewayCounts();
    const [loud, quiet] = await Promise.all([
      load("loud", 3 * PER_SECOND, 10, 6),
      load("quiet", PER_SECOND / 2, 10, 3),
    ]);
    const after = await gatewayCounts();
    const expected = PER_SECOND * 10 + BURST;
    const accepted = count(loud, 200);
    console.log(
      `rate limit over ${REPLICAS} gateways: ${accepted} of ${loud.length} accepted, expected ${expected} ± 10%; ` +
        `the other tenant ${count(quiet, 200)} of ${quiet.length}; requests per gateway ` +
        after.map((g, i) => g.answered - before[i]!.answered).join(", "),
    );
    expect(accepted).toBeGreaterThanOrEqual(Math.floor(0.9 * expected));
    expect(accepted).toBeLessThanOrEqual(Math.ceil(1.1 * expected));
    expect(count(loud, 429)).toBe(loud.length - accepted);
    for (const r of loud.filter((x) => x.status === 429)) expect(r.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(count(quiet, 200)).toBe(quiet.length);
    after.forEach((g, i) => {
      expect(g.answered - before[i]!.answered, `gateway ${i} got requests`).toBeGreaterThan(0);
      expect(g.unsynced, `gateway ${i} decided none alone`).toBe(before[i]!.unsynced);
    });
  });

  it("fails open when the connection to NATS is lost: served, counted", async () => {
    await natsProxy.cut();
    const before = await gatewayCounts();
    const results = await load("unsynced-lost", 3 * PER_SECOND, 2, 6);
    const after = await gatewayCounts();
    console.log(
      `NATS connection lost: ${count(results, 200)} of ${results.length} accepted; unsynced per gateway ` +
        after.map((g, i) => g.unsynced - before[i]!.unsynced).join(", "),
    );
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(count(results, 200)).toBeGreaterThan(BURST + 2 * PER_SECOND + 20);
    after.forEach((g, i) => {
      expect(g.unsynced - before[i]!.unsynced, `gateway ${i} counted what it decided alone`).toBeGreaterThan(
        0,
      );
    });
  });
});

interface CuttableProxy {
  open(): Promise<void>;
  /** Closes the listener (the port refuses connections) and every connection through it. */
  cut(): Promise<void>;
}

/** The kit's endpoints proxy on 127.0.0.1:`port` to `target` as a link: closed until open(), cut again by cut(). */
function cuttableProxy(port: number, target: URL): CuttableProxy {
  let proxy: EndpointsProxy | undefined;
  return {
    open: async () => {
      proxy = await startEndpointsProxy([`tcp://${target.hostname}:${target.port || 4222}`], { port });
    },
    cut: async () => {
      await proxy?.close();
      proxy = undefined;
    },
  };
}
