/**
 * The notification center configuration through the gateway, for the tenant and for a facility (by
 * id and by URN), each case written once: 404 until the first PUT, create (201) / replace (200) on
 * the current version, 409 when stale, 10 concurrent first PUTs (one creates), ADD_CHANNEL /
 * UPDATE_CHANNEL / DELETE channel, every limit at and one over the edge (nothing stored), unknown
 * and foreign facilities, tenancy and permissions. Then: the facility's configuration applies to
 * its facility's events and the tenant's to all (found by the notification search, also over
 * priority, sorted), and every change is audited. Delivery itself is notifications-delivery.test.ts.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type ApiResponse, eventually, type System, startSystem } from "../../support/system.ts";

type Api = ReturnType<System["as"]>;
type Json = Record<string, any>;

let sys: System;
let db: pg.Client;

const CONFIG = "/api/configurations/notifications";
const facilityConfig = (ref: string) => `/api/facilities/${ref}/configurations/notifications`;
const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
/** The kinds a channel may take (the reference's enum). */
const EVENTS = [
  "PICK_JOB_CREATED",
  "UPCOMING_TIME_TRIGGERED_REROUTE",
  "ROUTING_PLAN_NOT_ROUTABLE",
  "ROUTING_PLAN_WAITING",
  "ORDER_MODIFIED",
  "ORDER_UNLOCKED",
  "LOCKED_ORDER_CREATED",
  "ORDER_FORCE_CANCELLED",
  "ORDER_CANCELLED_BY_EXPIRY",
  "ORDER_CANCELLED",
];
let seq = 0;

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};

/** A 4xx in the platform's error array; `field` (if given) is named in the description. */
function expectError(res: ApiResponse, status: number, field?: string) {
  expect(res.status, res.text).toBe(status);
  expect(Array.isArray(res.body), res.text).toBe(true);
  expect(res.body[0], res.text).toMatchObject({ summary: expect.any(String), code: expect.any(String) });
  conformant("ApiError", res.body);
  if (field) expect(res.body[0].description, res.text).toContain(field);
}

const client = (events: string[] = ["PICK_JOB_CREATED"], enabled = true) => ({
  type: "CLIENT",
  enabled,
  events,
});
const receivers = (n: number, language = "en_US") =>
  Array.from({ length: n }, (_, i) => ({ email: `person${i}@example.com`, language }));
const email = (receiver: unknown[] = receivers(1), events: string[] = ["ORDER_CANCELLED"]) => ({
  type: "EMAIL",
  enabled: true,
  events,
  receiver,
});
const channels = (n: number) => Array.from({ length: n }, (_, i) => client([EVENTS[i % 10] as string]));

async function newTenant(user = "nina.config") {
  const tenant = `notify-${++seq}`;
  return { tenant, api: sys.as(await sys.token(tenant, { user })) };
}

async function newFacility(api: Api) {
  const tenantFacilityId = `NC-${++seq}`;
  const res = await api("POST", "/api/facilities", {
    name: `Store ${tenantFacilityId}`,
    address: facilityAddress,
    tenantFacilityId,
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, tenantFacilityId };
}

const SCOPES = ["tenant", "facility", "facility by URN"] as const;
type Scope = (typeof SCOPES)[number];
interface Scoped {
  tenant: string;
  api: Api;
  /** The configuration's path. */
  base: string;
  /** The facility's platform id (facility scopes). */
  facilityId?: string;
}

/** A fresh tenant, and for the facility scopes a fresh facility of it: no configuration yet. */
async function scoped(scope: Scope): Promise<Scoped> {
  const t = await newTenant();
  if (scope === "tenant") return { ...t, base: CONFIG };
  const f = await newFacility(t.api);
  const ref = scope === "facility" ? f.id : `urn:fft:facility:tenantFacilityId:${f.tenantFacilityId}`;
  return { ...t, facilityId: f.id, base: facilityConfig(ref) };
}

async function create(s: Scoped, list: unknown[] = [client()]) {
  const res = await s.api("PUT", s.base, { channels: list });
  expect(res.status, res.text).toBe(201);
  return res.body as Json;
}

/** Rows in the service's table for the tenant (and facility; '' is the tenant's own). */
async function storedConfigs(tenant: string, facilityRef = "") {
  const rows = await db.query(
    "select version from notifications.notification_config where tenant_id = $1 and facility_ref = $2",
    [tenant, facilityRef],
  );
  return rows.rows as { version: number }[];
}

beforeAll(async () => {
  sys = await startSystem();
  db = new pg.Client({ connectionString: sys.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await sys?.close();
});

describe.each(SCOPES)("%s configuration", (scope) => {
  it("404 before the first PUT; PUT creates (201), replaces on the version (200), 409 stale, 400 without version", async () => {
    const s = await scoped(scope);
    expectError(await s.api("GET", s.base), 404);

    const put = await s.api("PUT", s.base, {
      channels: [client(["PICK_JOB_CREATED", "ORDER_CANCELLED"]), email()],
    });
    expect(put.status, put.text).toBe(201);
    conformant("NotificationCenterConfig", put.body);
    const first = put.body as Json;
    expect(first).toMatchObject({
      version: 1,
      channels: [
        {
          id: expect.any(String),
          type: "CLIENT",
          enabled: true,
          events: ["PICK_JOB_CREATED", "ORDER_CANCELLED"],
        },
        {
          id: expect.any(String),
          type: "EMAIL",
          enabled: true,
          events: ["ORDER_CANCELLED"],
          receiver: [{ email: "person0@example.com", language: "en_US" }],
        },
      ],
    });
    expect(first.channels[0].id).not.toBe(first.channels[1].id);
    expect(first.created).toBe(first.lastModified);
    expect(Number.isNaN(Date.parse(first.created))).toBe(false);

    const got = await s.api("GET", s.base);
    expect(got.status, got.text).toBe(200);
    conformant("NotificationCenterConfig", got.body);
    expect(got.body).toEqual(first);
    if (scope === "facility by URN") {
      // The URN names the same facility: the same configuration as by id.
      expect((await s.api("GET", facilityConfig(s.facilityId as string))).body).toEqual(first);
    }

    // A channel sent back with its id is still a new channel: PUT replaces them all, with new ids.
    const replaced = await s.api("PUT", s.base, {
      version: 1,
      channels: [{ ...first.channels[0], enabled: false, events: ["ORDER_MODIFIED"] }],
    });
    expect(replaced.status, replaced.text).toBe(200);
    conformant("NotificationCenterConfig", replaced.body);
    const second = replaced.body as Json;
    expect(second).toMatchObject({
      version: 2,
      created: first.created,
      channels: [{ id: expect.any(String), type: "CLIENT", enabled: false, events: ["ORDER_MODIFIED"] }],
    });
    expect(second.channels).toHaveLength(1);
    expect(first.channels.map((c: Json) => c.id)).not.toContain(second.channels[0].id);
    expect(Date.parse(second.lastModified)).toBeGreaterThanOrEqual(Date.parse(first.lastModified));

    const stale = await s.api("PUT", s.base, { version: 1, channels: [] });
    expectError(stale, 409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    // Once it exists, a PUT without version is a 400 (VERSION_REQUIRED), not a second creation.
    const versionless = await s.api("PUT", s.base, { channels: [] });
    expectError(versionless, 400, "version");
    expect(versionless.body[0].code).toBe("VERSION_REQUIRED");

    expect((await s.api("GET", s.base)).body).toEqual(second);
    const emptied = await s.api("PUT", s.base, { version: 2, channels: [] });
    expect(emptied.status, emptied.text).toBe(200);
    expect(emptied.body).toMatchObject({ version: 3, channels: [] });
    conformant("NotificationCenterConfig", emptied.body);
    if (scope !== "tenant") {
      // A facility's configuration is not the tenant's.
      expectError(await s.api("GET", CONFIG), 404);
    }
  });

  it("10 concurrent first PUTs: exactly one 201, the others 400 VERSION_REQUIRED, one configuration", async () => {
    const s = await scoped(scope);
    const results = await Promise.all(
      EVENTS.map((event) => s.api("PUT", s.base, { channels: [client([event])] })),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((st) => st === 201),
      JSON.stringify(statuses),
    ).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect([400, 409], r.text).toContain(r.status);
      // A loser waits for the winner's insert and then is a versionless PUT of an existing
      // configuration: 400 VERSION_REQUIRED, as one sent afterwards.
      expectError(r, 400, "version");
      expect(r.body[0].code).toBe("VERSION_REQUIRED");
    }
    const winner = results.find((r) => r.status === 201)!.body;
    expect(winner.version).toBe(1);
    expect((await s.api("GET", s.base)).body).toEqual(winner);
    expect(await storedConfigs(s.tenant, s.facilityId ?? "")).toEqual([{ version: 1 }]);
  });

  it("ADD_CHANNEL appends with a new id, UPDATE_CHANNEL replaces by id; versions required and checked", async () => {
    const s = await scoped(scope);
    const actions = `${s.base}/actions`;
    expectError(await s.api("POST", actions, { name: "ADD_CHANNEL", version: 1, channel: client() }), 404);
    const first = await create(s);
    const [c1] = first.channels;

    const added = await s.api("POST", actions, { name: "ADD_CHANNEL", version: 1, channel: email() });
    expect(added.status, added.text).toBe(200);
    conformant("NotificationCenterConfig", added.body);
    expect(added.body).toMatchObject({
      version: 2,
      created: first.created,
      channels: [c1, { id: expect.any(String), type: "EMAIL", receiver: receivers(1) }],
    });
    const c2 = added.body.channels[1];
    expect(c2.id).not.toBe(c1.id);

    const updated = await s.api("POST", actions, {
      name: "UPDATE_CHANNEL",
      version: 2,
      channel: { ...c1, enabled: false, events: ["ORDER_UNLOCKED", "ORDER_MODIFIED"] },
    });
    expect(updated.status, updated.text).toBe(200);
    conformant("NotificationCenterConfig", updated.body);
    expect(updated.body).toMatchObject({
      version: 3,
      channels: [
        { id: c1.id, type: "CLIENT", enabled: false, events: ["ORDER_UNLOCKED", "ORDER_MODIFIED"] },
        c2,
      ],
    });
    expect((await s.api("GET", s.base)).body).toEqual(updated.body);

    // Unknown channel id: 404; stale: 409 (both actions); no version: 400; unknown action: 400.
    expectError(
      await s.api("POST", actions, { name: "UPDATE_CHANNEL", version: 3, channel: { ...c1, id: UNKNOWN } }),
      404,
    );
    for (const a of [
      { name: "ADD_CHANNEL", version: 2, channel: client() },
      { name: "UPDATE_CHANNEL", version: 2, channel: c1 },
    ]) {
      const stale = await s.api("POST", actions, a);
      expectError(stale, 409);
      expect(stale.body[0]).toMatchObject({ requestVersion: 2, version: 3 });
    }
    expectError(await s.api("POST", actions, { name: "ADD_CHANNEL", channel: client() }), 400, "version");
    expectError(await s.api("POST", actions, { name: "UPDATE_CHANNEL", channel: c1 }), 400, "version");
    expectError(
      await s.api("POST", actions, { name: "REMOVE_CHANNEL", version: 3, channel: c1 }),
      400,
      "name",
    );
    expectError(await s.api("POST", actions, { version: 3, channel: c1 }), 400, "name");
    expect((await s.api("GET", s.base)).body).toEqual(updated.body);

    // 10 concurrent ADD_CHANNELs on version 3: one applies (version 4), the other nine are stale.
    const racing = await Promise.all(
      EVENTS.map((event) =>
        s.api("POST", actions, { name: "ADD_CHANNEL", version: 3, channel: client([event]) }),
      ),
    );
    const statuses = racing.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    const won = racing.find((r) => r.status === 200)!.body;
    expect(won).toMatchObject({ version: 4 });
    expect(won.channels).toHaveLength(3);
    expect((await s.api("GET", s.base)).body).toEqual(won);
  });

  it("DELETE a channel on the current version (200); 400 without version, 409 stale, 404 unknown", async () => {
    const s = await scoped(scope);
    expectError(await s.api("DELETE", `${s.base}/channels/${UNKNOWN}?version=1`), 404);
    const first = await create(s, [client(), email()]);
    const [c1, c2] = first.channels;
    const del = (id: string, query = "") => s.api("DELETE", `${s.base}/channels/${id}${query}`);

    expectError(await del(c1.id), 400, "version");
    expectError(await del(c1.id, "?version=abc"), 400, "version");
    const stale = await del(c1.id, "?version=2");
    expectError(stale, 409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 2, version: 1 });
    expectError(await del(UNKNOWN, "?version=1"), 404);
    expect((await s.api("GET", s.base)).body).toEqual(first);

    const ok = await del(c1.id, "?version=1");
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toBe("");
    const after = (await s.api("GET", s.base)).body;
    expect(after).toMatchObject({ version: 2, created: first.created, channels: [c2] });
    expect(after.channels).toHaveLength(1);
    expectError(await del(c1.id, "?version=2"), 404);
    expect((await del(c2.id, "?version=2")).status).toBe(200);
    expect((await s.api("GET", s.base)).body).toMatchObject({ version: 3, channels: [] });
  });

  it("limits: exactly at each accepted, one over refused naming the field, nothing stored", async () => {
    const s = await scoped(scope);
    const stored = () => storedConfigs(s.tenant, s.facilityId ?? "");
    const refusals: [string, unknown[]][] = [
      ["channels", channels(101)],
      ["events", [client([...EVENTS, "PICK_JOB_CREATED"])]],
      ["events", [client(Array.from({ length: 51 }, (_, i) => EVENTS[i % 10] as string))]],
      ["receiver", [email(receivers(201))]],
      ["receiver", [email([...receivers(1), ...receivers(1)])]],
      [
        "receiver",
        [
          email([
            { email: "Lena@Example.com", language: "de_DE" },
            { email: "lena@example.com", language: "en_US" },
          ]),
        ],
      ],
      ["email", [email([{ email: "not-an-address", language: "de_DE" }])]],
      ["email", [email([{ email: "lena@", language: "de_DE" }])]],
      ["language", [email([{ email: "lena@example.com", language: "xx_XX" }])]],
      ["language", [email([{ email: "lena@example.com", language: "de" }])]],
      ["events", [client(["PICK_JOB_CLOSED"])]],
      ["events", [client(["PICK_JOB_CREATED", "NOT_AN_EVENT"])]],
      ["receiver", [{ type: "EMAIL", enabled: true, events: ["ORDER_CANCELLED"] }]],
      ["enabled", [{ type: "CLIENT", events: ["ORDER_CANCELLED"] }]],
      ["type", [{ type: "SMS", enabled: true, events: ["ORDER_CANCELLED"] }]],
    ];

    // As the first PUT: refused, nothing created.
    for (const [field, list] of refusals) {
      expectError(await s.api("PUT", s.base, { channels: list }), 400, field);
    }
    expectError(await s.api("GET", s.base), 404);
    expect(await stored()).toEqual([]);

    // At the limits: 100 channels; all 10 kinds once; 200 receivers.
    const full = await s.api("PUT", s.base, { channels: channels(100) });
    expect(full.status, full.text).toBe(201);
    expect(full.body.channels).toHaveLength(100);
    expect(new Set(full.body.channels.map((c: Json) => c.id)).size).toBe(100);
    conformant("NotificationCenterConfig", full.body);
    const addOver = await s.api("POST", `${s.base}/actions`, {
      name: "ADD_CHANNEL",
      version: 1,
      channel: client(),
    });
    expectError(addOver, 400, "channel");
    expect((await s.api("GET", s.base)).body).toEqual(full.body);

    const atLimits = await s.api("PUT", s.base, {
      version: 1,
      channels: [client(EVENTS), email(receivers(200, "de_DE"), EVENTS)],
    });
    expect(atLimits.status, atLimits.text).toBe(200);
    conformant("NotificationCenterConfig", atLimits.body);
    expect(atLimits.body.channels[0].events).toEqual(EVENTS);
    expect(atLimits.body.channels[1].receiver).toHaveLength(200);
    const v2 = atLimits.body as Json;

    // As a replacing PUT and (channel by channel) as ADD_CHANNEL / UPDATE_CHANNEL: refused, unchanged.
    for (const [field, list] of refusals) {
      expectError(await s.api("PUT", s.base, { version: 2, channels: list }), 400, field);
      if (list.length !== 1) continue;
      expectError(
        await s.api("POST", `${s.base}/actions`, { name: "ADD_CHANNEL", version: 2, channel: list[0] }),
        400,
        field,
      );
      expectError(
        await s.api("POST", `${s.base}/actions`, {
          name: "UPDATE_CHANNEL",
          version: 2,
          channel: { ...(list[0] as Json), id: v2.channels[0].id },
        }),
        400,
        field,
      );
    }
    expect((await s.api("GET", s.base)).body).toEqual(v2);
    expect(await stored()).toEqual([{ version: 2 }]);
  });

  it("needs NOTIFICATION_CENTER_CONFIG_READ / _WRITE; no token is a 401", async () => {
    const s = await scoped(scope);
    const first = await create(s);
    const reader = sys.as(await sys.token(s.tenant, { permissions: ["NOTIFICATION_CENTER_CONFIG_READ"] }));
    const got = await reader("GET", s.base);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual(first);
    expectError(await reader("PUT", s.base, { version: 1, channels: [] }), 403);
    expectError(
      await reader("POST", `${s.base}/actions`, { name: "ADD_CHANNEL", version: 1, channel: client() }),
      403,
    );
    expectError(await reader("DELETE", `${s.base}/channels/${first.channels[0].id}?version=1`), 403);
    const unrelated = sys.as(await sys.token(s.tenant, { permissions: ["NOTIFICATION_READ"] }));
    expectError(await unrelated("GET", s.base), 403);

    for (const [method, path, body] of [
      ["GET", s.base, undefined],
      ["PUT", s.base, { version: 1, channels: [] }],
      ["POST", `${s.base}/actions`, { name: "ADD_CHANNEL", version: 1, channel: client() }],
      ["DELETE", `${s.base}/channels/${first.channels[0].id}?version=1`, undefined],
    ] as const) {
      expectError(await sys.api(method, path, { body }), 401);
    }
    expect((await s.api("GET", s.base)).body).toEqual(first);
  });
});

describe("refusals of an unknown discriminator value", () => {
  // The description should say which values are allowed, as for every other enum: "type" and
  // "name" are given (SMS, REMOVE_CHANNEL), just not one of the variants' values.
  it("an unknown channel type or action name is described by the values allowed, not as missing", async () => {
    const s = await scoped("tenant");
    const badType = await s.api("PUT", s.base, {
      channels: [{ type: "SMS", enabled: true, events: ["ORDER_CANCELLED"] }],
    });
    expectError(badType, 400, "channels/0/type");
    expect(badType.body[0].description).not.toMatch(/must be given/);
    expect(badType.body[0].description).toMatch(/EMAIL/);
    expect(badType.body[0].description).toMatch(/CLIENT/);
    await create(s);
    const badName = await s.api("POST", `${s.base}/actions`, { name: "REMOVE_CHANNEL", version: 1 });
    expectError(badName, 400, "name");
    expect(badName.body[0].description).not.toMatch(/must be given/);
    expect(badName.body[0].description).toMatch(/ADD_CHANNEL/);
    expect(badName.body[0].description).toMatch(/UPDATE_CHANNEL/);
  });
});

describe("facility scope", () => {
  it("an unknown facility (id, URN or not an id) is a 404 on GET, PUT, actions and DELETE", async () => {
    const { api } = await newTenant();
    for (const ref of [UNKNOWN, "urn:fft:facility:tenantFacilityId:NOPE", "nope"]) {
      const base = facilityConfig(ref);
      expectError(await api("GET", base), 404);
      expectError(await api("PUT", base, { channels: [client()] }), 404);
      expectError(
        await api("POST", `${base}/actions`, { name: "ADD_CHANNEL", version: 1, channel: client() }),
        404,
      );
      expectError(await api("DELETE", `${base}/channels/${UNKNOWN}?version=1`), 404);
    }
  });

  it("another tenant's facility is a 404 for every call, by id and by URN; its configuration stays", async () => {
    const a = await scoped("facility");
    const first = await create(a);
    const f = await a.api("GET", `/api/facilities/${a.facilityId}`);
    const { api: b } = await newTenant();
    for (const ref of [
      a.facilityId as string,
      `urn:fft:facility:tenantFacilityId:${f.body.tenantFacilityId}`,
    ]) {
      const base = facilityConfig(ref);
      expectError(await b("GET", base), 404);
      expectError(await b("PUT", base, { channels: [client()] }), 404);
      expectError(await b("PUT", base, { version: 1, channels: [] }), 404);
      expectError(
        await b("POST", `${base}/actions`, { name: "ADD_CHANNEL", version: 1, channel: client() }),
        404,
      );
      expectError(await b("DELETE", `${base}/channels/${first.channels[0].id}?version=1`), 404);
    }
    expect((await a.api("GET", a.base)).body).toEqual(first);
  });

  it("each facility has its own configuration, independent of the tenant's", async () => {
    const { api } = await newTenant();
    const [f1, f2] = [await newFacility(api), await newFacility(api)];
    const c1 = await api("PUT", facilityConfig(f1.id), { channels: [client(["ORDER_MODIFIED"])] });
    expect(c1.status, c1.text).toBe(201);
    expectError(await api("GET", facilityConfig(f2.id)), 404);
    expectError(await api("GET", CONFIG), 404);
    const c2 = await api("PUT", facilityConfig(f2.id), { channels: [] });
    expect(c2.status, c2.text).toBe(201);
    const t = await api("PUT", CONFIG, { channels: [client()] });
    expect(t.status, t.text).toBe(201);
    expect((await api("GET", facilityConfig(f1.id))).body).toEqual(c1.body);
    expect((await api("GET", facilityConfig(f2.id))).body).toEqual(c2.body);
  });
});

describe("tenant isolation", () => {
  it("tenant B sees none of A's configuration; B's PUT creates B's own, A's is unchanged", async () => {
    const a = await scoped("tenant");
    const first = await create(a, [client(), email()]);
    const { api: b } = await newTenant();
    expectError(await b("GET", CONFIG), 404);
    expectError(
      await b("POST", `${CONFIG}/actions`, { name: "ADD_CHANNEL", version: 1, channel: client() }),
      404,
    );
    expectError(await b("DELETE", `${CONFIG}/channels/${first.channels[0].id}?version=1`), 404);
    const own = await b("PUT", CONFIG, { channels: [client(["ORDER_CANCELLED"])] });
    expect(own.status, own.text).toBe(201);
    expect(own.body.version).toBe(1);
    expect((await b("GET", CONFIG)).body).toEqual(own.body);
    expect((await a.api("GET", CONFIG)).body).toEqual(first);
  });
});

describe("facility-scoped delivery and the notification search", () => {
  it("the facility's channels take its facility's events, the tenant's all; disabled channels none", async () => {
    const { api } = await newTenant("fritz.facility");
    const { api: other } = await newTenant();
    const a = await newFacility(api);
    const b = await newFacility(api);
    const tenantConfig = await api("PUT", CONFIG, {
      channels: [client(), client(["PICK_JOB_CREATED"], false), client(["ORDER_CANCELLED"])],
    });
    expect(tenantConfig.status, tenantConfig.text).toBe(201);
    // Facility A's configuration through its URN: it must apply to A's events (stored under A's id).
    const facilityA = await api(
      "PUT",
      facilityConfig(`urn:fft:facility:tenantFacilityId:${a.tenantFacilityId}`),
      {
        channels: [client(), client(["PICK_JOB_CREATED"], false)],
      },
    );
    expect(facilityA.status, facilityA.text).toBe(201);

    const started = new Date().toISOString();
    for (const f of [a, b]) {
      const job = await api("POST", "/api/pickjobs", pickJobBody(f.id));
      expect(job.status, job.text).toBe(201);
    }
    const search = (query: Json, extra: Json = {}) =>
      api("POST", "/api/notifications/search", { query, options: { withTotal: true }, ...extra });
    const of = async (facilityId: string) => (await search({ facilityRef: { eq: facilityId } })).body;
    await eventually(
      async () => (await of(a.id)).notifications.length >= 2 && (await of(b.id)).notifications.length >= 1,
    );
    // Let anything extra arrive, then count exactly: A = tenant + facility channel, B = tenant channel.
    await new Promise((r) => setTimeout(r, 500));
    const inA = await of(a.id);
    const inB = await of(b.id);
    conformant("NotificationPaginatedResult", inA);
    expect(inA.notifications).toHaveLength(2);
    expect(inA.total).toBe(2);
    expect(inB.notifications).toHaveLength(1);
    for (const n of [...inA.notifications, ...inB.notifications]) {
      expect(n).toMatchObject({
        type: "CLIENT",
        event: "PICK_JOB_CREATED",
        category: "FACILITY",
        status: "OPEN",
        priority: { label: "MEDIUM", sequence: 2 },
      });
    }
    expect(inA.notifications.flatMap((n: Json) => n.payload.entityLinks)).toEqual(
      expect.arrayContaining([{ ref: a.id, type: "FACILITY" }]),
    );
    expect(inB.notifications[0].payload.entityLinks).toEqual(
      expect.arrayContaining([{ ref: b.id, type: "FACILITY" }]),
    );

    // Disabling A's channel: a new job in A reaches only the tenant's channel.
    const facilityChannel = facilityA.body.channels[0];
    const disabled = await api("POST", `${facilityConfig(a.id)}/actions`, {
      name: "UPDATE_CHANNEL",
      version: 1,
      channel: { ...facilityChannel, enabled: false },
    });
    expect(disabled.status, disabled.text).toBe(200);
    expect((await api("POST", "/api/pickjobs", pickJobBody(a.id))).status).toBe(201);
    await eventually(async () => (await of(a.id)).notifications.length >= 3);
    await new Promise((r) => setTimeout(r, 500));
    expect((await of(a.id)).notifications).toHaveLength(3);

    // Over priority (label and sequence), created, and sorted.
    const byPriority = await search({ priority: { label: { eq: "MEDIUM" }, sequence: { gte: 2 } } });
    expect(byPriority.status, byPriority.text).toBe(200);
    conformant("NotificationPaginatedResult", byPriority.body);
    expect(byPriority.body.total).toBe(4);
    expect((await search({ priority: { label: { eq: "HIGH" } } })).body.total).toBe(0);
    expect((await search({ priority: { sequence: { gt: 2 } } })).body.total).toBe(0);
    expect((await search({ created: { gte: started } })).body.total).toBe(4);
    expect(
      (await search({ and: [{ facilityRef: { eq: b.id } }, { priority: { sequence: { eq: 2 } } }] })).body
        .total,
    ).toBe(1);
    const desc = await search({}, { sort: [{ created: "DESC" }] });
    expect(desc.status, desc.text).toBe(200);
    const createdDesc = desc.body.notifications.map((n: Json) => Date.parse(n.created));
    expect(createdDesc).toHaveLength(4);
    expect(createdDesc).toEqual([...createdDesc].sort((x, y) => y - x));
    const asc = await search({}, { sort: [{ created: "ASC" }] });
    expect(asc.body.notifications.map((n: Json) => n.id)).toEqual(
      desc.body.notifications.map((n: Json) => n.id).reverse(),
    );
    const page = await search({}, { sort: [{ created: "DESC" }], size: 3 });
    expect(page.body.notifications.map((n: Json) => n.id)).toEqual(
      desc.body.notifications.slice(0, 3).map((n: Json) => n.id),
    );
    expect(page.body.pageInfo.hasNextPage).toBe(true);

    // Refused: an unknown query field, an unknown priority field, a bad label, an unknown sort.
    expectError(await search({ facility: { eq: a.id } }), 400, "facility");
    expectError(await search({ priority: { level: { eq: 2 } } }), 400, "level");
    expectError(await search({ priority: { label: { eq: "URGENT" } } }), 400, "label");
    expectError(await search({}, { sort: [{ priority: "DESC" }] }), 400, "priority");
    expectError(await api("POST", "/api/notifications/search", {}), 400, "query");

    // Tenant B sees none of A's.
    const theirs = await other("POST", "/api/notifications/search", {
      query: {},
      options: { withTotal: true },
    });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body).toMatchObject({ notifications: [], total: 0 });
    expect(
      (await other("POST", "/api/notifications/search", { query: { facilityRef: { eq: a.id } } })).body
        .notifications,
    ).toEqual([]);
  });
});

describe("audit", () => {
  it("records NOTIFICATION_CENTER_CONFIG_CREATED / _UPDATED for the tenant's and a facility's configuration", async () => {
    const { tenant, api } = await newTenant("ada.audit");
    const f = await newFacility(api);
    const t1 = await api("PUT", CONFIG, { channels: [client()] });
    const t2 = await api("PUT", CONFIG, { version: 1, channels: [] });
    const t3 = await api("POST", `${CONFIG}/actions`, { name: "ADD_CHANNEL", version: 2, channel: client() });
    const t4 = await api("DELETE", `${CONFIG}/channels/${t3.body.channels?.[0]?.id}?version=3`);
    const f1 = await api("PUT", facilityConfig(f.id), { channels: [client()] });
    expect([t1.status, t2.status, t3.status, t4.status, f1.status]).toEqual([201, 200, 200, 200, 201]);

    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityType: { eq: "NOTIFICATION_CENTER_CONFIG" } },
        sort: [{ created: "ASC" }],
        options: { withTotal: true },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.audits?.length >= 5 ? (res.body.audits as Json[]) : undefined;
    });
    expect(audits).toHaveLength(5);
    const ofTenant = audits.filter((x) => x.entityRef === tenant);
    expect(ofTenant.map((x) => [x.operation.name, x.entityVersion])).toEqual([
      ["NOTIFICATION_CENTER_CONFIG_CREATED", 1],
      ["NOTIFICATION_CENTER_CONFIG_UPDATED", 2],
      ["NOTIFICATION_CENTER_CONFIG_UPDATED", 3],
      ["NOTIFICATION_CENTER_CONFIG_UPDATED", 4],
    ]);
    const ofFacility = audits.filter((x) => x.entityRef !== tenant);
    expect(ofFacility).toHaveLength(1);
    expect(ofFacility[0]).toMatchObject({
      entityType: "NOTIFICATION_CENTER_CONFIG",
      operation: { name: "NOTIFICATION_CENTER_CONFIG_CREATED" },
      entityVersion: 1,
    });
    expect(ofFacility[0]!.entityRef).toContain(f.id);
    for (const x of audits) expect(x.actor).toMatchObject({ id: "ada.audit" });

    // Another tenant finds none of them.
    const { api: b } = await newTenant();
    const theirs = await b("POST", "/api/audits/search", {
      query: { entityType: { eq: "NOTIFICATION_CENTER_CONFIG" } },
      options: { withTotal: true },
    });
    expect(theirs.body).toMatchObject({ audits: [], total: 0 });
  });
});
