/**
 * /metrics of every process, after a few REST calls, a GraphQL query and a write whose event goes
 * through the outbox, JetStream and the consumers: the gateway's RED histogram per route template,
 * each service's per-RPC histogram, outbox backlog and age, connection-pool gauges, and the durable
 * consumers' lag, pending acknowledgements and redeliveries (audit-records, loadunits-pickjobs,
 * notifications-dispatch), with the labels deploy/k8s/components/monitoring's rules and dashboard
 * use. And every family of the kit's catalog (services/kit/src/metrics.ts) is exposed by some process.
 */
import { METRICS } from "@fop/kit/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Exposition, parsePrometheusText } from "../../support/prometheus.ts";
import { eventually, type ServiceName, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let categoryId: string;

const scrape = async (url: string): Promise<Exposition> => {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
};

const CONSUMERS: Partial<Record<ServiceName, string>> = {
  audit: "audit-records",
  loadunits: "loadunits-pickjobs",
  notifications: "notifications-dispatch",
};

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("metrics"));
  const created = await api("POST", "/api/categories", {
    tenantCategoryId: "METERED",
    nameLocalized: { en_US: "Metered" },
  });
  expect(created.status).toBe(201);
  categoryId = created.body.id;
  expect((await api("GET", `/api/categories/${categoryId}`)).status).toBe(200);
  expect((await api("GET", "/api/categories/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f")).status).toBe(404);
  expect((await api("GET", "/api/categories")).status).toBe(200);
  expect((await api("POST", "/graphql", { query: "query Probe { __typename }" })).status).toBe(200);
  // Health checks of every service (an RPC each serves).
  expect((await sys.api("GET", "/readyz")).status).toBe(200);
});
afterAll(() => sys?.close());

describe("the gateway's /metrics (its HTTP port)", () => {
  it("RED per route template, method and status; GraphQL with its operation type; never a raw path", async () => {
    const m = await scrape(sys.baseUrl);
    const count = (labels: Record<string, string>) =>
      m.find("http_server_request_duration_seconds_count", labels).reduce((n, s) => n + s.value, 0);
    expect(
      count({ http_request_method: "POST", http_route: "/api/categories", http_response_status_code: "201" }),
    ).toBe(1);
    const byId = { http_request_method: "GET", http_route: "/api/categories/:categoryId" };
    expect(count({ ...byId, http_response_status_code: "200" })).toBe(1);
    expect(count({ ...byId, http_response_status_code: "404" })).toBe(1);
    expect(
      count({
        http_request_method: "POST",
        http_route: "/graphql",
        http_response_status_code: "200",
        graphql_operation_type: "query",
      }),
    ).toBe(1);
    // The histogram's buckets, up to +Inf, for one series.
    const buckets = m.find("http_server_request_duration_seconds_bucket", {
      ...byId,
      http_response_status_code: "200",
    });
    expect(buckets.map((b) => b.labels.le)).toEqual([
      ...METRICS.httpServerDuration.buckets.map(String),
      "+Inf",
    ]);
    expect(buckets.at(-1)!.value).toBe(1);
    for (const s of m.samples) {
      expect(s.labels.service).toBe("gateway");
      for (const v of Object.values(s.labels)) expect(v).not.toContain(categoryId);
      expect(s.labels.graphql_operation_name).toBeUndefined();
    }
    expect(m.families.get("process_cpu_user_seconds_total")?.type).toBe("counter");
  });
});

describe("each service's /metrics (its admin port)", () => {
  it("per-RPC histogram with service, method and gRPC status code", async () => {
    const catalog = await scrape(sys.services.catalog.adminUrl);
    const rpc = (method: string, status: string) =>
      catalog.find("rpc_server_duration_seconds_count", {
        rpc_service: "fop.catalog.v1.CatalogService",
        rpc_method: method,
        rpc_response_status_code: status,
      })[0]?.value;
    expect(rpc("CreateCategory", "OK")).toBe(1);
    expect(rpc("GetCategory", "OK")).toBe(1);
    expect(rpc("GetCategory", "NOT_FOUND")).toBe(1);
    expect(rpc("ListCategories", "OK")).toBeGreaterThanOrEqual(1);
    for (const name of Object.keys(sys.services) as ServiceName[]) {
      const m = await scrape(sys.services[name].adminUrl);
      expect(
        m.find("rpc_server_duration_seconds_count", {
          rpc_service: "grpc.health.v1.Health",
          rpc_method: "Check",
          rpc_response_status_code: "OK",
        }),
        name,
      ).toHaveLength(1);
    }
  });

  it("outbox backlog and oldest event, published events and pool gauges, in every service", async () => {
    // The write's event has left the catalog's outbox.
    await eventually(async () => {
      const m = await scrape(sys.services.catalog.adminUrl);
      return m.value("fop_outbox_published_events_total") >= 1 && m.value("fop_outbox_backlog_events") === 0;
    });
    for (const name of Object.keys(sys.services) as ServiceName[]) {
      const m = await scrape(sys.services[name].adminUrl);
      for (const s of m.samples) expect(s.labels.service, `${name} ${s.name}`).toBe(name);
      for (const gauge of ["fop_outbox_backlog_events", "fop_outbox_oldest_event_age_seconds"]) {
        const v = m.value(gauge);
        expect(Number.isFinite(v) && v >= 0, `${name} ${gauge} = ${v}`).toBe(true);
      }
      expect(m.families.get("fop_outbox_published_events_total")?.type, name).toBe("counter");
      for (const pool of ["main", "outbox-relay"]) {
        const p = { db_client_connection_pool_name: pool };
        for (const state of ["idle", "used"])
          expect(
            m.find("db_client_connection_count", { ...p, db_client_connection_state: state }),
            `${name} ${pool}`,
          ).toHaveLength(1);
        expect(m.value("db_client_connection_max", p)).toBe(pool === "main" ? 5 : 2);
        expect(m.value("db_client_connection_pending_requests", p)).toBe(0);
      }
    }
  });

  it("each durable consumer's lag, pending acknowledgements, redeliveries and outcomes", async () => {
    for (const [service, consumer] of Object.entries(CONSUMERS) as [ServiceName, string][]) {
      const durable = { consumer, stream: sys.events.stream };
      // audit has seen the category's event. loadunits' filter (events.PICK_JOB.>) keeps it from
      // being delivered at all, and so do notifications' lanes (nobody subscribed to anything: it
      // reads no durable, and its lag is the sum over none).
      const filtered = service === "loadunits" || service === "notifications";
      const delivered = filtered ? 0 : 1;
      const m = await eventually(async () => {
        const x = await scrape(sys.services[service].adminUrl);
        const seen =
          x.find("fop_consumer_events_total", { consumer }).reduce((n, s) => n + s.value, 0) >= delivered &&
          x.value("fop_consumer_lag_messages", durable) === 0 &&
          x.value("fop_consumer_ack_pending_messages", durable) === 0;
        return seen ? x : undefined;
      });
      expect(m.value("fop_consumer_redeliveries_total", durable), consumer).toBe(0);
      if (filtered)
        expect(m.find("fop_consumer_events_total", { consumer }).reduce((n, s) => n + s.value, 0)).toBe(0);
      for (const outcome of ["done", "redelivered", "dead_lettered"])
        expect(
          m.find("fop_consumer_events_total", { consumer, outcome }),
          `${consumer} ${outcome}`,
        ).toHaveLength(1);
      expect(m.value("fop_consumer_events_total", { consumer, outcome: "dead_lettered" })).toBe(0);
      expect(m.families.get("fop_consumer_dead_letters")?.type).toBe("gauge");
    }
    const audit = await scrape(sys.services.audit.adminUrl);
    expect(
      audit.value("fop_consumer_events_total", { consumer: "audit-records", outcome: "done" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("every metric family of the kit's catalog is exposed by some process", async () => {
    const families = new Map<string, string>();
    for (const url of [sys.baseUrl, ...Object.values(sys.services).map((s) => s.adminUrl)])
      for (const [name, f] of (await scrape(url)).families) families.set(name, f.type);
    for (const def of Object.values(METRICS)) expect(families.get(def.name), def.name).toBe(def.type);
  });
});
