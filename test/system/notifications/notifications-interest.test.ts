/**
 * The notifications service decides from memory whether anyone wants an event (its interest index):
 * an event of a kind no subscription or channel of any tenant takes costs no transaction (no inbox
 * row, no delivery) while a subscribed kind's still makes its webhook; a subscription or a facility's
 * channel takes effect for the very next write (the index is invalidated when the write commits); a
 * deleted subscription gets nothing more; and a second notifications replica learns of a subscription
 * made through the first from its broadcast (the periodic refresh is an hour away in this system).
 * JetStream delivers dispatch only the entity types some tenant wants (its lanes, one durable each):
 * a lane appears with the first subscription to its kinds and goes with the last.
 */
import { randomBytes } from "node:crypto";
import { startTestService } from "@fop/kit/testing/service";
import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import type { Worker } from "@fop/kit/worker";
import { notificationsService } from "@fop/notifications";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let hooks: WebhookReceiver;
let db: pg.Client;
const DISPATCH = "notifications-dispatch";
const SECRETS_KEY = randomBytes(32).toString("base64");
// Only invalidations (this process's writes, another replica's broadcast) update the index here.
const REFRESH_MS = "3600000";

const tenant = async (name: string) => sys.as(await sys.token(name, { user: "ina.interest" }));

async function subscribe(api: ReturnType<System["as"]>, event: string, path: string) {
  const res = await api("POST", "/api/subscriptions", {
    name: path,
    event,
    target: { type: "WEBHOOK", callbackUrl: hooks.url(path) },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

async function facility(api: ReturnType<System["as"]>, name = "Interest store") {
  const res = await api("POST", "/api/facilities", { name, address: facilityAddress });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function category(api: ReturnType<System["as"]>) {
  const res = await api("POST", "/api/categories", {
    nameLocalized: { en_US: `c-${randomBytes(3).toString("hex")}` },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** The ids of the events recorded for an entity (the audit service records every event). */
const eventIds = (tenantId: string, entityRef: string, n: number) =>
  eventually(async () => {
    const { rows } = await db.query<{ event_id: string }>(
      "select event_id::text from audit.audit_record where tenant_id = $1 and entity_ref = $2",
      [tenantId, entityRef],
    );
    return rows.length >= n ? rows.map((r) => r.event_id) : undefined;
  });

/** The dispatch consumer's lanes (kit consumer/lanes.ts): its durables `<name>-<key>`, by key. */
async function lanes() {
  const jsm = sys.services.notifications.base!.nats.jsm;
  const found = new Map<string, { num_pending: number; num_ack_pending: number }>();
  for await (const c of jsm.consumers.list(sys.events.stream)) {
    if (c.name.startsWith(`${DISPATCH}-`)) found.set(c.name.slice(DISPATCH.length + 1), c);
  }
  return found;
}

/** Waits until the dispatch consumer has acknowledged everything its lanes were delivered. */
async function dispatchIdle() {
  await eventually(
    async () => [...(await lanes()).values()].every((c) => c.num_pending === 0 && c.num_ack_pending === 0),
    15_000,
    25,
  );
}

const inboxed = async (eventId: string) =>
  (
    await db.query("select 1 from notifications.inbox where consumer = $1 and event_id = $2", [
      DISPATCH,
      eventId,
    ])
  ).rowCount;
const deliveries = async (eventId: string) =>
  (await db.query("select 1 from notifications.delivery where event_id = $1", [eventId])).rowCount;

/**
 * Waits until the notifications process's interest index is loaded and not stale. The consumer's
 * test of a message's type does not wait for a reload (a stale index answers "maybe": the event
 * then takes the transaction, and dispatch finds nothing to do), so a test that counts on an event
 * being skipped without a transaction waits for the reload its last subscription write started.
 */
async function indexFresh() {
  const deps = sys.services.notifications.deps as Awaited<ReturnType<typeof notificationsService.createDeps>>;
  await eventually(async () => !deps.interest.anyTenantWants("NOTHING_ANYONE_WANTS"), 15_000, 10);
}

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  sys = await startSystem({
    serviceEnv: { INTEREST_REFRESH_MS: REFRESH_MS, WEBHOOK_SECRETS_KEY: SECRETS_KEY },
  });
  db = new pg.Client({ connectionString: sys.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await sys?.close();
  await hooks?.close();
});

describe("does anyone want this event?", () => {
  it("a kind nobody takes writes no inbox row and no delivery; a subscribed kind still makes its webhook", async () => {
    const api = await tenant("quiet");
    const facilityId = await facility(api);
    await subscribe(api, "PICK_JOB_CREATED", "/quiet");
    await indexFresh();
    const categoryId = await category(api); // CATEGORY_CREATED: no subscription or channel anywhere
    const job = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
    expect(job.status, job.text).toBe(201);

    const [hook] = await eventually(async () => (hooks.on("/quiet").length ? hooks.on("/quiet") : undefined));
    expect(JSON.parse(hook!.body)).toMatchObject({ event: "PICK_JOB_CREATED", payload: { id: job.body.id } });
    const jobEvent = String(hook!.headers["webhook-id"]);
    const [categoryEvent] = await eventIds("quiet", categoryId, 1);
    await dispatchIdle();
    expect(await inboxed(jobEvent)).toBe(1);
    expect(await deliveries(jobEvent)).toBe(1);
    expect(await inboxed(categoryEvent!)).toBe(0);
    expect(await deliveries(categoryEvent!)).toBe(0);
    // Not even delivered: JetStream gives dispatch only the entity types someone wants.
    expect([...(await lanes()).keys()]).toContain("PICK_JOB");
    expect([...(await lanes()).keys()]).not.toContain("CATEGORY");
  });

  it("a subscription made now gets the webhook of the write right after it", async () => {
    const api = await tenant("eager");
    await subscribe(api, "FACILITY_CREATED", "/eager");
    const facilityId = await facility(api, "Eager store");
    const [hook] = await eventually(async () => (hooks.on("/eager").length ? hooks.on("/eager") : undefined));
    expect(JSON.parse(hook!.body)).toMatchObject({ event: "FACILITY_CREATED", payload: { id: facilityId } });
    // A FACILITY_* payload is the facility's REST document, as GET answers it (CATEGORY_* too).
    const shown = await api("GET", `/api/facilities/${facilityId}`);
    expect(JSON.parse(hook!.body).payload).toEqual(shown.body);
  });

  it("a facility's channel configured now takes the next pick job of that facility", async () => {
    const api = await tenant("channel");
    const facilityId = await facility(api, "Channel store");
    const config = await api("PUT", `/api/facilities/${facilityId}/configurations/notifications`, {
      channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
    });
    expect(config.status, config.text).toBe(201);
    const job = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
    expect(job.status, job.text).toBe(201);
    const found = await eventually(async () => {
      const res = await api("POST", "/api/notifications/search", {
        query: { facilityRef: { eq: facilityId } },
      });
      return res.body.notifications?.length ? res.body.notifications : undefined;
    });
    expect(found[0]).toMatchObject({ type: "CLIENT", event: "PICK_JOB_CREATED" });
  });

  it("a deleted subscription gets nothing more, and its kind is skipped again without a transaction", async () => {
    const api = await tenant("fickle");
    const sub = await subscribe(api, "CATEGORY_DELETED", "/fickle");
    await indexFresh();
    const first = await category(api);
    const second = await category(api);
    expect((await api("DELETE", `/api/categories/${first}`)).status).toBe(200);
    await eventually(async () => hooks.on("/fickle").length > 0);

    expect([...(await lanes()).keys()]).toContain("CATEGORY");
    expect((await api("DELETE", `/api/subscriptions/${sub.id}`)).status).toBe(200);
    await indexFresh();
    // Nobody wants a category event any more: the lane goes, JetStream stops delivering them.
    await eventually(async () => !(await lanes()).has("CATEGORY"));
    expect((await api("DELETE", `/api/categories/${second}`)).status).toBe(200);
    const events = await eventIds("fickle", second, 2); // created, deleted
    await dispatchIdle();
    expect(hooks.on("/fickle")).toHaveLength(1);
    for (const id of events) {
      expect(await inboxed(id)).toBe(0);
      expect(await deliveries(id)).toBe(0);
    }
  });
});

describe("replicas", () => {
  it("a second notifications process learns of a subscription made through the first from its broadcast", async () => {
    const first = sys.services.notifications;
    const dispatch = first.workers!.find((w: Worker) => w.name === DISPATCH)!;
    // Only the second process takes events from here on.
    await dispatch.stop();
    const second = await startTestService(notificationsService, {
      DATABASE_URL: sys.db.serviceUrl("notifications"),
      NATS_URL: sys.events.natsUrl,
      EVENTS_STREAM: sys.events.stream,
      EVENTS_SUBJECT_PREFIX: sys.events.subjectPrefix,
      EVENTS_ACK_WAIT_MS: "3000",
      DB_POOL_MAX: "5",
      CATALOG_URL: sys.services.catalog.rpcUrl,
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8,::1/128",
      WEBHOOK_SECRETS_KEY: SECRETS_KEY,
      DELIVERY_POLL_MS: "50",
      INTEREST_REFRESH_MS: REFRESH_MS,
    });
    try {
      const api = await tenant("replicated");
      // Loaded before the subscription exists: only the broadcast can tell it.
      expect(await second.deps.interest.accepts("replicated", "FACILITY_CREATED")).toBe(false);
      await subscribe(api, "FACILITY_CREATED", "/replicated");
      const facilityId = await facility(api, "Replicated store");
      const [hook] = await eventually(async () =>
        hooks.on("/replicated").length ? hooks.on("/replicated") : undefined,
      );
      expect(JSON.parse(hook!.body)).toMatchObject({
        event: "FACILITY_CREATED",
        payload: { id: facilityId },
      });
      expect(await second.deps.interest.accepts("replicated", "FACILITY_CREATED")).toBe(true);
    } finally {
      await second.close();
      await dispatch.start();
    }
  });
});
