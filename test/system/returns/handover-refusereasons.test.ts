/**
 * The handover refuse reasons: the reference's GET /api/configurations/handover/refusereasons
 * (AvailableRefusedReason[]), held by our GET/PUT /api/configurations/handover (versioned,
 * per tenant, CONFIG_READ / CONFIG_WRITE), audited from its events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("handover-a"));
});
afterAll(() => sys?.close());

const damaged = { refusedReasonLocalized: { en_US: "Damaged", de_DE: "Beschädigt" }, active: true };
const late = { refusedReasonLocalized: { de_DE: "Zu spät", en_US: "Too late" }, active: false };

describe("handover refuse reasons", () => {
  it("none before a configuration; PUT creates (201) then replaces on the current version (200); GET answers them, audited", async () => {
    expect(await api("GET", "/api/configurations/handover/refusereasons")).toMatchObject({
      status: 200,
      body: [],
    });
    const none = await api("GET", "/api/configurations/handover");
    expect(none.status).toBe(404);
    expect(none.body[0].code).toBe("HANDOVER_CONFIGURATION_NOT_FOUND");

    const created = await api("PUT", "/api/configurations/handover", {
      version: 0,
      refusedReasons: [damaged],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      version: 1,
      created: expect.any(String),
      lastModified: created.body.created,
      refusedReasons: [{ ...damaged, refusedReason: "Damaged" }],
    });
    expect((await api("GET", "/api/configurations/handover")).body).toEqual(created.body);

    const replaced = await api("PUT", "/api/configurations/handover", {
      version: 1,
      refusedReasons: [damaged, { ...late, refusedReason: "ignored: the first locale's text is set" }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ version: 2, created: created.body.created });
    const reasons = await api("GET", "/api/configurations/handover/refusereasons");
    expect(reasons.status).toBe(200);
    expect(reasons.body).toEqual([
      { ...damaged, refusedReason: "Damaged" },
      { ...late, refusedReason: "Zu spät" },
    ]);
    if (!referenceMissing) {
      for (const r of reasons.body) expect(referenceErrors("AvailableRefusedReason", r)).toEqual([]);
    }

    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityType: { eq: "HANDOVER_CONFIGURATION" } },
        sort: [{ created: "ASC" }],
      });
      return res.body.audits?.length >= 2 ? res.body.audits : undefined;
    });
    expect(audits.map((a: any) => [a.operation.name, a.entityVersion])).toEqual([
      ["HANDOVER_CONFIGURATION_CREATED", 1],
      ["HANDOVER_CONFIGURATION_UPDATED", 2],
    ]);
  });

  it("409 when stale, 400 naming the field, nothing changed by either", async () => {
    const t = sys.as(await sys.token("handover-b"));
    expect(
      (await t("PUT", "/api/configurations/handover", { version: 0, refusedReasons: [damaged] })).status,
    ).toBe(201);
    const stale = await t("PUT", "/api/configurations/handover", { version: 0, refusedReasons: [] });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 0, version: 1 });

    for (const [body, field] of [
      [{ version: 1, refusedReasons: [{ refusedReasonLocalized: { en_US: "x" } }] }, "active"],
      [
        { version: 1, refusedReasons: [{ refusedReasonLocalized: {}, active: true }] },
        "refusedReasonLocalized",
      ],
      [{ version: 1, refusedReasons: [{ ...damaged, color: "red" }] }, "color"],
      [{ version: 1 }, "refusedReasons"],
      [{ refusedReasons: [] }, "version"],
      [{ version: 1, refusedReasons: Array.from({ length: 101 }, () => damaged) }, "refusedReasons"],
    ] as const) {
      const res = await t("PUT", "/api/configurations/handover", body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect((await t("GET", "/api/configurations/handover")).body.version).toBe(1);
    expect((await t("GET", "/api/configurations/handover/refusereasons")).body).toEqual([
      { ...damaged, refusedReason: "Damaged" },
    ]);
  });

  it("is the tenant's own: another tenant sees none and creates its own", async () => {
    const d = sys.as(await sys.token("handover-d"));
    const e = sys.as(await sys.token("handover-e"));
    expect(
      (await d("PUT", "/api/configurations/handover", { version: 0, refusedReasons: [damaged] })).status,
    ).toBe(201);
    expect((await e("GET", "/api/configurations/handover/refusereasons")).body).toEqual([]);
    expect((await e("GET", "/api/configurations/handover")).status).toBe(404);
    const own = await e("PUT", "/api/configurations/handover", { version: 0, refusedReasons: [late] });
    expect(own.status).toBe(201);
    expect(own.body.version).toBe(1);
    expect((await d("GET", "/api/configurations/handover/refusereasons")).body).toEqual([
      { ...damaged, refusedReason: "Damaged" },
    ]);
    expect((await e("GET", "/api/configurations/handover/refusereasons")).body).toEqual([
      { ...late, refusedReason: "Zu spät" },
    ]);
  });

  it("CONFIG_READ reads, CONFIG_WRITE writes; no token is a 401", async () => {
    const viewer = sys.as(await sys.token("handover-a", { roles: ["VIEWER"] }));
    expect((await viewer("GET", "/api/configurations/handover/refusereasons")).status).toBe(200);
    expect((await viewer("GET", "/api/configurations/handover")).status).toBe(200);
    const refused = await viewer("PUT", "/api/configurations/handover", { version: 2, refusedReasons: [] });
    expect(refused.status).toBe(403);
    const picker = sys.as(await sys.token("handover-a", { roles: ["PICKER"] }));
    expect((await picker("GET", "/api/configurations/handover/refusereasons")).status).toBe(403);
    expect((await sys.api("GET", "/api/configurations/handover/refusereasons")).status).toBe(401);
    expect((await api("GET", "/api/configurations/handover")).body.version).toBe(2);
  });
});
