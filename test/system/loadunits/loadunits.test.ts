/**
 * Load units, stacks, operative container types and load unit types through the gateway: creation
 * (pick jobs known from picking's events, or by one call when an event has not arrived yet),
 * reads with locale, list filters and paging, soft deletes (single and bulk, with its 400/404/422
 * rules), the deprecated PATCH, the action, versions, icons, tenancy, events in the audit log and
 * conformance with the reference's schemas.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let facility2Id: string;
let otherFacilityId: string;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "ada.lovelace" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress })).body.id;
  facility2Id = (await api("POST", "/api/facilities", { name: "Store 2", address: facilityAddress })).body.id;
  otherFacilityId = (await other("POST", "/api/facilities", { name: "Globex", address: facilityAddress }))
    .body.id;
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
const pickJob = async (as = api, facility = facilityId) => {
  const res = await as("POST", "/api/pickjobs", pickJobBody(facility));
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; version: number };
};
const createUnits = async (loadUnits: Record<string, unknown>[], as = api) => {
  const res = await as("POST", "/api/loadunits", { loadUnits });
  expect(res.status, res.text).toBe(201);
  conformant("LoadUnit", res.body[0]);
  return res.body as Record<string, any>[];
};
const lineItem = {
  article: { tenantArticleId: "A-1", title: "Tea" },
  quantity: 2,
  recordableAttributes: [
    { keyLocalized: { en_US: "Best before", de_DE: "MHD" }, recordingRule: "MANDATORY" },
  ],
};

describe("creating load units", () => {
  it("creates several at once: status AVAILABLE, facility from the job, ids for line items, reference schema", async () => {
    const job = await pickJob();
    const [a, b] = await createUnits([
      { pickJobRefs: [job.id, job.id], codes: ["LU-1"], loadUnitLineItems: [lineItem] },
      { pickJobRefs: [job.id], customAttributes: { temp: "cold" } },
    ]);
    expect(a).toMatchObject({
      version: 1,
      status: "AVAILABLE",
      facilityRef: facilityId,
      pickJobRefs: [job.id],
      codes: ["LU-1"],
      nameLocalized: {},
    });
    expect(a!.loadUnitLineItems[0].id).toEqual(expect.any(String));
    expect(a!.loadUnitLineItems[0].recordableAttributes[0]).toMatchObject({
      id: expect.any(String),
      key: "Best before",
      recordingRule: "MANDATORY",
    });
    expect(b).toMatchObject({ customAttributes: { temp: "cold" }, facilityRef: facilityId });
    const read = await api("GET", `/api/loadunits/${a!.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(a);
  });

  it("never stores a client's status or facilityRef", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([
      { pickJobRefs: [job.id], status: "OBSOLETE", facilityRef: facility2Id },
    ]);
    expect(unit).toMatchObject({ status: "AVAILABLE", facilityRef: facilityId });
    expect((await api("GET", `/api/loadunits/${unit!.id}`)).body).toMatchObject({
      status: "AVAILABLE",
      facilityRef: facilityId,
    });
  });

  it("400 for each kind of bad input, and nothing is created", async () => {
    const job = await pickJob();
    const foreign = await pickJob(other, otherFacilityId);
    const other2 = await pickJob(api, facility2Id);
    const cases: [unknown, string | undefined][] = [
      [{ loadUnits: [] }, undefined],
      [{}, undefined],
      [{ loadUnits: [{ codes: ["x"] }] }, undefined],
      [{ loadUnits: [{ pickJobRefs: [] }] }, undefined],
      [{ loadUnits: [{ pickJobRefs: [UNKNOWN] }] }, "PICK_JOB_NOT_FOUND"],
      [{ loadUnits: [{ pickJobRefs: ["not-a-uuid"] }] }, "PICK_JOB_NOT_FOUND"],
      [{ loadUnits: [{ pickJobRefs: [foreign.id] }] }, "PICK_JOB_NOT_FOUND"],
      [{ loadUnits: [{ pickJobRefs: [job.id, other2.id] }] }, "PICK_JOBS_IN_DIFFERENT_FACILITIES"],
      [{ loadUnits: [{ pickJobRefs: [job.id], stackRef: UNKNOWN }] }, "STACK_NOT_FOUND"],
      [
        { loadUnits: [{ pickJobRefs: [job.id], operativeContainerTypeRef: UNKNOWN }] },
        "CONTAINER_TYPE_NOT_FOUND",
      ],
      [{ loadUnits: [{ pickJobRefs: [job.id], loadUnitLineItems: [{ quantity: 1 }] }] }, undefined],
      [{ loadUnits: [{ pickJobRefs: [job.id] }, { pickJobRefs: [UNKNOWN] }] }, "PICK_JOB_NOT_FOUND"],
    ];
    for (const [body, code] of cases) {
      const res = await api("POST", "/api/loadunits", body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      conformant("ApiError", res.body);
      if (code) expect(res.body[0].code, JSON.stringify(body)).toBe(code);
    }
    const last = await api("POST", "/api/loadunits", cases.at(-1)![0]);
    expect(last.body[0].description).toContain(UNKNOWN);
    // The valid first unit of the last case was not created either.
    expect((await api("GET", `/api/loadunits?pickJobRef=${job.id}`)).body).toEqual({
      loadUnits: [],
      total: 0,
    });
  });

  it("a load unit for a pick job created a moment earlier is accepted (before picking's event arrives)", async () => {
    for (let i = 0; i < 5; i++) {
      const job = await pickJob();
      const res = await api("POST", `/api/pickjobs/${job.id}/loadunits`, { codes: [`LU-${i}`] });
      expect(res.status, res.text).toBe(201);
      expect(res.body.facilityRef).toBe(facilityId);
    }
  });

  it("the projection follows picking's events: with picking stopped, known jobs still get load units", async () => {
    const job = await pickJob();
    // The job reaches the projection through its PICK_JOB_CREATED event.
    const db = new pg.Client({ connectionString: sys.db.url });
    await db.connect();
    try {
      await eventually(
        async () =>
          (await db.query("select id from loadunits.pick_job_ref where id = $1", [job.id])).rowCount === 1,
      );
    } finally {
      await db.end();
    }
    await sys.stopService("picking");
    try {
      const [unit] = await createUnits([{ pickJobRefs: [job.id], codes: ["OFFLINE"] }]);
      expect(unit).toMatchObject({ facilityRef: facilityId, status: "AVAILABLE" });
      // A job the projection has never seen needs picking: while it is down, that is not a 400.
      const res = await api("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [UNKNOWN] }] });
      expect(res.status).toBeGreaterThanOrEqual(500);
    } finally {
      await sys.restartService("picking");
    }
  });
});

describe("reading and listing", () => {
  it("resolves name/description for the locale, the default locale otherwise", async () => {
    const oct = await api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "Box", de_DE: "Kiste" },
      descriptionLocalized: { en_US: "A box", de_DE: "Eine Kiste" },
      allowedOperativeTypes: ["PICKING"],
      dimensions: { heightInCm: 10 },
      weightLimitInG: 5000,
    });
    expect(oct.status, oct.text).toBe(201);
    const job = await pickJob();
    const [unit] = await createUnits([
      { pickJobRefs: [job.id], operativeContainerTypeRef: oct.body.id, loadUnitLineItems: [lineItem] },
    ]);
    expect(unit).toMatchObject({
      name: "Box",
      description: "A box",
      nameLocalized: { en_US: "Box", de_DE: "Kiste" },
      dimensions: { heightInCm: 10 },
      weightLimitInG: 5000,
      operativeContainerTypeRef: oct.body.id,
    });
    const de = await api("GET", `/api/loadunits/${unit!.id}?locale=de_DE`);
    expect(de.body).toMatchObject({ name: "Kiste", description: "Eine Kiste" });
    expect(de.body.loadUnitLineItems[0].recordableAttributes[0].key).toBe("MHD");
    expect((await api("GET", `/api/loadunits/${unit!.id}?locale=fr_FR`)).body.name).toBe("Box");
    expect(
      (await api("GET", `/api/loadunits?pickJobRef=${job.id}&locale=de-DE`)).body.loadUnits[0].name,
    ).toBe("Kiste");
    expect((await api("GET", `/api/loadunits/${unit!.id}?locale=not a locale`)).status).toBe(400);
  });

  it("404 for an unknown or malformed id", async () => {
    expect((await api("GET", `/api/loadunits/${UNKNOWN}`)).status).toBe(404);
    const res = await api("GET", "/api/loadunits/nope");
    expect(res.status).toBe(404);
    conformant("ApiError", res.body);
  });

  it("lists by pick job, pages with size/startAfterId, counts total, shows OBSOLETE only when asked", async () => {
    const job = await pickJob();
    const units = await createUnits(
      Array.from({ length: 5 }, (_, i) => ({ pickJobRefs: [job.id], codes: [`P${i}`] })),
    );
    await api("DELETE", `/api/loadunits/${units[4]!.id}`);
    const base = `/api/loadunits?pickJobRef=${job.id}`;
    const first = await api("GET", `${base}&size=2`);
    expect(first.status).toBe(200);
    conformant("LoadUnits", first.body);
    expect(first.body.total).toBe(4);
    expect(first.body.loadUnits.map((u: { id: string }) => u.id)).toEqual([units[0]!.id, units[1]!.id]);
    const next = await api("GET", `${base}&size=2&startAfterId=${units[1]!.id}`);
    expect(next.body.loadUnits.map((u: { id: string }) => u.id)).toEqual([units[2]!.id, units[3]!.id]);
    expect((await api("GET", `${base}&size=2&startAfterId=${units[3]!.id}`)).body.loadUnits).toEqual([]);
    const obsolete = await api("GET", `${base}&statuses=OBSOLETE`);
    expect(obsolete.body.loadUnits.map((u: { id: string }) => u.id)).toEqual([units[4]!.id]);
    for (const q of [
      "statuses=",
      "statuses=[]",
      "statuses=AVAILABLE&statuses=OBSOLETE",
      "statuses=AVAILABLE,OBSOLETE",
    ]) {
      expect((await api("GET", `${base}&${q}`)).body.total, q).toBe(5);
    }
    expect((await api("GET", `${base}&statuses=[AVAILABLE]`)).body.total).toBe(4);
    expect((await api("GET", `${base}&statuses=GONE`)).status).toBe(400);
    expect((await api("GET", `${base}&size=501`)).status).toBe(400);
    expect((await api("GET", `${base}&size=0`)).status).toBe(400);
    expect((await api("GET", `${base}&startAfterId=nope`)).status).toBe(400);
    // The pick job's own list shows both statuses.
    expect((await api("GET", `/api/pickjobs/${job.id}/loadunits`)).body.total).toBe(5);
  });
});

describe("deleting", () => {
  it("single delete: OBSOLETE, record kept, a second delete changes nothing", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id] }]);
    const del = await api("DELETE", `/api/loadunits/${unit!.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: unit!.id, status: "OBSOLETE", version: 2 });
    conformant("LoadUnit", del.body);
    expect((await api("DELETE", `/api/loadunits/${unit!.id}`)).body).toMatchObject({ version: 2 });
    expect((await api("GET", `/api/loadunits/${unit!.id}`)).body.status).toBe("OBSOLETE");
    expect((await api("DELETE", `/api/loadunits/${UNKNOWN}`)).status).toBe(404);
  });

  it("bulk delete by pick job and ids; 400, 404 and 422 as documented, all or nothing", async () => {
    const job = await pickJob();
    const job2 = await pickJob();
    const [a, b, c] = await createUnits([
      { pickJobRefs: [job.id] },
      { pickJobRefs: [job.id] },
      { pickJobRefs: [job.id] },
    ]);
    const [x] = await createUnits([{ pickJobRefs: [job2.id] }]);

    expect((await api("DELETE", "/api/loadunits")).status).toBe(400);
    expect((await api("DELETE", `/api/loadunits?pickJobRef=${UNKNOWN}`)).status).toBe(404);
    expect((await api("DELETE", `/api/loadunits?id=${a!.id}&id=${UNKNOWN}`)).status).toBe(404);
    const foreignUnit = await api("DELETE", `/api/loadunits?pickJobRef=${job.id}&id=${a!.id}&id=${x!.id}`);
    expect(foreignUnit.status).toBe(422);
    expect(foreignUnit.body[0].code).toBe("LOAD_UNIT_NOT_OF_PICK_JOB");
    conformant("ApiError", foreignUnit.body);
    // Nothing changed by the refused requests.
    expect((await api("GET", `/api/loadunits/${a!.id}`)).body.status).toBe("AVAILABLE");

    const byIds = await api("DELETE", `/api/loadunits?pickJobRef=${job.id}&id=${a!.id}&id=${b!.id}`);
    expect(byIds.status, byIds.text).toBe(200);
    conformant("LoadUnits", byIds.body);
    expect(byIds.body.total).toBe(2);
    expect(byIds.body.loadUnits.map((u: { status: string }) => u.status)).toEqual(["OBSOLETE", "OBSOLETE"]);
    const again = await api("DELETE", `/api/loadunits?id=${a!.id}`);
    expect(again.status).toBe(422);
    expect(again.body[0].code).toBe("LOAD_UNIT_ALREADY_OBSOLETE");

    const byJob = await api("DELETE", `/api/loadunits?pickJobRef=${job.id}`);
    expect(byJob.body).toMatchObject({ total: 1, loadUnits: [{ id: c!.id, status: "OBSOLETE" }] });
    expect((await api("DELETE", `/api/loadunits?pickJobRef=${job.id}`)).body).toEqual({
      loadUnits: [],
      total: 0,
    });
    expect((await api("GET", `/api/loadunits/${x!.id}`)).body.status).toBe("AVAILABLE");
  });
});

describe("changing", () => {
  it("the deprecated PATCH replaces line items (Deprecation header, 409 on a stale version)", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id], loadUnitLineItems: [lineItem] }]);
    const items = [{ id: "L1", article: { tenantArticleId: "B-2", title: "Coffee" }, quantity: 3 }];
    const res = await api("PATCH", `/api/loadunits/${unit!.id}`, {
      version: 1,
      actions: [{ action: "ReplaceLoadUnitLineItems", loadUnitLineItems: items }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("deprecation")).toBeTruthy();
    expect(res.body).toMatchObject({ version: 2, loadUnitLineItems: items });
    conformant("LoadUnit", res.body);
    const stale = await api("PATCH", `/api/loadunits/${unit!.id}`, {
      version: 1,
      actions: [{ action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [] }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    // The second form: a whole LoadUnit (as read), with what it changes.
    const current = (await api("GET", `/api/loadunits/${unit!.id}`)).body;
    const partial = await api("PATCH", `/api/loadunits/${unit!.id}`, {
      ...current,
      version: 2,
      codes: ["NEW"],
      status: "OBSOLETE",
      facilityRef: facility2Id,
    });
    expect(partial.status, partial.text).toBe(200);
    expect(partial.body).toMatchObject({
      codes: ["NEW"],
      status: "AVAILABLE",
      facilityRef: facilityId,
      version: 3,
    });
    const onUnknownStack = await api("PATCH", `/api/loadunits/${unit!.id}`, {
      ...partial.body,
      stackRef: UNKNOWN,
    });
    expect(onUnknownStack.status).toBe(400);
    expect(onUnknownStack.body[0].code).toBe("STACK_NOT_FOUND");
    expect(
      (await api("PATCH", `/api/loadunits/${UNKNOWN}`, { ...partial.body, id: UNKNOWN, version: 1 })).status,
    ).toBe(404);
  });

  it("the deprecated PATCH takes only LoadUnitPatchActions or a whole LoadUnit: else a 400 naming the field, and nothing changes", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([
      { pickJobRefs: [job.id], codes: ["C"], loadUnitLineItems: [lineItem] },
    ]);
    const item = { id: "L1", article: { tenantArticleId: "B-2", title: "Coffee" } };
    const refused: [string, Record<string, unknown>, RegExp][] = [
      [
        "a misspelled action",
        { version: 1, actions: [{ action: "ReplaceLoadUnitLineItem", loadUnitLineItems: [item] }] },
        /actions\/0\/action/,
      ],
      [
        "line items without id",
        {
          version: 1,
          actions: [{ action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [{ article: item.article }] }],
        },
        /actions\/0\/loadUnitLineItems\/0 .*"id"/,
      ],
      [
        "actions without version",
        { actions: [{ action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [item] }] },
        /"version"/,
      ],
      ["loose fields without version", { codes: ["X"] }, /"id"/],
      ["loose fields with a version", { version: 1, codes: ["X"], customAttributes: { a: 1 } }, /"id"/],
      ["a whole LoadUnit without version", { ...unit, version: undefined, codes: ["X"] }, /"version"/],
      ["a whole LoadUnit without status", { ...unit, status: undefined, codes: ["X"] }, /"status"/],
      [
        "a whole LoadUnit with actions",
        { ...unit, codes: ["X"], actions: [{ action: "Replace", loadUnitLineItems: [] }] },
        /actions\/0\/action/,
      ],
    ];
    for (const [what, body, field] of refused) {
      const res = await api("PATCH", `/api/loadunits/${unit!.id}`, body);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.body[0].description, what).toMatch(field);
    }
    expect((await api("GET", `/api/loadunits/${unit!.id}`)).body).toEqual(unit);

    const whole = await api("PATCH", `/api/loadunits/${unit!.id}`, { ...unit, codes: ["X"] });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body).toMatchObject({
      version: 2,
      codes: ["X"],
      loadUnitLineItems: unit!.loadUnitLineItems,
    });
    conformant("LoadUnit", whole.body);
    const otherId = await api("PATCH", `/api/loadunits/${unit!.id}`, { ...whole.body, id: UNKNOWN });
    expect(otherId.status).toBe(400);
    expect(otherId.body[0].code).toBe("ID_MISMATCH");
    expect((await api("GET", `/api/loadunits/${unit!.id}`)).body.version).toBe(2);
  });

  it("UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES updates by attribute id on the named version", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id], loadUnitLineItems: [lineItem] }]);
    const attr = unit!.loadUnitLineItems[0].recordableAttributes[0].id;
    const action = (
      version: number,
      recordableAttributeId = attr,
      name = "UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES",
    ) =>
      api("POST", `/api/loadunits/${unit!.id}/actions`, {
        name,
        version,
        recordableAttributes: [{ recordableAttributeId, value: "2027-01-01" }],
      });
    const res = await action(1);
    expect(res.status, res.text).toBe(200);
    expect(res.body.version).toBe(2);
    expect(res.body.loadUnitLineItems[0].recordableAttributes[0]).toMatchObject({
      id: attr,
      value: "2027-01-01",
    });
    conformant("LoadUnit", res.body);
    expect((await action(1)).status).toBe(409);
    const unknownAttr = await action(2, "nope");
    expect(unknownAttr.status).toBe(400);
    expect(unknownAttr.body[0].code).toBe("RECORDABLE_ATTRIBUTE_NOT_FOUND");
    expect((await action(2, attr, "SOMETHING_ELSE")).status).toBe(400);
    await api("DELETE", `/api/loadunits/${unit!.id}`);
    expect((await action(3)).status).toBe(422);
  });
});

describe("stacks", () => {
  it("creates, reads, lists by facility; a load unit's stack", async () => {
    const s1 = await api("POST", "/api/stacks", { facilityRefs: [facilityId], processRefs: ["P1"] });
    expect(s1.status, s1.text).toBe(201);
    conformant("Stack", s1.body);
    expect(s1.body).toMatchObject({ version: 1, facilityRefs: [facilityId], processRefs: ["P1"] });
    const s2 = await api("POST", "/api/stacks", { facilityRefs: [facility2Id], processRefs: [] });
    expect((await api("GET", `/api/stacks/${s1.body.id}`)).body).toEqual(s1.body);
    expect((await api("GET", `/api/stacks/${UNKNOWN}`)).status).toBe(404);
    const byFacility = await api("GET", `/api/stacks?facilityRefs=${facility2Id}`);
    conformant("StackResponse", byFacility.body);
    expect(byFacility.body).toEqual({ stacks: [s2.body], total: 1 });
    expect((await api("GET", "/api/stacks?size=1")).body.stacks).toHaveLength(1);
    expect((await api("POST", "/api/stacks", { facilityRefs: [] })).status).toBe(400);

    const job = await pickJob();
    const [onStack, loose] = await createUnits([
      { pickJobRefs: [job.id], stackRef: s1.body.id },
      { pickJobRefs: [job.id] },
    ]);
    expect((await api("GET", `/api/loadunits/${onStack!.id}/stack`)).body).toEqual(s1.body);
    expect((await api("GET", `/api/loadunits/${loose!.id}/stack`)).status).toBe(404);
    // Another tenant's stack cannot be named.
    const foreign = await other("POST", "/api/stacks", { facilityRefs: [], processRefs: [] });
    const res = await api("POST", "/api/loadunits", {
      loadUnits: [{ pickJobRefs: [job.id], stackRef: foreign.body.id }],
    });
    expect(res.status).toBe(400);
    expect(res.body[0].code).toBe("STACK_NOT_FOUND");
  });
});

describe("stacks name facilities of the tenant", () => {
  it("facilityRefs naming another tenant's facility, no facility or a URN: 400 FACILITY_NOT_FOUND, nothing created", async () => {
    const before = (await api("GET", "/api/stacks?size=500")).body.total;
    for (const ref of [otherFacilityId, "not-a-facility", "urn:fft:facility:tenantFacilityId:S1", UNKNOWN]) {
      const res = await api("POST", "/api/stacks", { facilityRefs: [facilityId, ref], processRefs: [] });
      expect(res.status, `${ref}: ${res.text}`).toBe(400);
      expect(res.body[0].code).toBe("FACILITY_NOT_FOUND");
      expect(res.body[0].description).toMatch(/^facilityRefs\/1: /);
    }
    expect((await api("GET", "/api/stacks?size=500")).body.total).toBe(before);
    const ok = await api("POST", "/api/stacks", { facilityRefs: [facilityId, facility2Id], processRefs: [] });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.facilityRefs).toEqual([facilityId, facility2Id]);
  });

  it("a load unit on no stack: 404 that says so (not 'No stack with id \"of load unit ...\"')", async () => {
    const job = await pickJob();
    const [loose] = await createUnits([{ pickJobRefs: [job.id] }]);
    const res = await api("GET", `/api/loadunits/${loose!.id}/stack`);
    expect(res.status).toBe(404);
    expect(res.body[0].code).toBe("STACK_NOT_FOUND");
    expect(res.body[0].description).toBe(`Load unit "${loose!.id}" is on no stack.`);
  });
});

describe("operative container types and load unit types", () => {
  it("OCT: create, read with locale, list filters, partial update with version, icon upload", async () => {
    const created = await api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "Crate" },
      allowedOperativeTypes: ["PACKING_TARGET", "HANDOVER"],
      scannableIdentifiers: [{ identifiers: ["CR-"], searchType: "PREFIX" }],
      priority: 3,
    });
    expect(created.status, created.text).toBe(201);
    conformant("OperativeContainerType", created.body);
    expect(created.body).toMatchObject({ version: 1, name: "Crate", status: "ACTIVE" });
    const id = created.body.id;
    const list = await api(
      "GET",
      "/api/operativecontainertypes?operativeType=HANDOVER&scannableIdentifier=CR-123",
    );
    conformant("OperativeContainerTypesResponse", list.body);
    expect(list.body.operativeContainerTypes.map((t: { id: string }) => t.id)).toContain(id);
    expect(
      (
        await api("GET", "/api/operativecontainertypes?scannableIdentifier=XX-1")
      ).body.operativeContainerTypes.map((t: { id: string }) => t.id),
    ).not.toContain(id);
    expect((await api("GET", "/api/operativecontainertypes?operativeType=NOPE")).status).toBe(400);

    const updated = await api("PATCH", `/api/operativecontainertypes/${id}`, {
      version: 1,
      priority: 1,
      status: "INACTIVE",
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, priority: 1, status: "INACTIVE", name: "Crate" });
    expect((await api("PATCH", `/api/operativecontainertypes/${id}`, { version: 1 })).status).toBe(409);
    expect((await api("PATCH", `/api/operativecontainertypes/${id}`, { priority: 1 })).status).toBe(400);

    const icon = await api("PUT", `/api/operativecontainertypes/${id}/icon`, {
      name: "crate.png",
      content: PNG.toString("base64"),
    });
    expect(icon.status, icon.text).toBe(201);
    expect(icon.body.iconUrl).toMatch(/^\/api\/icons\//);
    const served = await api("GET", icon.body.iconUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    const replaced = await api("PUT", `/api/operativecontainertypes/${id}/icon`, {
      name: "c.png",
      content: PNG.toString("base64"),
    });
    expect(replaced.status).toBe(200);
    expect((await api("GET", icon.body.iconUrl)).status).toBe(404); // the replaced icon is gone
    const notImage = await api("PUT", `/api/operativecontainertypes/${id}/icon`, {
      name: "x.png",
      content: Buffer.from("<script>alert(1)</script>").toString("base64"),
    });
    expect(notImage.status).toBe(400);
    expect(notImage.body[0].code).toBe("ICON_TYPE_NOT_SUPPORTED");
    expect(
      (await api("PUT", `/api/operativecontainertypes/${id}/icon`, { name: "x.png", content: "%%%" })).status,
    ).toBe(400);
    const big = Buffer.concat([PNG, Buffer.alloc(300 * 1024)]).toString("base64");
    const tooBig = await api("PUT", `/api/operativecontainertypes/${id}/icon`, {
      name: "big.png",
      content: big,
    });
    expect(tooBig.status, tooBig.text).toBe(400);
    expect(tooBig.body[0].code).toBe("ICON_TOO_LARGE");
    expect((await other("GET", replaced.body.iconUrl)).status).toBe(404);
  });

  it("SVG icons with active content are refused (400 ICON_ACTIVE_CONTENT naming the field); inert ones are served sandboxed", async () => {
    const ns = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const active = [
      `<svg ${ns}><script>alert(document.cookie)</script></svg>`,
      `<svg ${ns} onload="alert(1)"><rect/></svg>`,
      `<svg ${ns}><a xlink:href="javascript:alert(1)"><rect/></a></svg>`,
      `<svg ${ns}><image href="data:image/svg+xml;base64,${b64(`<svg ${ns} onload="alert(1)"/>`)}"/></svg>`,
      `<svg ${ns}><foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"/></foreignObject></svg>`,
      `<svg ${ns}><use href="https://evil.example/sprite.svg#x"/></svg>`,
      `<svg ${ns}><a><set attributeName="href" to="javascript:alert(1)"/><rect/></a></svg>`,
      `<?xml-stylesheet href="https://evil.example/x.css"?><svg ${ns}/>`,
    ];
    const oct = await api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "Svg" },
      allowedOperativeTypes: ["PICKING"],
    });
    const lut = await api("POST", "/api/loadunittypes", { nameLocalized: { en_US: "Svg" } });
    for (const svg of active) {
      for (const path of [
        `/api/operativecontainertypes/${oct.body.id}/icon`,
        `/api/loadunittypes/${lut.body.id}/icon`,
      ]) {
        const res = await api("PUT", path, { name: "x.svg", content: b64(svg) });
        expect(res.status, `${svg}: ${res.text}`).toBe(400);
        expect(res.body[0]).toMatchObject({ code: "ICON_ACTIVE_CONTENT" });
      }
      const created = await api("POST", "/api/operativecontainertypes", {
        nameLocalized: { en_US: "Svg" },
        allowedOperativeTypes: ["PICKING"],
        icon: { name: "x.svg", content: b64(svg) },
      });
      expect(created.status, svg).toBe(400);
      expect(created.body[0].code).toBe("ICON_ACTIVE_CONTENT");
      expect(created.body[0].description).toMatch(/The SVG icon holds /);
    }
    expect((await api("GET", `/api/operativecontainertypes/${oct.body.id}`)).body).not.toHaveProperty(
      "iconUrl",
    );

    const inert = `<svg ${ns} viewBox="0 0 10 10"><defs><linearGradient id="g"/></defs><rect width="10" height="10" fill="url(#g)"/></svg>`;
    const ok = await api("PUT", `/api/operativecontainertypes/${oct.body.id}/icon`, {
      name: "ok.svg",
      content: b64(inert),
    });
    expect(ok.status, ok.text).toBe(201);
    const served = await api("GET", ok.body.iconUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = served.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/(^|;\s*)sandbox(;|$)/);
    expect(csp).toMatch(/default-src 'none'/);

    // Nothing with active content was stored, by any route.
    const db = new pg.Client({ connectionString: sys.db.url });
    await db.connect();
    try {
      const stored = await db.query(
        "select encode(content, 'escape') as text from loadunits.icon where media_type = 'image/svg+xml'",
      );
      expect(stored.rows.map((r: { text: string }) => r.text)).toEqual([inert]);
    } finally {
      await db.end();
    }
  });

  it("load unit types (deprecated): create with an icon, bare-array list, ModifyLoadUnitType, Deprecation header", async () => {
    const created = await api("POST", "/api/loadunittypes", {
      nameLocalized: { en_US: "Bag" },
      priority: 5,
      icon: { name: "bag.png", content: PNG.toString("base64") },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("deprecation")).toBeTruthy();
    conformant("LoadUnitType", created.body);
    expect(created.body.iconUrl).toMatch(/^\/api\/icons\//);
    const list = await api("GET", "/api/loadunittypes");
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((t: { id: string }) => t.id)).toContain(created.body.id);
    const patched = await api("PATCH", `/api/loadunittypes/${created.body.id}?locale=de_DE`, {
      version: 1,
      actions: [
        { action: "ModifyLoadUnitType", nameLocalized: { de_DE: "Tüte", en_US: "Bag" }, weightLimitInG: 900 },
      ],
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ version: 2, name: "Tüte", weightLimitInG: 900 });
    const stale = await api("PATCH", `/api/loadunittypes/${created.body.id}`, {
      version: 1,
      actions: [{ action: "ModifyLoadUnitType", priority: 1 }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    expect((await api("GET", `/api/loadunittypes/${created.body.id}?locale=de_DE`)).body.name).toBe("Tüte");
    expect((await api("GET", `/api/loadunittypes/${UNKNOWN}`)).status).toBe(404);
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id], loadUnitTypeRef: created.body.id }]);
    expect(unit).toMatchObject({
      name: "Bag",
      loadUnitTypeRef: created.body.id,
      iconUrl: created.body.iconUrl,
    });
    // An OCT id is not a load unit type.
    const oct = await api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "X" },
      allowedOperativeTypes: ["PICKING"],
    });
    expect((await api("GET", `/api/loadunittypes/${oct.body.id}`)).status).toBe(404);
  });
});

describe("tenancy and events", () => {
  it("tenant B can read, list, change, act on and delete nothing of tenant A's", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id], loadUnitLineItems: [lineItem] }]);
    const stack = (await api("POST", "/api/stacks", { facilityRefs: [], processRefs: [] })).body;
    const oct = (
      await api("POST", "/api/operativecontainertypes", {
        nameLocalized: { en_US: "A" },
        allowedOperativeTypes: ["PICKING"],
      })
    ).body;
    const id = unit!.id;
    expect((await other("GET", `/api/loadunits/${id}`)).status).toBe(404);
    expect((await other("GET", `/api/loadunits?pickJobRef=${job.id}`)).body).toEqual({
      loadUnits: [],
      total: 0,
    });
    expect((await other("GET", `/api/pickjobs/${job.id}/loadunits`)).status).toBe(404);
    expect((await other("POST", `/api/pickjobs/${job.id}/loadunits`, { codes: ["x"] })).status).toBe(404);
    expect((await other("PATCH", `/api/loadunits/${id}`, { ...unit, version: 1, codes: [] })).status).toBe(
      404,
    );
    // The path's load unit before the body's references: A's stack and type are not the other's.
    for (const ref of [
      { stackRef: stack.id },
      { operativeContainerTypeRef: oct.id },
      { stackRef: UNKNOWN },
    ]) {
      const res = await other("PATCH", `/api/loadunits/${id}`, { ...unit, version: 1, ...ref });
      expect(res.status, `${JSON.stringify(ref)}: ${res.text}`).toBe(404);
    }
    expect(
      (
        await other("POST", `/api/loadunits/${id}/actions`, {
          name: "UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES",
          version: 1,
          recordableAttributes: [],
        })
      ).status,
    ).toBe(404);
    expect((await other("DELETE", `/api/loadunits/${id}`)).status).toBe(404);
    expect((await other("DELETE", `/api/loadunits?id=${id}`)).status).toBe(404);
    expect((await other("DELETE", `/api/loadunits?pickJobRef=${job.id}`)).status).toBe(404);
    expect((await other("GET", `/api/loadunits/${id}/stack`)).status).toBe(404);
    expect((await other("GET", `/api/stacks/${stack.id}`)).status).toBe(404);
    expect((await other("GET", "/api/stacks")).body.stacks.map((s: { id: string }) => s.id)).not.toContain(
      stack.id,
    );
    expect((await other("GET", `/api/operativecontainertypes/${oct.id}`)).status).toBe(404);
    expect((await other("PATCH", `/api/operativecontainertypes/${oct.id}`, { version: 1 })).status).toBe(404);
    expect(
      (await other("GET", "/api/operativecontainertypes")).body.operativeContainerTypes.map(
        (t: { id: string }) => t.id,
      ),
    ).not.toContain(oct.id);
    expect((await api("GET", `/api/loadunits/${id}`)).body).toEqual(unit);
  });

  it("permissions: reading needs LOADUNIT_READ, stacks STACKS_*, types CONFIG_* / LOADUNITTYPE_*", async () => {
    const reader = sys.as(await sys.token("acme", { roles: [], permissions: ["LOADUNIT_READ"] }));
    expect((await reader("GET", "/api/loadunits")).status).toBe(200);
    expect((await reader("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [UNKNOWN] }] })).status).toBe(
      403,
    );
    expect((await reader("GET", "/api/stacks")).status).toBe(403);
    expect((await reader("GET", "/api/operativecontainertypes")).status).toBe(403);
    expect((await reader("GET", "/api/loadunittypes")).status).toBe(403);
  });

  it("load unit events reach the audit log with the entity's trail", async () => {
    const job = await pickJob();
    const [unit] = await createUnits([{ pickJobRefs: [job.id] }]);
    await api("DELETE", `/api/loadunits/${unit!.id}`);
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: unit!.id } },
        sort: [{ created: "ASC" }],
      });
      expect(res.status, res.text).toBe(200);
      return res.body.audits.length >= 2 ? res.body.audits : undefined;
    });
    expect(audits.map((a: any) => [a.operation.name, a.entityType, a.entityVersion])).toEqual([
      ["LOAD_UNIT_CREATED", "LOAD_UNIT", 1],
      ["LOAD_UNIT_OBSOLETED", "LOAD_UNIT", 2],
    ]);
  });
});
