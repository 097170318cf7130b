/**
 * Work shared, never doubled, across replicas: every service runs as 3 processes behind a
 * connection balancer of its own (as a Deployment's pods behind its Service) and the gateway as 3
 * processes behind another; a few hundred mixed writes go through the REST API at once over several
 * connections. The RPC traffic spreads over the replicas, and every piece of work that replicas
 * share happens exactly as often as it should:
 * - the outbox relays (3 per outbox) publish every event once: every outbox empties, the events the
 *   relays say they published are the stream's messages (JetStream's deduplication would hide a
 *   second publish of one event; the relays' counters would not), and each entity has one message
 *   per write;
 * - the audit consumer (one durable consumer, its messages spread over 3 processes) writes one
 *   record per event, and the audit log pages through the API with cursors one audit replica signs
 *   and another verifies;
 * - notifications' dispatch writes one CLIENT notification per pick job created; its delivery
 *   workers (leases) deliver every webhook at least once, each with its `webhook-id` (one per event)
 *   and a signature made with the secret another replica sealed;
 * - returns' REFUND_TRIGGERED once per item return job whose last two lines were closed by two
 *   requests at once;
 * - loadunits' pick job projection has one row per pick job, at the job's last version;
 * - audit's retention sweep (every replica runs it, every 200 ms here, anonymizing at once) changes
 *   each record once (version 2, never 3) and no two sweeps deadlock;
 * - nothing is dead-lettered, in any service.
 */
import { decodeEnvelope } from "@fop/kit/events/envelope";
import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { parsePrometheusText } from "../../support/prometheus.ts";
import { message, rawRequest } from "../../support/raw-http.ts";
import {
  type ApiResponse,
  eventually,
  SERVICE_NAMES,
  type ServiceName,
  type System,
  startSystem,
} from "../../support/system.ts";

const REPLICAS = 3;
const SERVICES = SERVICE_NAMES;
/** Requests in flight at once (so as many keep-alive connections to the gateways' balancer). */
const CONNECTIONS = 8;
const CATEGORIES = 50;
const PICK_JOBS = 60;
const CARRIERS = 15;
const RETURN_JOBS = 15;
const TENANT = "replicas";
const HOOK = "/pickjobs";

type Api = ReturnType<System["as"]>;

let sys: System;
let hooks: WebhookReceiver;
let db: pg.Client;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  sys = await startSystem({
    serviceReplicas: REPLICAS,
    gatewayReplicas: REPLICAS,
    gatewayStdout: "ignore",
    serviceEnv: {
      OUTBOX_POLL_MS: "200",
      // Records are due for anonymization when written, and every audit replica sweeps often.
      AUDIT_ANONYMIZE_AFTER_DAYS: "0",
      AUDIT_SWEEP_INTERVAL_MS: "200",
    },
  });
  db = new pg.Client({ connectionString: sys.db.url });
  await db.connect();
}, 180_000);
afterAll(async () => {
  await db?.end();
  await sys?.close();
  await hooks?.close();
});

/** What was written: events expected per entity, and the entities by kind. */
class Writes {
  readonly events = new Map<string, number>();
  readonly pickJobs = new Map<string, number>(); // id -> last version
  readonly returnJobs: string[] = [];
  private readonly api: Api;
  constructor(api: Api) {
    this.api = api;
  }

  /** A write that must answer `status`; counts one event for the entity it names. */
  async write(
    status: number,
    method: string,
    path: string,
    body: unknown,
    entity?: (res: ApiResponse) => string,
  ) {
    const res = await this.api(method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    this.wrote(entity ? entity(res) : res.body.id);
    return res;
  }

  /** One more event for `entityRef`. */
  wrote(entityRef: string) {
    this.events.set(entityRef, (this.events.get(entityRef) ?? 0) + 1);
  }
}

async function category(w: Writes, n: number) {
  const created = await w.write(201, "POST", "/api/categories", { nameLocalized: { en_US: `replica ${n}` } });
  await w.write(200, "PUT", `/api/categories/${created.body.id}`, {
    version: 1,
    nameLocalized: { en_US: `replica ${n} (2)` },
  });
}

/** A pick job; every other one started (a second version), every other one given a load unit. */
async function pickJob(w: Writes, facilityId: string, n: number) {
  const job = await w.write(
    201,
    "POST",
    "/api/pickjobs",
    pickJobBody(facilityId, { tenantOrderId: `R-${n}` }),
  );
  const id = job.body.id as string;
  w.pickJobs.set(id, 1);
  if (n % 2 === 0) {
    await w.write(200, "PATCH", `/api/pickjobs/${id}`, {
      version: 1,
      actions: [{ action: "ModifyPickJob", status: "IN_PROGRESS" }],
    });
    w.pickJobs.set(id, 2);
  }
  if (n % 4 < 2)
    await w.write(201, "POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [id] }] }, (r) => r.body[0].id);
}

async function carrier(w: Writes, n: number) {
  await w.write(201, "POST", "/api/carriers", { key: `CUSTOM_REPLICA${n}`, name: `Carrier ${n}` });
}

/**
 * An item return job with two lines, one item return, and the two lines closed by two requests at
 * once (the loser retries on the next version): the job's 5th event is REFUND_TRIGGERED, once.
 */
async function returnJob(w: Writes, api: Api, facilityId: string, n: number) {
  const job = await w.write(200, "POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facilityId],
    status: "OPEN",
    consumerAddresses: [facilityAddress],
    tenantOrderId: `RET-${n}`,
    returnableLineItems: [0, 1].map((i) => ({
      article: { tenantArticleId: `A-${i}`, title: `Article ${i}` },
      delivered: 2,
    })),
  });
  const id = job.body.id as string;
  w.returnJobs.push(id);
  const added = await w.write(
    200,
    "POST",
    `/api/itemreturnjobs/${id}/itemreturns`,
    {
      itemReturnJobVersion: 1,
      itemReturnForCreation: {
        status: "OPEN",
        returnFacilityRef: facilityId,
        returnedLineItems: job.body.returnableLineItems.map((l: { id: string }) => ({
          itemReturnJobLineItemRef: l.id,
          status: "OPEN",
        })),
      },
    },
    () => id,
  );
  const ir = added.body.itemReturns[0];
  const close = async (line: { id: string }, status: string) => {
    for (let version = 2; ; version++) {
      const res = await api(
        "PATCH",
        `/api/itemreturnjobs/${id}/itemreturns/${ir.id}/returnedlineitems/${line.id}`,
        {
          itemReturnJobVersion: version,
          status,
        },
      );
      if (res.status === 200) return w.wrote(id);
      expect(res.status, res.text).toBe(409);
    }
  };
  await Promise.all([close(ir.returnedLineItems[0], "ACCEPTED"), close(ir.returnedLineItems[1], "REJECTED")]);
  w.wrote(id); // REFUND_TRIGGERED
}

/** Runs `tasks` with at most `n` at once. */
async function pool(n: number, tasks: (() => Promise<unknown>)[]) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

/** Sums a metric's samples (whose labels include `labels`) over one process's /metrics. */
async function metric(
  adminUrl: string,
  name: string,
  labels?: Record<string, string>,
  skip?: (l: Record<string, string>) => boolean,
) {
  const res = await fetch(`${adminUrl}/metrics`);
  const samples = parsePrometheusText(await res.text()).find(name, labels);
  return samples.filter((s) => !skip?.(s.labels)).reduce((sum, s) => sum + s.value, 0);
}

/** Every message of the system's stream: its subject, message id and envelope. */
async function streamMessages() {
  const nc = await connect({ servers: sys.events.natsUrl.split(",") });
  try {
    const total = (await (await jetstreamManager(nc)).streams.info(sys.events.stream)).state.messages;
    const consumer = await jetstream(nc).consumers.get(sys.events.stream);
    const out: { msgId: string | undefined; envelope: ReturnType<typeof decodeEnvelope> }[] = [];
    while (out.length < total) {
      const batch = await consumer.fetch({ max_messages: total - out.length, expires: 5000 });
      for await (const m of batch)
        out.push({ msgId: m.headers?.get("Nats-Msg-Id"), envelope: decodeEnvelope(m.data) });
    }
    return out;
  } finally {
    await nc.close();
  }
}

const rows = async <T extends pg.QueryResultRow>(text: string, params: unknown[] = []) =>
  (await db.query<T>(text, params)).rows;

describe("three replicas of every service", () => {
  it("share the work of a few hundred concurrent writes, and do none of it twice", async () => {
    const t0 = Date.now();
    const deadlocksBefore = await deadlocks();
    const api = sys.as(await sys.token(TENANT, { user: "rhea.replica" }));
    const facility = await api("POST", "/api/facilities", {
      name: "Replica store",
      address: facilityAddress,
    });
    expect(facility.status, facility.text).toBe(201);
    const facilityId = facility.body.id as string;
    const config = await api("PUT", "/api/configurations/notifications", {
      channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
    });
    expect(config.status, config.text).toBe(201);
    const subscription = await api("POST", "/api/subscriptions", {
      name: "pick jobs",
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl: hooks.url(HOOK) },
    });
    expect(subscription.status, subscription.text).toBe(201);

    // The writes, interleaved, CONNECTIONS at a time.
    const w = new Writes(api);
    const tasks: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < Math.max(CATEGORIES, PICK_JOBS, CARRIERS, RETURN_JOBS); i++) {
      if (i < CATEGORIES) tasks.push(() => category(w, i));
      if (i < PICK_JOBS) tasks.push(() => pickJob(w, facilityId, i));
      if (i < CARRIERS) tasks.push(() => carrier(w, i));
      if (i < RETURN_JOBS) tasks.push(() => returnJob(w, api, facilityId, i));
    }
    await pool(CONNECTIONS, tasks);
    const written = [...w.events.values()].reduce((a, b) => a + b, 0);
    const writesMs = Date.now() - t0;

    // The work spread: each gateway took connections, and more than one replica of catalog and
    // picking served RPCs (health checks aside).
    expect(sys.gateways!.proxy.forwarded.size).toBe(REPLICAS);
    const rpcs = Object.fromEntries(
      await Promise.all(
        SERVICES.map(async (name) => [
          name,
          await Promise.all(
            sys
              .replicas(name)
              .map((r) =>
                metric(
                  r.adminUrl,
                  "rpc_server_duration_seconds_count",
                  undefined,
                  (l) => l.rpc_service === "grpc.health.v1.Health",
                ),
              ),
          ),
        ]),
      ),
    ) as Record<ServiceName, number[]>;
    for (const name of ["catalog", "picking"] as const)
      expect(
        rpcs[name].filter((n) => n > 0).length,
        `${name} RPCs per replica: ${rpcs[name]}`,
      ).toBeGreaterThan(1);

    // Outbox relays: every outbox empties; the relays published exactly the stream's messages, one
    // per event id, and each entity has a message per write.
    await eventually(async () => {
      for (const name of SERVICES)
        if ((await rows<{ n: number }>(`select count(*)::int as n from ${name}.outbox`))[0]!.n > 0)
          return false;
      return true;
    }, 30_000);
    const messages = await streamMessages();
    const published = (
      await Promise.all(
        SERVICES.flatMap((name) =>
          sys.replicas(name).map((r) => metric(r.adminUrl, "fop_outbox_published_events_total")),
        ),
      )
    ).reduce((a, b) => a + b, 0);
    expect(published).toBe(messages.length);
    expect(new Set(messages.map((m) => m.msgId)).size).toBe(messages.length);
    expect(messages.every((m) => m.msgId === m.envelope.id)).toBe(true);
    const ofTenant = messages.filter((m) => m.envelope.tenant === TENANT).map((m) => m.envelope);
    expect(countBy(ofTenant.filter((e) => w.events.has(e.entityRef)).map((e) => e.entityRef))).toEqual(
      w.events,
    );

    // Audit: one record per event (every record of the tenant is one of the stream's events).
    const audited = async () =>
      rows<{
        event_id: string;
        entity_ref: string;
        operation_name: string;
        version: number;
        is_anonymized: boolean;
      }>(
        "select event_id::text, entity_ref, operation_name, version, is_anonymized from audit.audit_record where tenant_id = $1",
        [TENANT],
      );
    await eventually(async () => (await audited()).length >= ofTenant.length, 30_000, 250);
    await new Promise((r) => setTimeout(r, 1500)); // a duplicate would show up by now
    const records = await audited();
    expect(records.map((r) => r.event_id).sort()).toEqual(ofTenant.map((e) => e.id).sort());
    expect(countBy(records.filter((r) => w.events.has(r.entity_ref)).map((r) => r.entity_ref))).toEqual(
      w.events,
    );

    // REFUND_TRIGGERED: once per return job, in the stream and in the audit log.
    const refunds = (refs: string[]) => countBy(refs.filter((r) => w.returnJobs.includes(r)));
    const once = new Map(w.returnJobs.map((id) => [id, 1]));
    expect(refunds(ofTenant.filter((e) => e.type === "REFUND_TRIGGERED").map((e) => e.entityRef))).toEqual(
      once,
    );
    expect(
      refunds(records.filter((r) => r.operation_name === "REFUND_TRIGGERED").map((r) => r.entity_ref)),
    ).toEqual(once);

    // CLIENT notifications: one per pick job created.
    const created = ofTenant.filter((e) => e.type === "PICK_JOB_CREATED");
    expect(created.map((e) => e.entityRef).sort()).toEqual([...w.pickJobs.keys()].sort());
    const notified = await eventually(async () => {
      const found = await rows<{ id: string; event_id: string }>(
        "select id::text, event_id::text from notifications.notification where tenant_id = $1",
        [TENANT],
      );
      return found.length >= created.length ? found : undefined;
    }, 30_000);
    expect(notified.map((n) => n.event_id).sort()).toEqual(created.map((e) => e.id).sort());
    const search = await api("POST", "/api/notifications/search", { query: {}, size: 100 });
    expect(search.status, search.text).toBe(200);
    expect(search.body.pageInfo.hasNextPage).toBe(false);
    expect(search.body.notifications.map((n: { id: string }) => n.id).sort()).toEqual(
      notified.map((n) => n.id).sort(),
    );

    // Webhooks: at least once per pick job created, each with its webhook-id and a valid signature;
    // deduplicated by webhook-id, exactly the events.
    await eventually(
      async () => new Set(hooks.on(HOOK).map((h) => h.headers["webhook-id"])).size >= created.length,
      30_000,
    );
    const received = hooks.on(HOOK);
    const verifier = new Webhook(subscription.body.secret);
    for (const h of received) {
      expect(h.headers["webhook-id"]).toBeTypeOf("string");
      const payload = verifier.verify(h.body, h.headers as Record<string, string>) as {
        payload: { id: string };
      };
      expect(w.pickJobs.has(payload.payload.id)).toBe(true);
    }
    expect([...new Set(received.map((h) => String(h.headers["webhook-id"])))].sort()).toEqual(
      created.map((e) => e.id).sort(),
    );

    // Loadunits' projection: one row per pick job, at its last version.
    const projected = await eventually(async () => {
      const found = await rows<{ id: string; version: number }>(
        "select id::text, version from loadunits.pick_job_ref where tenant_id = $1",
        [TENANT],
      );
      return found.length >= w.pickJobs.size && found.every((r) => r.version === w.pickJobs.get(r.id))
        ? found
        : undefined;
    }, 30_000);
    expect(new Map(projected.map((r) => [r.id, r.version]))).toEqual(w.pickJobs);
    expect(projected).toHaveLength(w.pickJobs.size);

    // Audit retention: three replicas sweeping every 200 ms anonymize each record once.
    const swept = await eventually(async () => {
      const all = await audited();
      return all.every((r) => r.is_anonymized) ? all : undefined;
    }, 30_000);
    expect(swept.filter((r) => r.version !== 2)).toEqual([]);
    expect(await deadlocks()).toBe(deadlocksBefore);

    // The durable consumers' messages spread over their replicas.
    const consumed = async (name: ServiceName, consumer: string) =>
      Promise.all(
        sys.replicas(name).map((r) => metric(r.adminUrl, "fop_consumer_events_total", { consumer })),
      );
    const audits = await consumed("audit", "audit-records");
    const dispatched = await consumed("notifications", "notifications-dispatch");
    expect(audits.filter((n) => n > 0).length, `audit-records per replica: ${audits}`).toBeGreaterThan(1);
    expect(dispatched.filter((n) => n > 0).length, `dispatch per replica: ${dispatched}`).toBeGreaterThan(1);

    // The audit log through the API, 25 a page, each page on a new connection (so another gateway,
    // whose session reaches another audit replica than the last page's): every record once.
    const token = await sys.token(TENANT);
    const paged: string[] = [];
    let after: string | undefined;
    for (let page = 0; ; page++) {
      const body = JSON.stringify({ query: {}, size: 25, ...(after ? { after } : {}) });
      const res = await rawRequest(
        sys.baseUrl,
        message(
          "POST",
          "/api/audits/search",
          {
            host: new URL(sys.baseUrl).host,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
          },
          body,
        ),
      );
      expect(res.status, `page ${page}: ${res.body}`).toBe(200);
      paged.push(...res.json.audits.map((a: { id: string }) => a.id));
      if (!res.json.pageInfo.hasNextPage) break;
      after = res.json.pageInfo.endCursor;
    }
    expect(paged).toHaveLength(records.length);
    expect(new Set(paged).size).toBe(records.length);

    // Nothing dead-lettered anywhere, and every webhook delivery done.
    for (const { table_schema } of await rows<{ table_schema: string }>(
      "select table_schema from information_schema.tables where table_name = 'dead_letter'",
    ))
      expect(await rows(`select consumer, error from ${table_schema}.dead_letter`), table_schema).toEqual([]);
    const deliveries = await rows<{ state: string; event_id: string }>(
      "select state, event_id::text from notifications.delivery where tenant_id = $1",
      [TENANT],
    );
    expect(deliveries.filter((d) => d.state !== "DELIVERED")).toEqual([]);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(created.map((e) => e.id).sort());

    console.log(
      JSON.stringify({
        written,
        events: messages.length,
        webhooks: received.length,
        rpcsPerReplica: rpcs,
        auditConsumerPerReplica: audits,
        dispatchPerReplica: dispatched,
        gatewayConnections: Object.fromEntries(sys.gateways!.proxy.forwarded),
        writesMs,
        testMs: Date.now() - t0,
      }),
    );
  }, 120_000);
});

/** How often each value occurs. */
function countBy(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** Deadlocks Postgres detected in the system's database so far. */
async function deadlocks(): Promise<number> {
  const [row] = await rows<{ n: string }>(
    "select deadlocks::text as n from pg_stat_database where datname = current_database()",
  );
  return Number(row?.n ?? 0);
}
