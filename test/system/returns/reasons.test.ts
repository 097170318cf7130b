/**
 * Cancelation reasons and reroute descriptions (the reference's AbstractReason) through the gateway:
 * create (201, or 303 to the existing one with the same text), read, list with paging and
 * hasNextPage, PUT on the current version, DELETE; the closed inputs; tenancy; audit; conformance.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "lin.clerk" }));
  other = sys.as(await sys.token("globex"));
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const KINDS = [
  { path: "/api/cancelationreasons", schema: "CancelationReason", action: "CANCELATION" },
  { path: "/api/reroutedescriptions", schema: "RerouteDescription", action: "REROUTE" },
] as const;
const body = (reason: string) => ({ reason, reasonLocalized: { en_US: reason, de_DE: `${reason} (de)` } });

describe.each(KINDS)("$path", ({ path, schema, action }) => {
  it("creates (201, Location), reads, and answers 303 to the existing one for the same text", async () => {
    const text = `Customer changed mind ${randomBytes(3).toString("hex")}`;
    const created = await api("POST", path, body(text));
    expect(created.status, created.text).toBe(201);
    conformant(schema, created.body);
    expect(created.body).toMatchObject({
      action,
      reason: text,
      version: 1,
      reasonLocalized: body(text).reasonLocalized,
    });
    expect(created.headers.get("location")).toBe(`${path}/${created.body.id}`);
    const read = await api("GET", `${path}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const again = await api("POST", path, { ...body(text), reasonLocalized: { en_US: "other" } });
    expect(again.status).toBe(303);
    expect(again.text).toBe("");
    expect(again.headers.get("location")).toBe(`${path}/${created.body.id}`);
    // The other kind's resource is separate: the same text is a new reason there.
    const otherKind = KINDS.find((k) => k.path !== path)!;
    expect((await api("POST", otherKind.path, body(text))).status).toBe(201);
  });

  it("lists in creation order with size, startAfterId, hasNextPage and total", async () => {
    const tenant = sys.as(await sys.token(`r-${randomBytes(3).toString("hex")}`));
    const ids: string[] = [];
    for (const t of ["a", "b", "c"]) ids.push((await tenant("POST", path, body(t))).body.id);
    const first = await tenant("GET", `${path}?size=2`);
    expect(first.status, first.text).toBe(200);
    conformant(`${schema}s`, first.body);
    expect(first.body.reasons.map((r: any) => r.id)).toEqual(ids.slice(0, 2));
    expect(first.body).toMatchObject({ hasNextPage: true, total: 3 });
    if (action === "REROUTE") expect(first.body.rerouteDescriptions).toEqual(first.body.reasons);
    const rest = await tenant("GET", `${path}?size=2&startAfterId=${ids[1]}`);
    expect(rest.body.reasons.map((r: any) => r.id)).toEqual([ids[2]]);
    expect(rest.body.hasNextPage).toBe(false);
    expect((await tenant("GET", `${path}?size=501`)).status).toBe(400);
    expect((await tenant("GET", `${path}?startAfterId=nope`)).status).toBe(400);
  });

  it("PUT replaces on the current version: 409 when stale or when another reason has the text", async () => {
    const a = (await api("POST", path, body(`A ${randomBytes(3).toString("hex")}`))).body;
    const b = (await api("POST", path, body(`B ${randomBytes(3).toString("hex")}`))).body;
    const put = await api("PUT", `${path}/${a.id}`, { version: 1, ...body(`Renamed ${a.id}`) });
    expect(put.status, put.text).toBe(200);
    conformant(schema, put.body);
    expect(put.body).toMatchObject({ id: a.id, version: 2, reason: `Renamed ${a.id}`, created: a.created });
    const stale = await api("PUT", `${path}/${a.id}`, { version: 1, ...body("late") });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    const clash = await api("PUT", `${path}/${a.id}`, { version: 2, ...body(b.reason) });
    expect(clash.status).toBe(409);
    expect((await api("GET", `${path}/${a.id}`)).body.version).toBe(2);
  });

  it("400 for a missing reason or reasonLocalized, an extra property, a missing version", async () => {
    const r = (await api("POST", path, body(`X ${randomBytes(3).toString("hex")}`))).body;
    for (const [bad, field] of [
      [{ reasonLocalized: { en_US: "x" } }, "reason"],
      [{ reason: "x" }, "reasonLocalized"],
      [{ reason: "", reasonLocalized: {} }, "reason"],
      [{ ...body("x"), id: "mine" }, "id"],
      [{ ...body("x"), reasonLocalized: { "not a locale": "x" } }, "reasonLocalized"],
    ] as const) {
      const res = await api("POST", path, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect((await api("PUT", `${path}/${r.id}`, body("no version"))).status).toBe(400);
    expect(
      (await api("PUT", `${path}/${r.id}`, { version: 1, ...body("x"), action: "REROUTE" })).status,
    ).toBe(400);
  });

  it("DELETE: 200 with an empty body, then 404; unknown ids 404", async () => {
    const r = (await api("POST", path, body(`D ${randomBytes(3).toString("hex")}`))).body;
    const del = await api("DELETE", `${path}/${r.id}`);
    expect(del.status).toBe(200);
    expect(del.text).toBe("");
    for (const id of [r.id, UNKNOWN, "nope"]) {
      expect((await api("GET", `${path}/${id}`)).status).toBe(404);
      expect((await api("DELETE", `${path}/${id}`)).status).toBe(404);
      expect((await api("PUT", `${path}/${id}`, { version: 1, ...body("x") })).status).toBe(404);
    }
    // Its text is free again.
    expect((await api("POST", path, body(r.reason))).status).toBe(201);
  });

  it("tenant B sees and changes nothing of tenant A's; CONFIG_WRITE is needed to write", async () => {
    const r = (await api("POST", path, body(`T ${randomBytes(3).toString("hex")}`))).body;
    expect((await other("GET", `${path}/${r.id}`)).status).toBe(404);
    expect((await other("PUT", `${path}/${r.id}`, { version: 1, ...body("x") })).status).toBe(404);
    expect((await other("DELETE", `${path}/${r.id}`)).status).toBe(404);
    expect((await other("GET", `${path}?size=500`)).body.reasons.map((x: any) => x.id)).not.toContain(r.id);
    expect((await other("POST", path, body(r.reason))).status).toBe(201);
    const viewer = sys.as(await sys.token("acme", { roles: ["VIEWER"] }));
    expect((await viewer("GET", `${path}/${r.id}`)).status).toBe(200);
    expect((await viewer("POST", path, body("viewer"))).status).toBe(403);
  });

  it("changes reach the audit log", async () => {
    const r = (await api("POST", path, body(`E ${randomBytes(3).toString("hex")}`))).body;
    await api("PUT", `${path}/${r.id}`, { version: 1, ...body(`E2 ${r.id}`) });
    await api("DELETE", `${path}/${r.id}`);
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: r.id } },
        sort: [{ created: "ASC" }],
      });
      return res.body.audits?.length >= 3 ? res.body.audits : undefined;
    });
    const type = action === "CANCELATION" ? "CANCELATION_REASON" : "REROUTE_DESCRIPTION";
    expect(audits.map((a: any) => [a.operation.name, a.entityType, a.entityVersion])).toEqual([
      [`${type}_CREATED`, type, 1],
      [`${type}_UPDATED`, type, 2],
      [`${type}_DELETED`, type, 2],
    ]);
  });
});
