/**
 * Webhook subscriptions through the gateway: create (target and the deprecated top-level form, the
 * secret shown once, Location) / get / list with size and total / delete; the platform's SDK
 * (FftSubscriptionService) unchanged; every validation 400 naming its field; the SSRF rules (private,
 * link-local, IPv4-mapped, credentials, unresolvable names; loopback allowed in the test system);
 * the 5-per-event limit, exact under 10 concurrent creates, per event and tenant; tenant isolation;
 * dead letters; the supported events; permissions; a deleted subscription gets no more deliveries;
 * the live notification stream's auth and heartbeat. (The delivery itself: notifications-delivery.)
 */

import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import {
  FftApiClient,
  FftSubscriptionService,
  SubscriptionEvent,
  SubscriptionTargetWebhookEnum,
} from "@fulfillmenttools/fulfillmenttools-sdk-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type ApiResponse, eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let hooks: WebhookReceiver;

const SUBS = "/api/subscriptions";
const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PROJECT = "subscriptions-sdk";
const realFetch = globalThis.fetch;
let seq = 0;

/** A tenant of its own (its per-event limits untouched by other tests). */
const tenant = async (name: string, opts: Parameters<System["token"]>[1] = {}) =>
  sys.as(await sys.token(name, opts));

const sink = () => hooks.url(`/sink/${++seq}`);
const webhook = (extra: Record<string, unknown> = {}) => ({
  name: `Hook ${++seq}`,
  event: "PICK_JOB_CREATED",
  target: { type: "WEBHOOK", callbackUrl: sink(), headers: [{ key: "X-Api-Key", value: "k" }] },
  ...extra,
});

async function create(body: Record<string, unknown>, as = api) {
  const res = await as("POST", SUBS, body);
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

/** A 400 whose first error's description names `field` (and nothing was stored). */
function expect400(res: ApiResponse, field: string, label = field) {
  expect(res.status, `${label}: ${res.text}`).toBe(400);
  expect(Array.isArray(res.body), `${label}: ${res.text}`).toBe(true);
  expect(res.body[0], `${label}: ${res.text}`).toMatchObject({
    summary: expect.any(String),
    description: expect.any(String),
    code: expect.any(String),
  });
  expect(res.body[0].description, `${label}: ${res.text}`).toContain(field);
}

/**
 * The names the SSRF tests use, resolved by the notifications service's WEBHOOK_HOSTS, never by DNS
 * (names under .invalid never resolve): no test sends traffic anywhere but to loopback.
 */
const HOSTS = {
  "private.hooks.test": "10.0.0.7",
  "metadata.hooks.test": "169.254.169.254",
  "nat64.hooks.test": "64:ff9b::a00:7",
  "loop.hooks.test": "127.0.0.1",
};

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  sys = await startSystem({
    serviceEnv: {
      WEBHOOK_HOSTS: Object.entries(HOSTS)
        .map(([name, address]) => `${name}=${address}`)
        .join(","),
    },
  });
  api = sys.as(await sys.token("acme", { user: "sub.scriber" }));
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await sys?.close();
  await hooks?.close();
});

describe("subscription CRUD", () => {
  it("creates with a target (201, Location, secret once), reads without the secret, deletes", async () => {
    const callbackUrl = sink();
    const headers = [
      { key: "X-Api-Key", value: "abc" },
      { key: "Authorization", value: "Basic dXNlcjpwYXNz" },
    ];
    const res = await api("POST", SUBS, {
      name: "Orders system",
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl, headers },
    });
    expect(res.status, res.text).toBe(201);
    const created = res.body;
    expect(created).toEqual({
      id: expect.any(String),
      name: "Orders system",
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl, headers },
      callbackUrl,
      headers,
      created: expect.stringMatching(ISO),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    expect(Math.abs(Date.parse(created.created) - Date.now())).toBeLessThan(60_000);
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/subscriptions/${created.id}$`));

    const { secret, ...withoutSecret } = created;
    const got = await api("GET", `${SUBS}/${created.id}`);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual(withoutSecret);
    expect(got.text).not.toContain(secret);

    const list = await api("GET", `${SUBS}?size=500`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.subscriptions).toContainEqual(withoutSecret);
    expect(list.text).not.toContain("whsec_");

    const del = await api("DELETE", `${SUBS}/${created.id}`);
    expect(del.status, del.text).toBe(200);
    expect(del.text).toBe("");
    expect((await api("GET", `${SUBS}/${created.id}`)).status).toBe(404);
    expect((await api("DELETE", `${SUBS}/${created.id}`)).status).toBe(404);
    expect((await api("GET", `${SUBS}?size=500`)).body.subscriptions.map((s: any) => s.id)).not.toContain(
      created.id,
    );
  });

  it("404 for unknown and non-uuid ids (GET, DELETE, dead letters)", async () => {
    for (const id of [UNKNOWN, "nope", "1", "urn:fft:subscription:nope"]) {
      const get = await api("GET", `${SUBS}/${encodeURIComponent(id)}`);
      expect(get.status, `GET ${id}: ${get.text}`).toBe(404);
      expect(get.body[0]).toMatchObject({ summary: expect.any(String) });
      expect((await api("DELETE", `${SUBS}/${encodeURIComponent(id)}`)).status, `DELETE ${id}`).toBe(404);
      expect(
        (await api("GET", `${SUBS}/${encodeURIComponent(id)}/deadletters`)).status,
        `deadletters ${id}`,
      ).toBe(404);
    }
  });

  it("the deprecated form (top-level callbackUrl and headers) gives the same shape", async () => {
    const callbackUrl = sink();
    const headers = [{ key: "X-Legacy", value: "1" }];
    const res = await api("POST", SUBS, {
      name: "Legacy",
      event: "PICK_JOB_ABORTED",
      callbackUrl,
      headers,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "Legacy",
      event: "PICK_JOB_ABORTED",
      target: { type: "WEBHOOK", callbackUrl, headers },
      callbackUrl,
      headers,
      created: expect.stringMatching(ISO),
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/subscriptions/${res.body.id}$`));
    const { secret: _s, ...doc } = res.body;
    expect((await api("GET", `${SUBS}/${res.body.id}`)).body).toEqual(doc);

    // Without headers: an empty list in both places.
    const bare = await create({ name: "Bare", event: "PICK_JOB_ABORTED", callbackUrl: sink() });
    expect(bare.headers).toEqual([]);
    expect(bare.target.headers).toEqual([]);
  });

  it("lists by size with the total of all; size 0 and 501 are 400", async () => {
    const t = await tenant("paging");
    const ids: string[] = [];
    for (const event of ["PICK_JOB_CREATED", "PICK_JOB_ABORTED", "CATEGORY_CREATED"]) {
      ids.push((await create(webhook({ event }), t)).id);
    }
    const page = await t("GET", `${SUBS}?size=2`);
    expect(page.status, page.text).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(["subscriptions", "total"]);
    expect(page.body.subscriptions).toHaveLength(2);
    expect(page.body.total).toBe(3);
    for (const s of page.body.subscriptions) {
      expect(ids).toContain(s.id);
      expect(s.secret).toBeUndefined();
    }
    const all = await t("GET", SUBS);
    expect(all.body.subscriptions.map((s: any) => s.id).sort()).toEqual([...ids].sort());
    expect(all.body.total).toBe(3);
    expect((await t("GET", `${SUBS}?size=500`)).status).toBe(200);
    for (const size of ["0", "501", "-1", "abc"]) {
      expect400(await t("GET", `${SUBS}?size=${size}`), "size", `size=${size}`);
    }
  });
});

describe("the platform's SDK, unchanged", () => {
  it("FftSubscriptionService: createSubscription, getSubscriptions(10), deleteSubscription", async () => {
    const idToken = await sys.token("sdk-subs", { roles: ["ADMIN"], user: "sdk-user" });
    const apiBase = `https://${PROJECT}.api.fulfillmenttools.com/api/`;
    const sent: { method: string; url: string }[] = [];
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.startsWith("https://identitytoolkit.googleapis.com/")) {
        return Response.json({ idToken, refreshToken: "unused", expiresIn: "3600" });
      }
      if (url.startsWith(apiBase)) {
        sent.push({ method: init?.method ?? "GET", url: url.slice(apiBase.length - 1) });
        return realFetch(`${sys.baseUrl}/api/${url.slice(apiBase.length)}`, init);
      }
      return realFetch(input, init);
    }) as typeof fetch;
    try {
      const client = new FftApiClient(PROJECT, "user@example.com", "password", "api-key", {
        getLogger: () => ({ debug() {}, log() {}, info() {}, warn() {}, error() {} }) as never,
      });
      const subscriptions = new FftSubscriptionService(client);
      const callbackUrl = sink();
      const created = await subscriptions.createSubscription({
        name: "SDK hook",
        event: SubscriptionEvent.PICK_JOB_CREATED,
        target: {
          type: SubscriptionTargetWebhookEnum.WEBHOOK,
          callbackUrl,
          headers: [{ key: "X-Api-Key", value: "sdk" }],
        },
      });
      expect(created).toMatchObject({
        id: expect.any(String),
        name: "SDK hook",
        event: "PICK_JOB_CREATED",
        target: { type: "WEBHOOK", callbackUrl, headers: [{ key: "X-Api-Key", value: "sdk" }] },
        callbackUrl,
      });
      expect((created as unknown as { secret: string }).secret).toMatch(/^whsec_/);
      // The deprecated form, as older SDK users write it.
      const legacy = await subscriptions.createSubscription({
        name: "SDK legacy",
        event: SubscriptionEvent.PICK_JOB_ABORTED,
        callbackUrl: sink(),
        headers: [],
      });
      expect(legacy.target).toMatchObject({ type: "WEBHOOK" });

      const listed = await subscriptions.getSubscriptions(10);
      expect(listed.total).toBe(2);
      expect(listed.subscriptions?.map((s) => s.id).sort()).toEqual([created.id, legacy.id].sort());
      expect(sent.some((r) => r.method === "GET" && r.url === "/subscriptions?size=10")).toBe(true);

      await subscriptions.deleteSubscription(created.id);
      const after = await subscriptions.getSubscriptions(10);
      expect(after.total).toBe(1);
      expect(after.subscriptions?.map((s) => s.id)).toEqual([legacy.id]);
      // Deleting what is gone is the platform's 404, which the SDK surfaces as an error.
      await expect(subscriptions.deleteSubscription(created.id)).rejects.toThrow();
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it("every SubscriptionEvent of the SDK is accepted and listed as supported", async () => {
    const t = await tenant("sdk-events");
    const supported = (await t("GET", "/api/supportedevents")).body.events.map((e: any) => e.event);
    for (const event of Object.values(SubscriptionEvent)) {
      expect(supported, event).toContain(event);
      const res = await t("POST", SUBS, webhook({ event }));
      expect(res.status, `${event}: ${res.text}`).toBe(201);
    }
  });
});

describe("validation: 400 naming the field, nothing stored", () => {
  it("name, event, target type, callbackUrl, headers, a missing target", async () => {
    const t = await tenant("validation");
    const ok = webhook();
    const { name: _n, ...noName } = ok;
    const { target: _t, ...noTarget } = ok;
    const header = (key: string, value = "v") => ({
      ...ok,
      target: { ...ok.target, headers: [{ key, value }] },
    });
    const cases: [string, Record<string, unknown>][] = [
      ["name", noName],
      ["name", { ...ok, name: "" }],
      ["event", { ...ok, event: "NOT_AN_EVENT" }],
      ["event", { ...ok, event: "pick_job_created" }],
      ["target/type", { ...ok, target: { ...ok.target, type: "MICROSOFT_AZURE_SERVICE_BUS" } }],
      ["callbackUrl", { ...ok, target: { type: "WEBHOOK", callbackUrl: "not a url" } }],
      ["callbackUrl", { ...ok, target: { type: "WEBHOOK", callbackUrl: "/relative/path" } }],
      ["callbackUrl", { ...ok, target: { type: "WEBHOOK", callbackUrl: "ftp://example.com/x" } }],
      ["callbackUrl", { ...ok, target: { type: "WEBHOOK" } }],
      ["callbackUrl", { ...noTarget, callbackUrl: "not a url" }],
      ["headers/0/key", header("webhook-signature")],
      ["headers/0/key", header("Webhook-Id")],
      ["headers/0/key", header("Content-Type", "text/plain")],
      ["headers/0/key", header("content-length", "1")],
      ["headers/0/key", header("Bad Header")],
      ["headers/0/value", header("X-Injected", "a\r\nX-Evil: 1")],
      ["headers/0/value", header("X-Injected", "a\nb")],
      [
        "headers",
        {
          ...ok,
          target: {
            ...ok.target,
            headers: Array.from({ length: 21 }, (_, i) => ({ key: `X-H${i}`, value: "v" })),
          },
        },
      ],
      [
        "headers",
        {
          ...noTarget,
          callbackUrl: sink(),
          headers: Array.from({ length: 21 }, (_, i) => ({ key: `X-H${i}`, value: "v" })),
        },
      ],
      [
        "target/headers",
        {
          ...ok,
          target: {
            ...ok.target,
            headers: [
              { key: "X-A", value: "1" },
              { key: "x-a", value: "2" },
            ],
          },
        },
      ],
      ["target", noTarget],
    ];
    for (const [field, body] of cases) {
      expect400(await t("POST", SUBS, body), field, `${field} ${JSON.stringify(body).slice(0, 160)}`);
    }
    // The deprecated form names the top-level field, the target form the target's.
    const legacyHeader = await t("POST", SUBS, {
      ...noTarget,
      callbackUrl: sink(),
      headers: [{ key: "webhook-signature", value: "v1,forged" }],
    });
    expect400(legacyHeader, "headers/0/key");
    expect(legacyHeader.body[0].description).not.toContain("target");
    const bad = await t("POST", SUBS, "{not json");
    expect(bad.status, bad.text).toBe(400);
    expect((await t("GET", SUBS)).body.total).toBe(0);

    // At the edges: 20 headers and a 4096-character value are fine.
    const edge = await t("POST", SUBS, {
      ...ok,
      target: {
        ...ok.target,
        headers: Array.from({ length: 20 }, (_, i) => ({ key: `X-H${i}`, value: "v".repeat(4096) })),
      },
    });
    expect(edge.status, edge.text).toBe(201);
    expect(edge.body.target.headers).toHaveLength(20);
  });

  it("the SDK's other target type (MICROSOFT_AZURE_SERVICE_BUS, as the SDK shapes it) is 400 naming target/type", async () => {
    const t = await tenant("validation-azure");
    // SubscriptionTargetMicrosoftAzureServiceBus: no callbackUrl; the problem is the type.
    const res = await t("POST", SUBS, {
      name: "Service bus",
      event: "PICK_JOB_CREATED",
      target: {
        type: "MICROSOFT_AZURE_SERVICE_BUS",
        tenantId: "t",
        clientId: "c",
        clientSecret: "s",
        namespace: "ns",
        queueOrTopicName: "q",
      },
    });
    expect400(res, "target/type");
    expect((await t("GET", SUBS)).body.total).toBe(0);
  });

  it("a header value the delivery cannot send (beyond Latin-1, control characters) is 400 naming its value", async () => {
    const t = await tenant("validation-header-chars");
    // Node's HTTP client refuses these header values (ERR_INVALID_CHAR): every delivery would fail.
    const results: [string, number, string][] = [];
    for (const value of ["\u20acuro", "a\u0001b", "a\u007fb", "Bearer \u{1F511}"]) {
      const res = await t(
        "POST",
        SUBS,
        webhook({ target: { type: "WEBHOOK", callbackUrl: sink(), headers: [{ key: "X-Token", value }] } }),
      );
      results.push([JSON.stringify(value), res.status, String(res.body?.[0]?.description ?? "")]);
    }
    expect(results).toEqual(
      results.map(([v]) => [v, 400, expect.stringContaining("target/headers/0/value")]),
    );
    expect((await t("GET", SUBS)).body.total).toBe(0);
    // Tabs and Latin-1 are sendable, and accepted.
    const fine = await t(
      "POST",
      SUBS,
      webhook({
        target: { type: "WEBHOOK", callbackUrl: sink(), headers: [{ key: "X-Token", value: "a\tb \u00e4" }] },
      }),
    );
    expect(fine.status, fine.text).toBe(201);
  });

  it("SSRF: private, link-local, IPv4-mapped, credentials and unresolvable names are 400 naming callbackUrl", async () => {
    const t = await tenant("ssrf");
    for (const callbackUrl of [
      "https://10.0.0.1/x",
      "http://169.254.169.254/latest/meta-data",
      "https://192.168.1.1/",
      "https://[::ffff:10.0.0.1]/",
      "https://[::ffff:169.254.169.254]/latest",
      "https://172.16.0.1/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://user:pass@example.com/",
      "https://does-not-exist.invalid/",
    ]) {
      expect400(
        await t("POST", SUBS, webhook({ target: { type: "WEBHOOK", callbackUrl } })),
        "callbackUrl",
        callbackUrl,
      );
      // The deprecated form is held to the same rules.
      const { target: _t, ...legacy } = webhook({ callbackUrl });
      expect400(await t("POST", SUBS, legacy), "callbackUrl", `deprecated ${callbackUrl}`);
    }
    expect((await t("GET", SUBS)).body.total).toBe(0);

    // Loopback is in the test system's WEBHOOK_ALLOWED_CIDRS (and plain http is allowed there).
    const allowed = await t(
      "POST",
      SUBS,
      webhook({ target: { type: "WEBHOOK", callbackUrl: "http://127.0.0.1:9/x" } }),
    );
    expect(allowed.status, allowed.text).toBe(201);
    expect(allowed.body.target.callbackUrl).toBe("http://127.0.0.1:9/x");
  });
});

describe("SSRF: what the answer tells, what is stored", () => {
  it("a name that does not resolve and one that resolves to a private address get the same 400 (no DNS oracle)", async () => {
    const t = await tenant("ssrf-oracle");
    const answers = [];
    for (const callbackUrl of [
      "https://does-not-exist.invalid/x",
      "https://private.hooks.test/x",
      "https://metadata.hooks.test/latest/meta-data",
      "https://nat64.hooks.test/x",
      "https://10.0.0.7/x",
      "https://[64:ff9b::a00:7]/x",
    ]) {
      const res = await t("POST", SUBS, webhook({ target: { type: "WEBHOOK", callbackUrl } }));
      expect400(res, "callbackUrl", callbackUrl);
      answers.push({ callbackUrl, problems: res.body });
    }
    const [first, ...rest] = answers;
    for (const a of rest) expect(a.problems, a.callbackUrl).toEqual(first!.problems);
    expect((await t("GET", SUBS)).body.total).toBe(0);
  });

  it("IPv6 addresses carrying a private IPv4 address, in any spelling, are 400 naming callbackUrl", async () => {
    const t = await tenant("ssrf-embedded");
    // (Loopback is allowed in the test system: private and link-local addresses stand for it.)
    for (const callbackUrl of [
      "https://[::ffff:a00:1]/",
      "https://[0:0:0:0:0:ffff:10.0.0.1]/",
      "https://[::10.0.0.1]/",
      "https://[::ffff:0:a9fe:a9fe]/",
      "https://[64:ff9b::169.254.169.254]/latest/meta-data",
      "https://[64:ff9b:1::a00:1]/",
      "https://[2002:a9fe:a9fe::1]/",
      "https://[2002:c0a8:101::]/",
      "https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/",
      "https://167772161/",
      "https://0xa9.0xfe.0xa9.0xfe/",
      "https://0xa.1/",
      "https://012.0.0.1/",
    ]) {
      expect400(
        await t("POST", SUBS, webhook({ target: { type: "WEBHOOK", callbackUrl } })),
        "callbackUrl",
        callbackUrl,
      );
    }
    expect((await t("GET", SUBS)).body.total).toBe(0);
  });

  it("port 0 is a 400 naming callbackUrl, in both forms", async () => {
    const t = await tenant("ssrf-port0");
    for (const callbackUrl of ["http://127.0.0.1:0/x", "http://loop.hooks.test:00/x"]) {
      expect400(await t("POST", SUBS, webhook({ target: { type: "WEBHOOK", callbackUrl } })), "callbackUrl");
      const { target: _t, ...legacy } = webhook({ callbackUrl });
      expect400(await t("POST", SUBS, legacy), "callbackUrl");
    }
    expect((await t("GET", SUBS)).body.total).toBe(0);
  });

  it("the callback URL is stored as it is delivered to: normalised", async () => {
    const t = await tenant("ssrf-normalised");
    const port = new URL(hooks.url("/")).port;
    for (const [typed, stored] of [
      [`http://0x7f.1:${port}/a/../normalised`, `http://127.0.0.1:${port}/normalised`],
      [`HTTP://LOOP.Hooks.TEST:${port}/by-name?x=1`, `http://loop.hooks.test:${port}/by-name?x=1`],
      [`http://2130706433:${port}`, `http://127.0.0.1:${port}/`],
    ] as const) {
      const made = await create(webhook({ target: { type: "WEBHOOK", callbackUrl: typed } }), t);
      expect(made.target.callbackUrl, typed).toBe(stored);
      expect(made.callbackUrl).toBe(stored);
      const read = await t("GET", `${SUBS}/${made.id}`);
      expect(read.body.target.callbackUrl, typed).toBe(stored);
      expect(read.body.callbackUrl).toBe(stored);
    }
    const { target: _t, ...legacy } = webhook({ callbackUrl: `http://0x7f.1:${port}/legacy` });
    expect((await create(legacy, t)).target.callbackUrl).toBe(`http://127.0.0.1:${port}/legacy`);
  });

  it("a name is delivered to at the address WEBHOOK_HOSTS gives it (the resolver of the check is the delivery's)", async () => {
    const t = await tenant("ssrf-hosts");
    const facility = await t("POST", "/api/facilities", { name: "Hosts store", address: facilityAddress });
    expect(facility.status, facility.text).toBe(201);
    const port = new URL(hooks.url("/")).port;
    await create(
      {
        name: "By name",
        event: "PICK_JOB_CREATED",
        target: { type: "WEBHOOK", callbackUrl: `http://loop.hooks.test:${port}/by-hosts` },
      },
      t,
    );
    const job = await t("POST", "/api/pickjobs", pickJobBody(facility.body.id));
    expect(job.status, job.text).toBe(201);
    await eventually(async () => hooks.on("/by-hosts").length > 0, 10_000, 25);
    expect(JSON.parse(hooks.on("/by-hosts")[0]!.body)).toMatchObject({ payload: { id: job.body.id } });
  });
});

describe("at most 5 subscriptions per event and tenant", () => {
  it("5 -> 201, the 6th -> 400 naming the event; other events and tenants unaffected", async () => {
    const t = await tenant("limits");
    for (let i = 0; i < 5; i++) await create(webhook({ event: "CARRIER_CREATED" }), t);
    const sixth = await t("POST", SUBS, webhook({ event: "CARRIER_CREATED" }));
    expect400(sixth, "event");
    expect(sixth.body[0]).toMatchObject({
      code: "LIMIT_EXCEEDED",
      description: expect.stringContaining("CARRIER_CREATED"),
    });
    // Another kind, and another tenant's same kind.
    await create(webhook({ event: "CARRIER_UPDATED" }), t);
    const other = await tenant("limits-other");
    for (let i = 0; i < 5; i++) await create(webhook({ event: "CARRIER_CREATED" }), other);
    expect((await other("POST", SUBS, webhook({ event: "CARRIER_CREATED" }))).status).toBe(400);
    // A deleted one frees its place.
    const list = (await t("GET", `${SUBS}?size=500`)).body.subscriptions as any[];
    const victim = list.find((s) => s.event === "CARRIER_CREATED");
    expect((await t("DELETE", `${SUBS}/${victim.id}`)).status).toBe(200);
    await create(webhook({ event: "CARRIER_CREATED" }), t);
    expect((await t("POST", SUBS, webhook({ event: "CARRIER_CREATED" }))).status).toBe(400);
  });

  it("10 concurrent creates for a fresh event kind -> exactly 5 land, the rest 400", async () => {
    const t = await tenant("limits-concurrent");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t("POST", SUBS, webhook({ event: "FACILITY_CREATED" }))),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 201)) expect400(r, "event");
    const all = (await t("GET", `${SUBS}?size=500`)).body;
    expect(all.subscriptions.filter((s: any) => s.event === "FACILITY_CREATED")).toHaveLength(5);
    expect(all.total).toBe(5);
    // Another kind: its own 5, also under concurrency.
    const more = await Promise.all(
      Array.from({ length: 6 }, () => t("POST", SUBS, webhook({ event: "FACILITY_UPDATED" }))),
    );
    expect(more.filter((r) => r.status === 201)).toHaveLength(5);
    // Another tenant: its own 5 of the same kind.
    const other = await tenant("limits-concurrent-other");
    const theirs = await Promise.all(
      Array.from({ length: 10 }, () => other("POST", SUBS, webhook({ event: "FACILITY_CREATED" }))),
    );
    expect(theirs.filter((r) => r.status === 201)).toHaveLength(5);
    expect((await t("GET", SUBS)).body.total).toBe(10);
    expect((await other("GET", SUBS)).body.total).toBe(5);
  });
});

describe("tenancy, dead letters, supported events, permissions", () => {
  it("another tenant cannot get, delete, list or read the dead letters of a subscription", async () => {
    const a = await tenant("tenant-a");
    const b = await tenant("tenant-b");
    const mine = await create(webhook(), a);
    const { secret: _s, ...doc } = mine;
    expect((await b("GET", `${SUBS}/${mine.id}`)).status).toBe(404);
    expect((await b("DELETE", `${SUBS}/${mine.id}`)).status).toBe(404);
    expect((await b("GET", `${SUBS}/${mine.id}/deadletters`)).status).toBe(404);
    const theirs = (await b("GET", `${SUBS}?size=500`)).body;
    expect(theirs.subscriptions.map((s: any) => s.id)).not.toContain(mine.id);
    expect(theirs.total).toBe(0);
    // Still there, unchanged, for its owner.
    expect((await a("GET", `${SUBS}/${mine.id}`)).body).toEqual(doc);
    expect((await a("GET", SUBS)).body.total).toBe(1);
  });

  it("dead letters: 404 for an unknown subscription, empty for a fresh one", async () => {
    expect((await api("GET", `${SUBS}/${UNKNOWN}/deadletters`)).status).toBe(404);
    const fresh = await create(webhook({ event: "PICK_RUN_CREATED" }));
    const res = await api("GET", `${SUBS}/${fresh.id}/deadletters`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deadLetters: [], total: 0 });
    expect((await api("GET", `${SUBS}/${fresh.id}/deadletters?size=0`)).status).toBe(400);
  });

  it("GET /api/supportedevents lists every event POST accepts, and POST accepts every one listed", async () => {
    const res = await api("GET", "/api/supportedevents");
    expect(res.status, res.text).toBe(200);
    const events = res.body.events as { event: string; description: string }[];
    for (const e of events) expect(e).toEqual({ event: expect.any(String), description: expect.any(String) });
    const names = events.map((e) => e.event);
    expect(names).toEqual(
      expect.arrayContaining(["PICK_JOB_CREATED", "REFUND_TRIGGERED", "ORDER_CANCELLED"]),
    );
    expect(new Set(names).size).toBe(names.length);
    for (const e of events) expect(e.description.length, e.event).toBeGreaterThan(0);

    // Every listed one is accepted; a few lookalikes are not (and are not listed).
    const t = await tenant("supported");
    const candidates = [...names, "NOT_AN_EVENT", "pick_job_created", "PICK_JOB_CREATED ", "ORDER_CREATED"];
    const accepted: string[] = [];
    for (let i = 0; i < candidates.length; i += 20) {
      const batch = candidates.slice(i, i + 20);
      const results = await Promise.all(batch.map((event) => t("POST", SUBS, webhook({ event }))));
      for (const [j, r] of results.entries()) {
        if (r.status === 201) accepted.push(batch[j] as string);
        else expect400(r, "event", batch[j]);
      }
    }
    expect(accepted.sort()).toEqual([...names].sort());
  });

  it("SUBSCRIPTION_READ reads but does not write; no token is 401", async () => {
    const reader = await tenant("acme", { permissions: ["SUBSCRIPTION_READ"] });
    const existing = await create(webhook({ event: "PICK_RUN_FINISHED" }));
    expect((await reader("GET", SUBS)).status).toBe(200);
    expect((await reader("GET", `${SUBS}/${existing.id}`)).status).toBe(200);
    expect((await reader("GET", `${SUBS}/${existing.id}/deadletters`)).status).toBe(200);
    expect((await reader("GET", "/api/supportedevents")).status).toBe(200);
    expect((await reader("POST", SUBS, webhook())).status).toBe(403);
    expect((await reader("DELETE", `${SUBS}/${existing.id}`)).status).toBe(403);
    const none = await tenant("acme", { permissions: ["CATEGORY_READ"] });
    expect((await none("GET", SUBS)).status).toBe(403);
    expect((await none("GET", "/api/supportedevents")).status).toBe(403);
    for (const [method, path] of [
      ["GET", SUBS],
      ["POST", SUBS],
      ["GET", `${SUBS}/${existing.id}`],
      ["DELETE", `${SUBS}/${existing.id}`],
      ["GET", `${SUBS}/${existing.id}/deadletters`],
      ["GET", "/api/supportedevents"],
    ] as const) {
      const res = await sys.api(method, path, method === "POST" ? { body: webhook() } : {});
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(401);
      expect(Array.isArray(res.body), res.text).toBe(true);
    }
    expect((await api("GET", `${SUBS}/${existing.id}`)).status).toBe(200);
  });
});

describe("deliveries and the live stream", () => {
  it("a deleted subscription gets no deliveries (a kept one does)", async () => {
    const t = await tenant("stop");
    const facility = await t("POST", "/api/facilities", { name: "Stop store", address: facilityAddress });
    expect(facility.status, facility.text).toBe(201);
    const gone = await create(
      {
        name: "Gone",
        event: "PICK_JOB_CREATED",
        target: { type: "WEBHOOK", callbackUrl: hooks.url("/gone") },
      },
      t,
    );
    const kept = await create(
      {
        name: "Kept",
        event: "PICK_JOB_CREATED",
        target: { type: "WEBHOOK", callbackUrl: hooks.url("/kept") },
      },
      t,
    );
    expect((await t("DELETE", `${SUBS}/${gone.id}`)).status).toBe(200);
    const started = Date.now();
    const job = await t("POST", "/api/pickjobs", pickJobBody(facility.body.id));
    expect(job.status, job.text).toBe(201);
    await eventually(async () => hooks.on("/kept").length > 0, 10_000, 25);
    await new Promise((r) => setTimeout(r, Math.max(0, 1_500 - (Date.now() - started))));
    expect(hooks.on("/gone")).toEqual([]);
    expect(hooks.on("/kept")).toHaveLength(1);
    expect(JSON.parse(hooks.on("/kept")[0]!.body)).toMatchObject({
      event: "PICK_JOB_CREATED",
      payload: { id: job.body.id },
    });
    expect(kept.id).not.toBe(gone.id);
  });

  it("a deleted subscription's pending retries are dropped", async () => {
    const failing = await startWebhookReceiver(() => 500);
    try {
      const t = await tenant("stop-retries");
      const facility = await t("POST", "/api/facilities", { name: "Retry store", address: facilityAddress });
      expect(facility.status, facility.text).toBe(201);
      const sub = await create(
        {
          name: "Failing",
          event: "PICK_JOB_CREATED",
          target: { type: "WEBHOOK", callbackUrl: failing.url("/fail") },
        },
        t,
      );
      expect((await t("POST", "/api/pickjobs", pickJobBody(facility.body.id))).status).toBe(201);
      await eventually(async () => failing.on("/fail").length > 0, 10_000, 10);
      expect((await t("DELETE", `${SUBS}/${sub.id}`)).status).toBe(200);
      const atDelete = failing.on("/fail").length;
      // Left alone, 4 more attempts would follow within 200 + 400 + 800 + 1600 ms.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(failing.on("/fail").length).toBeLessThanOrEqual(atDelete + 1); // one may have been under way
      expect(failing.on("/fail").length).toBeLessThan(5);
    } finally {
      await failing.close();
    }
  });

  it("subscriptions to SUBSCRIPTION_CREATED / _DELETED get the id, never the headers or the secret", async () => {
    const t = await tenant("own-events");
    for (const event of ["SUBSCRIPTION_CREATED", "SUBSCRIPTION_DELETED"]) {
      await create(
        { name: event, event, target: { type: "WEBHOOK", callbackUrl: hooks.url(`/own/${event}`) } },
        t,
      );
    }
    const other = await create(
      {
        name: "With credentials",
        event: "PICK_JOB_CREATED",
        target: {
          type: "WEBHOOK",
          callbackUrl: sink(),
          headers: [{ key: "Authorization", value: "Bearer top-secret-42" }],
        },
      },
      t,
    );
    expect((await t("DELETE", `${SUBS}/${other.id}`)).status).toBe(200);
    for (const event of ["SUBSCRIPTION_CREATED", "SUBSCRIPTION_DELETED"]) {
      const [hit] = await eventually(
        async () => {
          const got = hooks.on(`/own/${event}`).filter((h) => h.body.includes(other.id));
          return got.length ? got : undefined;
        },
        10_000,
        25,
      );
      const body = JSON.parse(hit!.body);
      expect(body).toMatchObject({ event, payload: { id: other.id } });
      expect(hit!.body).not.toContain("top-secret-42");
      expect(hit!.body).not.toContain(other.secret);
      expect(hit!.body).not.toContain("whsec_");
    }
  });

  it("GET /api/notifications/stream: 401 without a token, 403 without NOTIFICATION_READ, heartbeats with one", async () => {
    const url = `${sys.baseUrl}/api/notifications/stream`;
    const anonymous = await fetch(url, { headers: { accept: "text/event-stream" } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toMatch(/json/);
    const errors = (await anonymous.json()) as any[];
    expect(Array.isArray(errors)).toBe(true);
    expect(errors[0]).toMatchObject({ summary: expect.any(String) });

    const lacking = await fetch(url, {
      headers: {
        accept: "text/event-stream",
        authorization: `Bearer ${await sys.token("acme", { permissions: ["SUBSCRIPTION_READ"] })}`,
      },
    });
    expect(lacking.status).toBe(403);
    expect(Array.isArray(await lacking.json())).toBe(true);

    const abort = new AbortController();
    try {
      const res = await fetch(url, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${await sys.token("acme", { permissions: ["NOTIFICATION_READ"] })}`,
        },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      const opened = Date.now();
      let text = "";
      const timeout = setTimeout(() => abort.abort(), 2_500);
      try {
        while (!text.includes(": heartbeat\n")) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString("utf8");
        }
      } catch {
        // aborted: the assertion below says what arrived
      } finally {
        clearTimeout(timeout);
      }
      expect(text).toContain(": heartbeat\n");
      expect(Date.now() - opened).toBeLessThan(2_500);
    } finally {
      abort.abort();
    }
  });
});
