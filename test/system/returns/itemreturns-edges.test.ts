/**
 * The edges of the item return routes through the gateway, route by route: every required field
 * missing (400 naming it, nothing written), every limit at the edge (accepted) and one over (400),
 * unknown job / item return / line (404), stale versions (409), status changes out of final states
 * (422), another tenant (404, nothing changed). Happy paths live in itemreturns.test.ts and
 * itemreturn-parcels.test.ts; this file is the checklist of what a client gets wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let otherFacilityId: string;
let carrierId: string;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
type Body = Record<string, any>;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "edge.tester" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Returns desk", address: facilityAddress })).body
    .id;
  otherFacilityId = (await other("POST", "/api/facilities", { name: "Theirs", address: facilityAddress }))
    .body.id;
  carrierId = (await api("POST", "/api/carriers", { key: "GLS", name: "GLS" })).body.id;
});
afterAll(() => sys?.close());

const line = (ref: string, extra: Body = {}) => ({ itemReturnJobLineItemRef: ref, status: "OPEN", ...extra });
const reason = { reasonLocalized: { en_US: "Too small" } };
const recordable = { keyLocalized: { en_US: "Serial" }, recordingRule: "OPTIONAL" };
const many = <T>(n: number, item: T) => Array.from({ length: n }, () => item);

/** A job (2 returnable lines, 1 not returnable) with one item return holding one line of each kind. */
async function setup(as = api, facility = facilityId) {
  const created = await as("POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facility],
    status: "OPEN",
    consumerAddresses: [facilityAddress],
    returnableLineItems: [
      { article: { tenantArticleId: "A-1", title: "Shirt" }, delivered: 5 },
      { article: { tenantArticleId: "A-2", title: "Shoe" }, delivered: 5 },
    ],
    notReturnableLineItems: [{ article: { tenantArticleId: "N-1", title: "Final sale" }, delivered: 5 }],
  });
  expect(created.status, created.text).toBe(200);
  const job = created.body;
  const added = await as("POST", `/api/itemreturnjobs/${job.id}/itemreturns`, {
    itemReturnJobVersion: 1,
    itemReturnForCreation: {
      status: "OPEN",
      returnFacilityRef: facility,
      returnedLineItems: [line(job.returnableLineItems[0].id)],
      returnedNotReturnableLineItems: [line(job.notReturnableLineItems[0].id)],
    },
  });
  expect(added.status, added.text).toBe(200);
  const ir = added.body.itemReturns[0];
  const base = `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}`;
  return {
    job: added.body,
    ir,
    ref: job.returnableLineItems[0].id as string,
    nrRef: job.notReturnableLineItems[0].id as string,
    base,
    returnedLine: `${base}/returnedlineitems/${ir.returnedLineItems[0].id}`,
    notReturnableLine: `${base}/returnednotreturnablelineitems/${ir.returnedNotReturnableLineItems[0].id}`,
  };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const versionOf = async (s: Setup, as = api) =>
  (await as("GET", `/api/itemreturnjobs/${s.job.id}`)).body.version as number;

/** 400 whose error names `field`; the job is unchanged. */
async function rejected(s: Setup, res: { status: number; text: string; body: any }, field: string) {
  expect(res.status, `${field}: ${res.text}`).toBe(400);
  expect(JSON.stringify(res.body), `${field}: ${res.text}`).toContain(field);
  expect(await versionOf(s)).toBe(s.job.version);
}

/** Deletes the key at a dotted path of a copy of `body` ("a.0.b"). */
function without(body: Body, path: string): Body {
  const copy = structuredClone(body);
  const keys = path.split(".");
  const last = keys.pop() as string;
  let node: any = copy;
  for (const k of keys) node = node[k];
  delete node[last];
  return copy;
}

describe("POST .../itemreturns (add an item return)", () => {
  const body = (s: Setup, extra: Body = {}) => ({
    itemReturnJobVersion: s.job.version,
    itemReturnForCreation: {
      status: "OPEN",
      returnFacilityRef: facilityId,
      returnedLineItems: [line(s.ref)],
      ...extra,
    },
  });
  const add = (s: Setup, b: Body, as = api) => as("POST", `/api/itemreturnjobs/${s.job.id}/itemreturns`, b);

  it.each([
    ["itemReturnJobVersion", "itemReturnJobVersion"],
    ["itemReturnForCreation", "itemReturnForCreation"],
    ["itemReturnForCreation.status", "status"],
    ["itemReturnForCreation.returnFacilityRef", "returnFacilityRef"],
    ["itemReturnForCreation.returnedLineItems", "returnedLineItems"],
    ["itemReturnForCreation.returnedLineItems.0.itemReturnJobLineItemRef", "itemReturnJobLineItemRef"],
    ["itemReturnForCreation.returnedLineItems.0.status", "status"],
  ])("400 without %s", async (path, field) => {
    const s = await setup();
    await rejected(s, await add(s, without(body(s), path)), field);
  });

  it("404 for an unknown job, 400 for another tenant's facility", async () => {
    const s = await setup();
    const unknown = await api("POST", `/api/itemreturnjobs/${UNKNOWN}/itemreturns`, body(s));
    expect(unknown.status, unknown.text).toBe(404);
    await rejected(s, await add(s, body(s, { returnFacilityRef: otherFacilityId })), "returnFacilityRef");
  });

  it("takes 100 returned not returnable lines and refuses 101; takes a 1-character itemConditionComment", async () => {
    const s = await setup();
    await rejected(
      s,
      await add(s, body(s, { returnedNotReturnableLineItems: many(101, line(s.nrRef)) })),
      "returnedNotReturnableLineItems",
    );
    const atLimit = await add(
      s,
      body(s, {
        returnedLineItems: [line(s.ref, { itemConditionComment: "x" })],
        returnedNotReturnableLineItems: many(100, line(s.nrRef)),
      }),
    );
    expect(atLimit.status, atLimit.text).toBe(200);
    const ir = atLimit.body.itemReturns[1];
    expect(ir.returnedNotReturnableLineItems).toHaveLength(100);
    expect(ir.returnedLineItems[0].itemConditionComment).toBe("x");
  });

  it("takes 100 item returns per job and refuses the 101st", async () => {
    const s = await setup();
    let version = s.job.version;
    for (let i = 1; i < 100; i++) {
      const res = await add(s, { ...body(s), itemReturnJobVersion: version });
      expect(res.status, res.text).toBe(200);
      version = res.body.version;
    }
    const job = (await api("GET", `/api/itemreturnjobs/${s.job.id}`)).body;
    expect(job.itemReturns).toHaveLength(100);
    const over = await add(s, { ...body(s), itemReturnJobVersion: version });
    expect(over.status, over.text).toBe(400);
    expect(over.body[0].description).toMatch(/100 item returns/);
    expect(await versionOf(s)).toBe(version);
  });
});

describe("GET and POST .../itemreturns/{id}[/actions]", () => {
  it("404 for an unknown job or item return", async () => {
    const s = await setup();
    const action = { name: "StartItemReturn", itemReturnJobVersion: s.job.version };
    for (const path of [
      `/api/itemreturnjobs/${UNKNOWN}/itemreturns/${s.ir.id}`,
      `/api/itemreturnjobs/${s.job.id}/itemreturns/${UNKNOWN}`,
    ]) {
      expect((await api("GET", path)).status, path).toBe(404);
      expect((await api("POST", `${path}/actions`, action)).status, path).toBe(404);
    }
    const found = await api("GET", s.base);
    expect(found.status).toBe(200);
    expect(found.body.id).toBe(s.ir.id);
  });

  it.each([
    ["itemReturnJobVersion", { name: "StartItemReturn" }],
    ["name", { itemReturnJobVersion: 2 }],
    ["name", { name: "LoseItemReturn", itemReturnJobVersion: 2 }],
  ])("400 naming %s for %j", async (field, action) => {
    const s = await setup();
    await rejected(s, await api("POST", `${s.base}/actions`, action), field);
  });

  it("422 for any action out of FINISHED, the item return staying FINISHED", async () => {
    const s = await setup();
    const finish = await api("POST", `${s.base}/actions`, {
      name: "FinishItemReturn",
      itemReturnJobVersion: s.job.version,
    });
    expect(finish.status, finish.text).toBe(200);
    for (const name of ["StartItemReturn", "OpenItemReturn", "CancelItemReturn", "PauseItemReturn"]) {
      const res = await api("POST", `${s.base}/actions`, { name, itemReturnJobVersion: finish.body.version });
      expect(res.status, `${name}: ${res.text}`).toBe(422);
    }
    expect((await api("GET", s.base)).body.status).toBe("FINISHED");
  });
});

describe("PATCH .../returnedlineitems/{id}", () => {
  it("409 on a stale version, 404 for an unknown job, item return or line", async () => {
    const s = await setup();
    const stale = await api("PATCH", s.returnedLine, {
      itemReturnJobVersion: s.job.version - 1,
      status: "ACCEPTED",
    });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: s.job.version - 1, version: s.job.version });
    const lineId = s.ir.returnedLineItems[0].id;
    for (const path of [
      `/api/itemreturnjobs/${UNKNOWN}/itemreturns/${s.ir.id}/returnedlineitems/${lineId}`,
      `/api/itemreturnjobs/${s.job.id}/itemreturns/${UNKNOWN}/returnedlineitems/${lineId}`,
      `${s.base}/returnedlineitems/${UNKNOWN}`,
    ]) {
      const res = await api("PATCH", path, { itemReturnJobVersion: s.job.version, status: "ACCEPTED" });
      expect(res.status, path).toBe(404);
    }
    expect(await versionOf(s)).toBe(s.job.version);
  });

  it.each([
    ["status", { refund: { percent: 10 } }],
    ["reasonLocalized", { decisionReason: { comment: "x" } }],
    ["comment", { decisionReason: { ...reason, comment: "" } }],
  ])("400 naming %s for %j", async (field, patch) => {
    const s = await setup();
    await rejected(
      s,
      await api("PATCH", s.returnedLine, { itemReturnJobVersion: s.job.version, ...patch }),
      field,
    );
  });
});

describe("PATCH .../returnednotreturnablelineitems/{id}", () => {
  it("sets status and decision reason on the job's version; a refund is not a field here", async () => {
    const s = await setup();
    const res = await api("PATCH", s.notReturnableLine, {
      itemReturnJobVersion: s.job.version,
      status: "REJECTED",
      decisionReason: { ...reason, comment: "worn" },
      refund: { status: "OPEN", percent: 10 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.version).toBe(s.job.version + 1);
    const stored = (await api("GET", s.base)).body.returnedNotReturnableLineItems[0];
    expect(stored).toMatchObject({
      status: "REJECTED",
      decisionReason: { reasonLocalized: reason.reasonLocalized, comment: "worn", reason: "Too small" },
    });
    expect(stored.refund).toBeUndefined();
    // REJECTED is final.
    const back = await api("PATCH", s.notReturnableLine, {
      itemReturnJobVersion: res.body.version,
      status: "OPEN",
    });
    expect(back.status, back.text).toBe(422);
  });

  it("400 without the version, 409 on a stale one, 404 for an unknown line, job or another tenant", async () => {
    const s = await setup();
    await rejected(
      s,
      await api("PATCH", s.notReturnableLine, { status: "ACCEPTED" }),
      "itemReturnJobVersion",
    );
    const stale = await api("PATCH", s.notReturnableLine, { itemReturnJobVersion: 1, status: "ACCEPTED" });
    expect(stale.status, stale.text).toBe(409);
    const patch = { itemReturnJobVersion: s.job.version, status: "ACCEPTED" };
    expect((await api("PATCH", `${s.base}/returnednotreturnablelineitems/${UNKNOWN}`, patch)).status).toBe(
      404,
    );
    const foreignJob = s.notReturnableLine.replace(s.job.id, UNKNOWN);
    expect((await api("PATCH", foreignJob, patch)).status).toBe(404);
    expect((await other("PATCH", s.notReturnableLine, patch)).status).toBe(404);
    expect(await versionOf(s)).toBe(s.job.version);
  });
});

describe("PUT .../returnedlineitems and .../returnednotreturnablelineitems", () => {
  const kinds = [
    ["returnedlineitems", "returnedLineItems", (s: Setup) => s.ref],
    ["returnednotreturnablelineitems", "returnedNotReturnableLineItems", (s: Setup) => s.nrRef],
  ] as const;

  describe.each(kinds)("PUT .../%s", (segment, list, refOf) => {
    const put = (s: Setup, b: Body, as = api) => as("PUT", `${s.base}/${segment}`, b);
    const body = (s: Setup, lines: Body[]) => ({ itemReturnJobVersion: s.job.version, [list]: lines });

    it("takes 100 lines and refuses 101 and none; 400 without the list, the version, a line's ref or status", async () => {
      const s = await setup();
      const ref = refOf(s);
      await rejected(s, await put(s, body(s, many(101, line(ref)))), list);
      await rejected(s, await put(s, body(s, [])), list);
      await rejected(s, await put(s, { itemReturnJobVersion: s.job.version }), list);
      await rejected(s, await put(s, { [list]: [line(ref)] }), "itemReturnJobVersion");
      await rejected(
        s,
        await put(s, without(body(s, [line(ref)]), `${list}.0.itemReturnJobLineItemRef`)),
        "itemReturnJobLineItemRef",
      );
      await rejected(s, await put(s, without(body(s, [line(ref)]), `${list}.0.status`)), "status");
      const atLimit = await put(s, body(s, many(100, line(ref))));
      expect(atLimit.status, atLimit.text).toBe(200);
      expect((await api("GET", s.base)).body[list]).toHaveLength(100);
    });

    it("per line: 20 reasons, 50 scanned codes, 50 recordable attributes; 21/51/51 and an empty itemConditionComment are 400", async () => {
      const s = await setup();
      const ref = refOf(s);
      const cases: [string, Body][] = [
        ["reasons", { reasons: many(21, reason) }],
        ["scannedCodes", { scannedCodes: many(51, "c") }],
        ["recordableAttributes", { recordableAttributes: many(51, recordable) }],
        ["itemConditionComment", { itemConditionComment: "" }],
      ];
      for (const [field, extra] of cases) await rejected(s, await put(s, body(s, [line(ref, extra)])), field);
      const atLimit = await put(
        s,
        body(s, [
          line(ref, {
            reasons: many(20, reason),
            scannedCodes: many(50, "c"),
            recordableAttributes: many(50, recordable),
            itemConditionComment: "x",
          }),
        ]),
      );
      expect(atLimit.status, atLimit.text).toBe(200);
      const stored = (await api("GET", s.base)).body[list][0];
      expect([stored.reasons.length, stored.scannedCodes.length, stored.recordableAttributes.length]).toEqual(
        [20, 50, 50],
      );
    });

    it("409 on a stale version; 404 for an unknown job or item return and for another tenant", async () => {
      const s = await setup();
      const lines = [line(refOf(s))];
      const stale = await put(s, { itemReturnJobVersion: s.job.version - 1, [list]: lines });
      expect(stale.status, stale.text).toBe(409);
      const b = body(s, lines);
      expect((await api("PUT", `${s.base.replace(s.job.id, UNKNOWN)}/${segment}`, b)).status).toBe(404);
      expect((await api("PUT", `${s.base.replace(s.ir.id, UNKNOWN)}/${segment}`, b)).status).toBe(404);
      expect((await put(s, b, other)).status).toBe(404);
      expect(await versionOf(s)).toBe(s.job.version);
    });
  });
});

describe("DELETE .../itemreturns/{id} (deprecated)", () => {
  it("404 for another tenant, whose request changes nothing", async () => {
    const s = await setup();
    const res = await other("DELETE", `${s.base}?itemReturnJobVersion=${s.job.version}`);
    expect(res.status, res.text).toBe(404);
    const job = (await api("GET", `/api/itemreturnjobs/${s.job.id}`)).body;
    expect(job.version).toBe(s.job.version);
    expect(job.itemReturns.map((r: any) => r.id)).toEqual([s.ir.id]);
  });
});

describe("POST .../itemreturns/{id}/parcels: the bounds of the request", () => {
  const item = { quantity: 1, article: { tenantArticleId: "A-1", title: "Shirt" } };
  it.each([
    ["items", (n: number) => ({ items: many(n, item) }), 500],
    ["loadUnitRefs", (n: number) => ({ loadUnitRefs: many(n, "LU-1") }), 100],
    ["transfers", (n: number) => ({ transfers: many(n, { id: "T-1", type: "RECEIVER" }) }), 50],
    [
      "recordableAttributes",
      (n: number) => ({ items: [{ ...item, recordableAttributes: many(n, recordable) }] }),
      50,
    ],
    ["scannableCodes", (n: number) => ({ items: [{ ...item, scannableCodes: many(n, "c") }] }), 50],
  ])("%s: at the limit accepted, one over 400", async (field, make, limit) => {
    const s = await setup();
    const path = `${s.base}/parcels`;
    await rejected(s, await api("POST", path, { carrierRef: carrierId, ...make(limit + 1) }), field);
    const res = await api("POST", path, { carrierRef: carrierId, ...make(limit) });
    expect(res.status, res.text).toBe(201);
  });
});
