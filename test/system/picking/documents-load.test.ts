/**
 * Issue 8 item 4: one tenant cannot take picking down for all. Pick jobs have at most 1,000 lines;
 * documents render in worker threads, a bounded number per tenant at once (beyond: 429); a render
 * whose caller gave up is dropped or stopped. While one tenant floods renders of its biggest job,
 * another tenant's reads stay fast.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type System, startSystem } from "../../support/system.ts";

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    article: { tenantArticleId: `A-${i}`, title: `Article number ${i} with a title long enough to wrap` },
    quantity: 1 + (i % 5),
  }));

async function setUp(sys: System, tenant: string) {
  const api = sys.as(await sys.token(tenant));
  const facility = (
    await api("POST", "/api/facilities", {
      name: tenant,
      tenantFacilityId: tenant.toUpperCase(),
      address: facilityAddress,
    })
  ).body;
  return { api, facility };
}

/** A counter of the picking service's /metrics by outcome. */
async function renders(sys: System): Promise<Record<string, number>> {
  const text = await (await fetch(`${sys.services.picking.adminUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^fop_document_renders_total\{[^}]*outcome="(\w+)"[^}]*\} (\d+)/gm))
    out[m[1]!] = Number(m[2]);
  return out;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1]!;

describe("pick line item limits", () => {
  let sys: System;
  beforeAll(async () => {
    sys = await startSystem();
  });
  afterAll(() => sys?.close());

  it("1,001 pick line items -> 400 naming pickLineItems; 1,000 are accepted", async () => {
    const { api, facility } = await setUp(sys, "limits");
    const tooMany = await api(
      "POST",
      "/api/pickjobs",
      pickJobBody(facility.id, { pickLineItems: lines(1001) }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body[0].description).toMatch(/pickLineItems/);
    const most = await api("POST", "/api/pickjobs", pickJobBody(facility.id, { pickLineItems: lines(1000) }));
    expect(most.status).toBe(201);
    expect(most.body.pickLineItems).toHaveLength(1000);
  });

  it("a pick run of 101 jobs -> 400 naming pickJobRefs", async () => {
    const { api, facility } = await setUp(sys, "runlimit");
    const refs = Array.from({ length: 101 }, () => "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f");
    const res = await api("POST", "/api/pickruns", { facilityRef: facility.id, pickJobRefs: refs });
    expect(res.status).toBe(400);
    expect(res.body[0].description).toMatch(/pickJobRefs/);
  });
});

describe("document renders under a flood", () => {
  let sys: System;
  beforeAll(async () => {
    // One render worker and one render per tenant: the tightest setting, as on a small node.
    sys = await startSystem({
      serviceEnv: { DOCUMENT_RENDER_WORKERS: "1", DOCUMENT_RENDER_QUEUE_PER_TENANT: "3" },
    });
  });
  afterAll(() => sys?.close());

  it("while tenant A floods delivery notes of a 1,000-line job, tenant B's GET /api/pickjobs/{id} p99 stays under 100 ms", async () => {
    const a = await setUp(sys, "flooder");
    const big = (
      await a.api("POST", "/api/pickjobs", pickJobBody(a.facility.id, { pickLineItems: lines(1000) }))
    ).body;
    const b = await setUp(sys, "bystander");
    const small = (await b.api("POST", "/api/pickjobs", pickJobBody(b.facility.id))).body;
    // Warm both paths (first render starts the worker).
    expect((await a.api("GET", `/api/pickjobs/${big.id}/deliverynote`)).status).toBe(200);
    expect((await b.api("GET", `/api/pickjobs/${small.id}`)).status).toBe(200);

    const floodStatuses: number[] = [];
    let flooding = true;
    const flood = Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 10 && flooding; i++) {
        const res = await a.api("GET", `/api/pickjobs/${big.id}/deliverynote?locale=de_DE`);
        floodStatuses.push(res.status);
        if (res.status !== 200) {
          expect(Array.isArray(res.body) && typeof res.body[0].summary === "string").toBe(true);
          if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        }
      }
    });
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      const res = await b.api("GET", `/api/pickjobs/${small.id}`);
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    flooding = false;
    await Promise.all(flood);

    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    console.log(
      `bystander GET p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; flood answers: ${JSON.stringify(
        Object.fromEntries(
          [...new Set(floodStatuses)].map((s) => [s, floodStatuses.filter((x) => x === s).length]),
        ),
      )}`,
    );
    expect(p99).toBeLessThan(100);
    expect(floodStatuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(floodStatuses).toContain(200);
    expect(floodStatuses).toContain(429);
  });

  it("renders whose caller gave up are dropped or stopped, never finished for nobody", async () => {
    const impatient = await startSystem({
      serviceEnv: { DOCUMENT_RENDER_WORKERS: "1", DOCUMENT_RENDER_QUEUE_PER_TENANT: "10" },
      gatewayEnv: { RPC_TIMEOUT_MS: "200" },
    });
    try {
      const a = await setUp(impatient, "impatient");
      expect(a.facility.id, "facility").toBeTypeOf("string");
      // Storing 1,000 lines can itself take longer than this gateway's 200 ms deadline on a busy
      // machine (a 504, or the service's own 503 DEADLINE_EXCEEDED when the deadline passes before it
      // starts; nothing stored either way): try again until stored.
      let created = await a.api(
        "POST",
        "/api/pickjobs",
        pickJobBody(a.facility.id, { pickLineItems: lines(1000) }),
      );
      const cutByDeadline = () =>
        created.status === 504 || (created.status === 503 && /DEADLINE_EXCEEDED/.test(created.text));
      for (let i = 0; i < 10 && cutByDeadline(); i++) {
        created = await a.api(
          "POST",
          "/api/pickjobs",
          pickJobBody(a.facility.id, { pickLineItems: lines(1000) }),
        );
      }
      expect(created.status, created.text).toBe(201);
      const big = created.body;
      const before = await renders(impatient);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => a.api("GET", `/api/pickjobs/${big.id}/deliverynote`)),
      );
      const statuses = answers.map((r) => r.status);
      await new Promise((r) => setTimeout(r, 300));
      const after = await renders(impatient);
      const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
      console.log(`answers ${JSON.stringify(statuses)}; renders ${JSON.stringify(after)}`);
      // Eight renders of ~100 ms on one worker do not fit into 200 ms: some callers got no document.
      expect(statuses.filter((s) => s !== 200).length).toBeGreaterThan(0);
      expect(statuses.every((s) => [200, 503, 504].includes(s))).toBe(true);
      // Every render either served its caller, or was dropped / stopped once the caller gave up.
      expect(delta("done")).toBe(statuses.filter((s) => s === 200).length);
      expect(delta("dropped") + delta("terminated")).toBe(statuses.filter((s) => s !== 200).length);
    } finally {
      await impatient.close();
    }
  });
});
