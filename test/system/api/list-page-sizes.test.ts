/**
 * Every REST list endpoint pages as the spec's table says: without `size` it answers its default
 * (25; the deprecated load unit type listing 10), it accepts `size` up to its maximum (500) and
 * refuses one more (and 0) with a 400 naming `size`. Every search endpoint likewise: `size` and
 * `last` default 20 (spec), at most 250 (reference). Each list holds more entities than its
 * default, so the default page is visibly cut. The expected figures are the spec's, written here.
 */
import { SUBSCRIBABLE_EVENTS } from "@fop/contracts/event-kinds";
import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

/** The spec's Limits: REST list pages default 25, at most 500. */
const LIST = { default: 25, maximum: 500 };
/** Search pages: default 20 (spec), at most 250 (reference: every *SearchPayload). */
const SEARCH = { default: 20, maximum: 250 };
const searches = [
  { path: "/api/categories/search", key: "categories" },
  { path: "/api/facilitygroups/search", key: "facilityGroups" },
  { path: "/api/pickjobs/search", key: "pickJobs" },
  { path: "/api/audits/search", key: "audits" },
  { path: "/api/notifications/search", key: "notifications" },
];

interface ListEndpoint {
  path: string;
  /** The answer's list property; none for a bare array. */
  key?: string;
  default: number;
  maximum: number;
  /** Creates `n` entities listed by `path` (in the test's own tenant). */
  seed?: (n: number) => Promise<void>;
}

let sys: System;
let api: ReturnType<System["as"]>;
let hooks: WebhookReceiver;
let facilities: string[] = [];
let pickJobId: string;
let subscriptionId: string;

const created = (res: { status: number; text: string }, status = 201) =>
  expect(res.status, res.text).toBe(status);
/** `n` creations, a few at a time. */
async function times(n: number, make: (i: number) => Promise<unknown>) {
  for (let i = 0; i < n; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => make(i + j)));
  }
}
const post =
  (path: string, body: (i: number) => unknown, status = 201) =>
  (n: number) =>
    times(n, async (i) => created(await api("POST", path, body(i)), status));

const endpoints: ListEndpoint[] = [
  {
    path: "/api/categories",
    ...LIST,
    seed: post("/api/categories", (i) => ({ nameLocalized: { en_US: `Category ${i}` } })),
  },
  // Seeded in beforeAll: the other lists need them.
  { path: "/api/facilities", key: "facilities", ...LIST },
  {
    path: "/api/facilitygroups",
    key: "facilityGroups",
    ...LIST,
    // At most 20 groups per facility: one facility each.
    seed: post("/api/facilitygroups", (i) => ({
      tenantFacilityGroupId: `G-${i}`,
      nameLocalized: { en_US: `Group ${i}` },
      facilityRefs: [facilities[i]],
    })),
  },
  {
    path: "/api/carriers",
    key: "carriers",
    ...LIST,
    seed: post("/api/carriers", (i) => ({ key: `CUSTOM_PAGE${i}`, name: `Carrier ${i}` })),
  },
  ...["/api/cancelationreasons", "/api/reroutedescriptions"].map((path) => ({
    path,
    key: "reasons",
    ...LIST,
    seed: post(path, (i) => ({ reason: `Reason ${i}`, reasonLocalized: { en_US: `Reason ${i}` } })),
  })),
  // Seeded in beforeAll (load units need a pick job).
  { path: "/api/pickjobs", key: "pickjobs", ...LIST },
  {
    path: "/api/loadunits",
    key: "loadUnits",
    ...LIST,
    seed: async (n) =>
      created(
        await api("POST", "/api/loadunits", {
          loadUnits: Array.from({ length: n }, () => ({ pickJobRefs: [pickJobId] })),
        }),
      ),
  },
  {
    path: "/api/stacks",
    key: "stacks",
    ...LIST,
    seed: post("/api/stacks", (i) => ({ facilityRefs: [facilities[i]], processRefs: [] })),
  },
  {
    path: "/api/operativecontainertypes",
    key: "operativeContainerTypes",
    ...LIST,
    seed: post("/api/operativecontainertypes", (i) => ({
      nameLocalized: { en_US: `Box ${i}` },
      allowedOperativeTypes: ["PICKING"],
    })),
  },
  {
    // Spec: "the deprecated load unit type listing (it accepts a locale, an after-id and a page
    // size, default 10)"; its maximum is the lists' own.
    path: "/api/loadunittypes",
    default: 10,
    maximum: LIST.maximum,
    seed: post("/api/loadunittypes", (i) => ({ nameLocalized: { en_US: `Bag ${i}` } })),
  },
  {
    path: "/api/itemreturnjobs",
    key: "itemReturnJobsWithSearchPaths",
    ...LIST,
    // One item return in each: /api/itemreturns lists them.
    seed: (n) =>
      times(n, async () => {
        const job = await api("POST", "/api/itemreturnjobs", {
          originFacilityRefs: [facilities[0]],
          status: "OPEN",
          consumerAddresses: [facilityAddress],
          returnableLineItems: [{ article: { tenantArticleId: "A-1", title: "Tea" }, delivered: 1 }],
        });
        created(job, 200);
        const added = await api("POST", `/api/itemreturnjobs/${job.body.id}/itemreturns`, {
          itemReturnJobVersion: job.body.version,
          itemReturnForCreation: {
            status: "OPEN",
            returnFacilityRef: facilities[0],
            returnedLineItems: [
              { itemReturnJobLineItemRef: job.body.returnableLineItems[0].id, status: "OPEN" },
            ],
          },
        });
        created(added, 200);
      }),
  },
  { path: "/api/itemreturns", key: "itemReturns", ...LIST },
  {
    path: "/api/subscriptions",
    key: "subscriptions",
    ...LIST,
    // At most 5 per event kind.
    seed: post("/api/subscriptions", (i) => ({
      name: `Hook ${i}`,
      event: SUBSCRIBABLE_EVENTS[Math.floor(i / 5)],
      target: { type: "WEBHOOK", callbackUrl: hooks.url(`/hook/${i}`), headers: [] },
    })),
  },
  // Written from the event stream of everything above.
  { path: "/api/audits", key: "audits", ...LIST },
  // Ours; no dead letters here, so only its bounds are checked.
  { path: "/api/subscriptions/{first}/deadletters", key: "deadLetters", ...LIST },
];

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  sys = await startSystem();
  api = sys.as(await sys.token("pages"));
  // A CLIENT notification for each pick job.
  created(
    await api("PUT", "/api/configurations/notifications", {
      channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
    }),
  );
  const most = Math.max(...endpoints.map((e) => e.default)) + 1;
  await times(most, async (i) => {
    const res = await api("POST", "/api/facilities", { name: `Store ${i}`, address: facilityAddress });
    created(res);
    facilities[i] = res.body.id;
  });
  facilities = facilities.filter(Boolean);
  await times(most, async (i) => created(await api("POST", "/api/pickjobs", pickJobBody(facilities[i]!))));
  pickJobId = (await api("GET", "/api/pickjobs?size=1")).body.pickjobs[0].id;
  for (const e of endpoints) await e.seed?.(e.default + 1);
  subscriptionId = (await api("GET", "/api/subscriptions?size=1")).body.subscriptions[0].id;
  await eventually(async () => {
    const res = await api("GET", `/api/audits?size=${LIST.maximum}`);
    return res.body.audits?.length > LIST.default;
  }, 30_000);
  await eventually(async () => {
    const res = await api("POST", "/api/notifications/search", { query: {}, size: SEARCH.maximum });
    return res.body.notifications?.length > SEARCH.default;
  }, 30_000);
}, 180_000);
afterAll(async () => {
  await sys?.close();
  await hooks?.close();
});

const itemsOf = (e: ListEndpoint, body: unknown): unknown[] =>
  (e.key ? (body as Record<string, unknown[]>)[e.key] : body) as unknown[];

describe.each(endpoints)("GET $path", (e) => {
  const url = (query: string) => `${e.path.replace("{first}", subscriptionId)}${query}`;

  it.skipIf(e.path.endsWith("/deadletters"))(`pages its default without size`, async () => {
    const res = await api("GET", url(""));
    expect(res.status, res.text).toBe(200);
    expect(itemsOf(e, res.body)).toHaveLength(e.default);
    const all = await api("GET", url(`?size=${e.default + 1}`));
    expect(itemsOf(e, all.body)).toHaveLength(e.default + 1);
  });

  it("accepts its maximum size and refuses one more (and 0) with a 400 naming size", async () => {
    const max = await api("GET", url(`?size=${e.maximum}`));
    expect(max.status, max.text).toBe(200);
    expect(itemsOf(e, max.body).length).toBeLessThanOrEqual(e.maximum);
    for (const size of [e.maximum + 1, 0]) {
      const res = await api("GET", url(`?size=${size}`));
      expect(res.status, `size=${size}: ${res.text}`).toBe(400);
      expect(res.body[0].description, res.text).toContain("size");
    }
  });
});

describe.each(searches)("POST $path", (e) => {
  const search = (body: Record<string, unknown>) => api("POST", e.path, { query: {}, ...body });

  it("pages 20 by default, forward and backward", async () => {
    const forward = await search({});
    expect(forward.status, forward.text).toBe(200);
    expect(forward.body[e.key]).toHaveLength(SEARCH.default);
    // Backward from the 22nd match without `last`: the 20 before it.
    const longer = await search({ size: SEARCH.default + 2 });
    const back = await search({ before: longer.body.pageInfo.endCursor });
    expect(back.status, back.text).toBe(200);
    expect(back.body[e.key]).toHaveLength(SEARCH.default);
  });

  it("accepts size and last up to 250 and refuses one more (and 0) with a 400 naming the parameter", async () => {
    for (const param of ["size", "last"]) {
      const max = await search({ [param]: SEARCH.maximum });
      expect(max.status, max.text).toBe(200);
      for (const n of [SEARCH.maximum + 1, 0]) {
        const res = await search({ [param]: n });
        expect(res.status, `${param}=${n}: ${res.text}`).toBe(400);
        expect(res.body[0].description, res.text).toContain(param);
      }
    }
  });
});
