/**
 * NotificationsService over a real Connect client, Postgres and JetStream: the notification center
 * configuration and its channels, webhook subscriptions, and an event on the stream becoming a
 * signed webhook at a local receiver (outside the system) and a CLIENT notification.
 */
import { randomBytes } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { query } from "@fop/kit/db/sql";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import {
  expectInvalid,
  rpcContext,
  rpcFailure,
  testCallerToken,
  testCredentials,
} from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { expectEntityEvents, publishEvent } from "@fop/kit/testing/stream";
import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { notificationsService } from "../src/service.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `NOTIFICATIONS_T_${suffix.toUpperCase()}`;
const PREFIX = `n${suffix}.events`;
const FACILITY = newId();
let db: TestDatabase;
let svc: RunningService<Awaited<ReturnType<typeof notificationsService.createDeps>>>;
let hooks: WebhookReceiver;

beforeAll(async () => {
  // /down answers 500 for good; every other path 200.
  hooks = await startWebhookReceiver((path) => (path === "/down" ? 500 : 200));
  db = await createTestDatabase(inject("adminUrl"), [notificationsService]);
  // The catalog is not what these tests are about: FACILITY exists in every tenant, nothing else.
  const mod = {
    ...notificationsService,
    createDeps: async (...args: Parameters<typeof notificationsService.createDeps>) => ({
      ...(await notificationsService.createDeps(...args)),
      facilities: {
        exists: async (_: unknown, id: string) => id === FACILITY,
        address: async () => undefined,
      },
    }),
  };
  svc = await startTestService(mod, {
    DATABASE_URL: db.serviceUrl("notifications"),
    EVENTS_STREAM: STREAM,
    EVENTS_SUBJECT_PREFIX: PREFIX,
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
    // The receiver is on this host, over http: allowed explicitly, as a deployment would.
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
    WEBHOOK_TIMEOUT_MS: "2000",
    DELIVERY_MAX_ATTEMPTS: "2",
    DELIVERY_RETRY_BASE_MS: "50",
    DELIVERY_POLL_MS: "50",
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(STREAM).catch(() => {});
  await svc?.close();
  await db?.drop();
  await hooks?.close();
});

const client = () => createRpcClient(NotificationsService, svc.rpcUrl, testCredentials);
const opts = (tenant: string) => callOptions(rpcContext(tenant));
const parse = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString("utf8")) as Record<string, any>;
/** The events of `ref` the relay published, polled until they are `expected`. */
const expectEvents = (ref: string, expected: [string, number][]) =>
  expectEntityEvents(svc.base.nats, STREAM, ref, expected);

const clientChannel = (events = ["PICK_JOB_CREATED"]) => ({ type: "CLIENT", enabled: true, events });
const getConfig = async (tenant: string, facilityRef = "") =>
  parse((await client().getNotificationConfig({ facilityRef }, opts(tenant))).documentJson);
const putConfig = (tenant: string, body: JsonObject, facilityRef = "") =>
  client().putNotificationConfig({ facilityRef, body }, opts(tenant));
const storedConfig = async (tenant: string, facilityRef = "") =>
  (
    await query<{ version: number; doc: Record<string, any> }>(svc.deps.db, {
      text: "select version, doc from notifications.notification_config where tenant_id = $1 and facility_ref = $2",
      params: [tenant, facilityRef],
    })
  )[0];

describe("notification center configuration", () => {
  it("GetNotificationConfig is NOT_FOUND until a Put creates it; Put replaces it on its version, each an event", async () => {
    expect(await rpcFailure(client().getNotificationConfig({ facilityRef: "" }, opts("c1")))).toMatchObject({
      code: Code.NotFound,
      detail: { code: "NOTIFICATION_CONFIG_NOT_FOUND" },
    });
    const first = await putConfig("c1", {
      channels: [
        clientChannel(),
        {
          type: "EMAIL",
          enabled: true,
          events: ["ORDER_CANCELLED"],
          receiver: [{ email: "a@example.com", language: "de_DE" }],
        },
      ],
    });
    expect(first.created).toBe(true);
    const doc = parse(first.documentJson);
    expect(doc).toMatchObject({
      version: 1,
      channels: [
        { type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] },
        { type: "EMAIL", receiver: [{ email: "a@example.com", language: "de_DE" }] },
      ],
    });
    expect(doc.channels[0].id).not.toBe(doc.channels[1].id);
    expect(await getConfig("c1")).toEqual(doc);
    expect(await storedConfig("c1")).toEqual({ version: 1, doc });

    expect(await rpcFailure(putConfig("c1", { channels: [] }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VERSION_REQUIRED", field: "/version" },
    });
    expect(await rpcFailure(putConfig("c1", { version: 3, channels: [] }))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 3n, version: 1n },
    });
    const second = await putConfig("c1", { version: 1, channels: [] });
    expect(second.created).toBe(false);
    expect(parse(second.documentJson)).toMatchObject({ version: 2, channels: [], created: doc.created });
    // Another tenant has none.
    expect((await rpcFailure(client().getNotificationConfig({ facilityRef: "" }, opts("c2")))).code).toBe(
      Code.NotFound,
    );
    await expectEvents("c1", [
      ["NOTIFICATION_CENTER_CONFIG_CREATED", 1],
      ["NOTIFICATION_CENTER_CONFIG_UPDATED", 2],
    ]);
  });

  it("refuses channels that break the rules, naming the field, and writes nothing", async () => {
    const refused = [
      [{}, "VALIDATION_FAILED", "/channels"],
      [{ channels: [{ type: "SMS", enabled: true, events: [] }] }, "VALIDATION_FAILED", "/channels/0/type"],
      [
        { channels: [clientChannel(["PICK_JOB_CREATED", "CATEGORY_CREATED"])] },
        "VALIDATION_FAILED",
        "/channels/0/events/1",
      ],
      [
        { channels: [clientChannel(["ORDER_CANCELLED", "ORDER_CANCELLED"])] },
        "VALIDATION_FAILED",
        "/channels/0/events",
      ],
      [
        {
          channels: [
            { type: "EMAIL", enabled: true, events: [], receiver: [{ email: "nope", language: "de_DE" }] },
          ],
        },
        "VALIDATION_FAILED",
        "/channels/0/receiver/0/email",
      ],
    ] as const;
    for (const [body, code, field] of refused) {
      await expectInvalid(putConfig("c3", body as JsonObject), code, field);
    }
    expect(await storedConfig("c3")).toBeUndefined();
  });

  it("channels: ADD_CHANNEL, UPDATE_CHANNEL and DeleteNotificationChannel, each on the current version", async () => {
    await putConfig("c4", { channels: [clientChannel()] });
    const action = (a: JsonObject) =>
      client().notificationConfigAction({ facilityRef: "", action: a }, opts("c4"));
    const added = parse(
      (await action({ name: "ADD_CHANNEL", version: 1, channel: clientChannel(["ORDER_CANCELLED"]) }))
        .documentJson,
    );
    expect(added.version).toBe(2);
    expect(added.channels.map((c: { events: string[] }) => c.events)).toEqual([
      ["PICK_JOB_CREATED"],
      ["ORDER_CANCELLED"],
    ]);
    const id = added.channels[1].id as string;
    expect(
      await rpcFailure(action({ name: "ADD_CHANNEL", version: 1, channel: clientChannel() })),
    ).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 1n, version: 2n },
    });
    expect(await rpcFailure(action({ name: "RENAME", version: 2 }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/name" },
    });
    expect(
      await rpcFailure(
        action({ name: "UPDATE_CHANNEL", version: 2, channel: { ...clientChannel(), id: newId() } }),
      ),
    ).toMatchObject({ code: Code.NotFound, detail: { code: "NOTIFICATION_CHANNEL_NOT_FOUND" } });
    const updated = parse(
      (
        await action({
          name: "UPDATE_CHANNEL",
          version: 2,
          channel: { id, type: "CLIENT", enabled: false, events: [] },
        })
      ).documentJson,
    );
    expect(updated.channels[1]).toEqual({ id, type: "CLIENT", enabled: false, events: [] });

    const remove = (channelId: string, version: number) =>
      client().deleteNotificationChannel(
        { facilityRef: "", channelId, version: BigInt(version) },
        opts("c4"),
      );
    expect(await rpcFailure(remove(id, 2))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT" },
    });
    expect(await rpcFailure(remove(newId(), 3))).toMatchObject({ code: Code.NotFound });
    await remove(id, 3);
    const after = await getConfig("c4");
    expect(after.version).toBe(4);
    expect(after.channels.map((c: { id: string }) => c.id)).toEqual([added.channels[0].id]);
    expect((await storedConfig("c4"))!.version).toBe(4);
  });

  it("a facility's configuration needs the facility; it is its own", async () => {
    expect(await rpcFailure(putConfig("c5", { channels: [] }, newId()))).toMatchObject({
      code: Code.NotFound,
      detail: { code: "FACILITY_NOT_FOUND" },
    });
    await putConfig("c5", { channels: [clientChannel()] }, FACILITY);
    expect((await getConfig("c5", FACILITY)).channels).toHaveLength(1);
    expect((await rpcFailure(client().getNotificationConfig({ facilityRef: "" }, opts("c5")))).code).toBe(
      Code.NotFound,
    );
    await expectEvents(`c5/${FACILITY}`, [["NOTIFICATION_CENTER_CONFIG_CREATED", 1]]);
  });
});

describe("subscriptions", () => {
  const subscribe = (tenant: string, body: JsonObject) => client().createSubscription({ body }, opts(tenant));
  const webhook = (path: string, event = "PICK_JOB_CREATED"): JsonObject => ({
    name: `hook ${path}`,
    event,
    target: { type: "WEBHOOK", callbackUrl: hooks.url(path), headers: [{ key: "X-Api-Key", value: "k1" }] },
  });

  it("CreateSubscription answers it with its secret once; Get and List read it without; Delete removes it; each an event", async () => {
    const created = parse((await subscribe("s1", webhook("/s1"))).documentJson);
    expect(created).toMatchObject({
      name: "hook /s1",
      event: "PICK_JOB_CREATED",
      target: {
        type: "WEBHOOK",
        callbackUrl: hooks.url("/s1"),
        headers: [{ key: "X-Api-Key", value: "k1" }],
      },
      callbackUrl: hooks.url("/s1"),
    });
    expect(created.secret).toMatch(/^whsec_/);
    const { secret: _, ...stored } = created;
    const got = parse((await client().getSubscription({ id: created.id }, opts("s1"))).documentJson);
    expect(got).toEqual(stored);
    const other = parse((await subscribe("s1", webhook("/s1b", "ORDER_CANCELLED"))).documentJson);
    const list = await client().listSubscriptions({ size: 10 }, opts("s1"));
    expect(list.total).toBe(2n);
    expect(
      list.subscriptionsJson
        .map(parse)
        .map((s) => s.id)
        .sort(),
    ).toEqual([created.id, other.id].sort());
    expect(list.subscriptionsJson.map(parse).every((s) => s.secret === undefined)).toBe(true);
    expect((await client().listSubscriptions({ size: 10 }, opts("s2"))).total).toBe(0n);
    // The secret is kept sealed, never as given.
    const [row] = await query<{ secret: Buffer }>(svc.deps.db, {
      text: "select secret from notifications.subscription where tenant_id = $1 and id = $2",
      params: ["s1", created.id],
    });
    expect(row!.secret.includes(Buffer.from(created.secret))).toBe(false);

    await client().deleteSubscription({ id: created.id }, opts("s1"));
    for (const call of [
      () => client().getSubscription({ id: created.id }, opts("s1")),
      () => client().deleteSubscription({ id: created.id }, opts("s1")),
      () => client().getSubscription({ id: other.id }, opts("s2")),
      () => client().listDeadLetters({ subscriptionId: "nope", size: 10 }, opts("s1")),
    ]) {
      expect(await rpcFailure(call())).toMatchObject({
        code: Code.NotFound,
        detail: { code: "SUBSCRIPTION_NOT_FOUND" },
      });
    }
    expect((await client().listSubscriptions({ size: 10 }, opts("s1"))).total).toBe(1n);
    await expectEvents(created.id, [
      ["SUBSCRIPTION_CREATED", 1],
      ["SUBSCRIPTION_DELETED", 1],
    ]);
  });

  it("refuses bad input naming the field: unknown event, a target it may not reach, reserved headers, a sixth per event", async () => {
    const refused = [
      [{ ...webhook("/x"), event: "NO_SUCH_EVENT" }, "VALIDATION_FAILED", "/event"],
      [{ ...webhook("/x"), name: "" }, "VALIDATION_FAILED", "/name"],
      [
        { ...webhook("/x"), target: { type: "WEBHOOK", callbackUrl: "http://10.1.2.3/hook" } },
        "INVALID_CALLBACK_URL",
        "/target/callbackUrl",
      ],
      [
        { ...webhook("/x"), target: { type: "PUBSUB", callbackUrl: hooks.url("/x") } },
        "VALIDATION_FAILED",
        "/target/type",
      ],
      [
        {
          ...webhook("/x"),
          target: {
            type: "WEBHOOK",
            callbackUrl: hooks.url("/x"),
            headers: [{ key: "webhook-id", value: "1" }],
          },
        },
        "RESERVED_HEADER",
        "/target/headers/0/key",
      ],
    ] as const;
    for (const [body, code, field] of refused) {
      await expectInvalid(subscribe("s3", body as JsonObject), code, field);
    }
    for (let i = 0; i < 5; i++) await subscribe("s3", webhook(`/s3-${i}`, "ORDER_MODIFIED"));
    expect(await rpcFailure(subscribe("s3", webhook("/s3-5", "ORDER_MODIFIED")))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "LIMIT_EXCEEDED", field: "/event" },
    });
    expect((await client().listSubscriptions({ size: 10 }, opts("s3"))).total).toBe(5n);
  });
});

describe("an event on the stream", () => {
  /** Publishes a PICK_JOB_CREATED of `tenant` as picking's relay does: envelope, subject, tenant header. */
  async function publishPickJobCreated(tenant: string) {
    const id = newId();
    const doc = { id, version: 1, status: "OPEN", facilityRef: FACILITY, tenantOrderId: "O-7" };
    const { envelope, publish } = await publishEvent(svc.base.nats, PREFIX, tenant, {
      type: "PICK_JOB_CREATED",
      entityType: "PICK_JOB",
      entityRef: id,
      entityVersion: 1,
      entityCreated: new Date(),
      payload: {
        schema: PickJobSchema,
        message: create(PickJobSchema, {
          id,
          version: 1n,
          status: "OPEN",
          facilityRef: FACILITY,
          documentJson: Buffer.from(JSON.stringify(doc)),
        }),
      },
    });
    return { event: envelope, publish };
  }
  const deliveries = (tenant: string) =>
    query<{ kind: string; state: string; attempts: number; event_id: string; last_status: number | null }>(
      svc.deps.db,
      {
        text: "select kind, state, attempts, event_id, last_status from notifications.delivery where tenant_id = $1 order by created",
        params: [tenant],
      },
    );

  it("becomes one signed webhook per subscription and one CLIENT notification per channel, once even when delivered twice", async () => {
    const secret = parse(
      (
        await client().createSubscription(
          {
            body: {
              name: "e1",
              event: "PICK_JOB_CREATED",
              target: {
                type: "WEBHOOK",
                callbackUrl: hooks.url("/e1"),
                headers: [{ key: "X-Api-Key", value: "k-e1" }],
              },
            },
          },
          opts("e1"),
        )
      ).documentJson,
    ).secret as string;
    await putConfig("e1", { channels: [clientChannel()] });
    const { event, publish } = await publishPickJobCreated("e1");
    await expect.poll(() => hooks.on("/e1").length, { timeout: 10_000 }).toBe(1);
    const [call] = hooks.on("/e1");
    expect(call!.headers).toMatchObject({
      "webhook-id": event.id,
      "x-api-key": "k-e1",
      "content-type": "application/json",
    });
    const body = new Webhook(secret).verify(call!.body, call!.headers as Record<string, string>) as Record<
      string,
      any
    >;
    expect(body).toMatchObject({
      event: "PICK_JOB_CREATED",
      eventId: event.id,
      payload: { id: event.entityRef, facilityRef: FACILITY, tenantOrderId: "O-7" },
    });
    await expect
      .poll(async () => (await deliveries("e1")).map((d) => [d.kind, d.state, d.last_status]))
      .toEqual([["WEBHOOK", "DELIVERED", 200]]);

    const search = async () =>
      (
        await client().searchNotifications({ search: { size: 10, withTotal: true } }, opts("e1"))
      ).notificationsJson.map(parse);
    await expect.poll(search, { timeout: 10_000 }).toHaveLength(1);
    expect((await search())[0]).toMatchObject({
      type: "CLIENT",
      status: "OPEN",
      category: "FACILITY",
      priority: { label: "MEDIUM" },
    });

    // The same event again (another message id: JetStream keeps both) changes nothing.
    await publish(`${event.id}-again`);
    const marker = await publishPickJobCreated("e1");
    await expect.poll(() => hooks.on("/e1").length, { timeout: 10_000 }).toBe(2);
    expect(hooks.on("/e1").map((c) => c.headers["webhook-id"])).toEqual([event.id, marker.event.id]);
    await expect.poll(search, { timeout: 10_000 }).toHaveLength(2);
    // Another tenant's event reaches none of this tenant's subscriptions.
    await publishPickJobCreated("e2");
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.on("/e1")).toHaveLength(2);
  });

  it("a receiver that keeps failing is tried DELIVERY_MAX_ATTEMPTS times and its delivery ends in the dead letters", async () => {
    const sub = parse(
      (
        await client().createSubscription(
          {
            body: {
              name: "down",
              event: "PICK_JOB_CREATED",
              target: { type: "WEBHOOK", callbackUrl: hooks.url("/down") },
            },
          },
          opts("e3"),
        )
      ).documentJson,
    );
    const { event } = await publishPickJobCreated("e3");
    const dead = async () =>
      (await client().listDeadLetters({ subscriptionId: sub.id, size: 10 }, opts("e3"))).deadLettersJson.map(
        parse,
      );
    await expect.poll(dead, { timeout: 10_000 }).toHaveLength(1);
    expect(hooks.on("/down")).toHaveLength(2);
    expect(await deliveries("e3")).toEqual([
      { kind: "WEBHOOK", state: "DEAD", attempts: 2, event_id: event.id, last_status: 500 },
    ]);
    expect(JSON.stringify((await dead())[0])).toContain(event.id);
  });
});

describe("a caller token", () => {
  it("acts for the tenants it names only", async () => {
    await putConfig("k1", { channels: [clientChannel()] });
    const token = await testCallerToken("notifications-team", ["k1"]);
    const asCaller = createRpcClient(NotificationsService, svc.rpcUrl, async () => token);
    expect(parse((await asCaller.getNotificationConfig({ facilityRef: "" })).documentJson).version).toBe(1);
    expect(await rpcFailure(asCaller.getNotificationConfig({ facilityRef: "" }, opts("k2")))).toMatchObject({
      code: Code.PermissionDenied,
      detail: { code: "TENANT_NOT_GRANTED" },
    });
  });
});
