/**
 * The tenant's picking configuration through the gateway (GET/PATCH /api/configurations/picking):
 * the defaults before any write, versioned patches (201 on the first, 200 after, 409 when stale),
 * closed validated bodies, tenancy, permissions, events in the audit log, every answer checked
 * against the reference's PickingConfigurations, and the sub-configurations that take effect shown
 * changing what pick jobs and pick runs do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type ApiResponse, eventually, type System, startSystem } from "../../support/system.ts";

if (referenceMissing) console.warn(referenceMissing);

const PATH = "/api/configurations/picking";
let sys: System;
let seq = 0;

beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.close());

/** A fresh tenant's client (ADMIN unless said otherwise). */
async function tenant(opts: { user?: string } = {}) {
  const name = `pickcfg-${++seq}-${Date.now().toString(36)}`;
  return { name, api: sys.as(await sys.token(name, opts)) };
}
type Api = Awaited<ReturnType<typeof tenant>>["api"];

/** A configuration answer: `status`, and the reference's PickingConfigurations. */
function config(res: ApiResponse, status = 200) {
  expect(res.status, res.text).toBe(status);
  if (!referenceMissing) {
    expect(referenceErrors("PickingConfigurations", res.body), JSON.stringify(res.body)).toEqual([]);
  }
  return res.body;
}
function error(res: ApiResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(Array.isArray(res.body), res.text).toBe(true);
  expect(res.body[0]).toMatchObject({ code });
  return res.body[0] as { summary: string; description?: string; requestVersion?: number; version?: number };
}
async function patch(api: Api, body: Record<string, unknown>) {
  const version = (await api("GET", PATH)).body.version;
  return config(await api("PATCH", PATH, { version, ...body }), version === 0 ? 201 : 200);
}

describe("GET and PATCH /api/configurations/picking", () => {
  it("before any write: the defaults, version 0, nothing stored", async () => {
    const { api } = await tenant();
    const got = config(await api("GET", PATH));
    expect(got).toEqual({
      version: 0,
      backofficePickingConfiguration: { active: false },
      batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 100 },
      domainStatusConfiguration: { mapAbortedToFinished: false },
      loadUnitAssignmentConfiguration: { pickJob: "INACTIVE", pickRun: "INACTIVE" },
      multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: 100 },
      pickingShortPickConfiguration: { confirmationOnShortPick: false, shortPickReasons: [] },
      restartPickJobConfiguration: { active: true },
      scanCodeValidationConfiguration: { pickingScanCodeValidationType: "NO_VALIDATION" },
      stockUpdateConfiguration: { active: false },
      takeOverPickJobConfiguration: { active: true },
      takeOverPickRunConfiguration: { active: true },
    });
  });

  it("PATCH on version 0 creates it (201, version 1); later ones change it (200, +1), keeping what they do not name", async () => {
    const { api } = await tenant();
    const first = config(
      await api("PATCH", PATH, {
        version: 0,
        restartPickJobConfiguration: { active: false },
        loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" },
        pickingShortPickConfiguration: {
          confirmationOnShortPick: true,
          shortPickReasons: [{ reasonLocalized: { de_DE: "Kaputt", en_US: "Broken" }, active: true }],
        },
      }),
      201,
    );
    expect(first).toMatchObject({
      version: 1,
      restartPickJobConfiguration: { active: false },
      loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" },
      pickingShortPickConfiguration: {
        confirmationOnShortPick: true,
        shortPickReasons: [
          { reasonLocalized: { de_DE: "Kaputt", en_US: "Broken" }, active: true, reason: "Broken" },
        ],
      },
      takeOverPickRunConfiguration: { active: true },
    });
    expect(first.created).toBe(first.lastModified);
    expect(config(await api("GET", PATH))).toEqual(first);

    // A client may send back what it read: created / lastModified are ignored.
    const second = config(
      await api("PATCH", PATH, { ...first, restartPickJobConfiguration: { active: true } }),
      200,
    );
    expect(second).toMatchObject({
      version: 2,
      created: first.created,
      restartPickJobConfiguration: { active: true },
      loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" },
    });
    expect(config(await api("GET", PATH))).toEqual(second);
  });

  it("a stale version: 409 naming both versions, nothing changed", async () => {
    const { api } = await tenant();
    const before = error(await api("PATCH", PATH, { version: 3 }), 409, "VERSION_CONFLICT");
    expect(before).toMatchObject({ requestVersion: 3, version: 0 });
    await patch(api, { stockUpdateConfiguration: { active: true } });
    const stale = error(
      await api("PATCH", PATH, { version: 0, stockUpdateConfiguration: { active: false } }),
      409,
      "VERSION_CONFLICT",
    );
    expect(stale).toMatchObject({ requestVersion: 0, version: 1 });
    expect(config(await api("GET", PATH))).toMatchObject({
      version: 1,
      stockUpdateConfiguration: { active: true },
    });
  });

  it.each([
    ["no version", { restartPickJobConfiguration: { active: true } }, "version"],
    ["a version of the wrong type", { version: "0" }, "version"],
    [
      "an unknown sub-configuration",
      { version: 0, restartConfiguration: { active: true } },
      "restartConfiguration",
    ],
    [
      "an unknown field of a sub-configuration",
      { version: 0, restartPickJobConfiguration: { active: true, when: 1 } },
      "when",
    ],
    [
      "a wrong type",
      { version: 0, restartPickJobConfiguration: { active: "yes" } },
      "/restartPickJobConfiguration/active",
    ],
    ["a missing required field", { version: 0, takeOverPickRunConfiguration: {} }, "active"],
    [
      "an unknown enum value",
      { version: 0, scanCodeValidationConfiguration: { pickingScanCodeValidationType: "SOMETIMES" } },
      "/scanCodeValidationConfiguration/pickingScanCodeValidationType",
    ],
    [
      "more than 100 jobs per batch",
      { version: 0, batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 101 } },
      "/batchPickingConfiguration/maxAmountOfPickJobsForBatchPick",
    ],
    [
      "no jobs per multi-order run",
      { version: 0, multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: 0 } },
      "/multiOrderPickingConfiguration/maxAmountOfPickJobsForMultiOrderPick",
    ],
    [
      "a short-pick reason without text",
      {
        version: 0,
        pickingShortPickConfiguration: {
          confirmationOnShortPick: false,
          shortPickReasons: [{ active: true }],
        },
      },
      "reasonLocalized",
    ],
    [
      "null for a sub-configuration",
      { version: 0, stockUpdateConfiguration: null },
      "/stockUpdateConfiguration",
    ],
  ])("%s: 400 naming the field, nothing stored", async (_name, body, field) => {
    const { api } = await tenant();
    const e = error(await api("PATCH", PATH, body), 400, "VALIDATION_FAILED");
    expect(`${e.summary} ${e.description}`).toContain(field);
    expect((await api("GET", PATH)).body.version).toBe(0);
  });

  it("is the tenant's own: B sees its defaults after A's change, and B's change leaves A's alone", async () => {
    const a = await tenant();
    const b = await tenant();
    await patch(a.api, { restartPickJobConfiguration: { active: false } });
    expect(config(await b.api("GET", PATH))).toMatchObject({
      version: 0,
      restartPickJobConfiguration: { active: true },
    });
    error(await b.api("PATCH", PATH, { version: 1 }), 409, "VERSION_CONFLICT");
    await patch(b.api, { takeOverPickRunConfiguration: { active: false } });
    expect(config(await a.api("GET", PATH))).toMatchObject({
      version: 1,
      restartPickJobConfiguration: { active: false },
      takeOverPickRunConfiguration: { active: true },
    });
  });

  it("needs CONFIG_READ to read and CONFIG_WRITE to change (403 before anything happens)", async () => {
    const name = `pickcfg-perm-${Date.now().toString(36)}`;
    const as = async (opts: { roles?: string[]; permissions?: string[] }) =>
      sys.as(await sys.token(name, opts));
    const picker = await as({ roles: ["PICKER"] });
    error(await picker("GET", PATH), 403, "PERMISSION_DENIED");
    error(await picker("PATCH", PATH, { version: 0 }), 403, "PERMISSION_DENIED");
    const reader = await as({ permissions: ["CONFIG_READ"] });
    config(await reader("GET", PATH));
    error(await reader("PATCH", PATH, { version: 0 }), 403, "PERMISSION_DENIED");
    config(await (await as({ roles: ["VIEWER"] }))("GET", PATH));
    const manager = await as({ roles: ["MASTER_DATA_MANAGER"] });
    config(await manager("PATCH", PATH, { version: 0, stockUpdateConfiguration: { active: true } }), 201);
    expect((await reader("GET", PATH)).body.version).toBe(1);
    error(await sys.api("GET", PATH), 401, "MISSING_TOKEN");
  });

  it("each change reaches the audit log (PICKING_CONFIGURATION_CREATED, _UPDATED)", async () => {
    const { name, api } = await tenant();
    await patch(api, { stockUpdateConfiguration: { active: true } });
    await patch(api, { stockUpdateConfiguration: { active: false } });
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: name } },
        sort: [{ created: "ASC" }],
        size: 10,
      });
      expect(res.status, res.text).toBe(200);
      return res.body.audits.length >= 2 ? (res.body.audits as any[]) : undefined;
    });
    expect(audits.map((a) => [a.entityType, a.entityVersion]).sort()).toEqual([
      ["PICKING_CONFIGURATION", 1],
      ["PICKING_CONFIGURATION", 2],
    ]);
  });
});

describe("the sub-configurations that take effect", () => {
  /** A tenant with a facility, its pick job factory and a second user. */
  async function floor() {
    const t = await tenant({ user: "ada" });
    const grace = sys.as(await sys.token(t.name, { user: "grace" }));
    const facility = (await t.api("POST", "/api/facilities", { name: "Store", address: facilityAddress }))
      .body;
    expect(facility.id).toBeTruthy();
    const job = async () => {
      const res = await t.api("POST", "/api/pickjobs", {
        facilityRef: facility.id,
        orderDate: "2026-01-01T10:00:00.000Z",
        pickLineItems: [
          { article: { tenantArticleId: "A", title: "Apple" }, quantity: 2, scannableCodes: ["4011"] },
        ],
      });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    return { ...t, grace, facility, job };
  }
  const act = (api: Api, id: string, body: Record<string, unknown>) =>
    api("POST", `/api/pickjobs/${id}/actions`, body);

  it("loadUnitAssignmentConfiguration.pickJob: AT_START needs a load unit to start, AT_END and DURING_PICKING to close (422 LOAD_UNIT_REQUIRED); a deleted one does not count; INACTIVE: as before", async () => {
    const { api, job } = await floor();
    const assign = (pickJob: string) =>
      patch(api, { loadUnitAssignmentConfiguration: { pickJob, pickRun: "INACTIVE" } });
    const units = (id: string) => api("GET", `/api/pickjobs/${id}/loadunits`);
    const addUnit = async (id: string, code: string) => {
      const res = await api("POST", `/api/pickjobs/${id}/loadunits`, { codes: [code] });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };

    await assign("AT_START");
    const a = await job();
    const refused = error(await act(api, a.id, { name: "START", version: 1 }), 422, "LOAD_UNIT_REQUIRED");
    expect(refused.description).toContain("loadUnitAssignmentConfiguration.pickJob AT_START");
    expect((await api("GET", `/api/pickjobs/${a.id}`)).body).toMatchObject({ status: "OPEN", version: 1 });
    // The deprecated PATCH's start follows it too.
    error(
      await api("PATCH", `/api/pickjobs/${a.id}`, {
        version: 1,
        actions: [{ action: "ModifyPickJob", status: "IN_PROGRESS" }],
      }),
      422,
      "LOAD_UNIT_REQUIRED",
    );
    await addUnit(a.id, "LU-A");
    const started = await act(api, a.id, { name: "START", version: 1 });
    expect(started.status, started.text).toBe(200);
    expect(started.body.status).toBe("IN_PROGRESS");
    // AT_START asks nothing at the end.
    const b = await job();
    const picked = await act(api, b.id, {
      name: "PICK",
      version: 1,
      lineItems: [{ id: b.pickLineItems[0].id, picked: 2 }],
    });
    expect(picked.status, picked.text).toBe(200);
    expect((await act(api, b.id, { name: "CLOSE", version: 2 })).status).toBe(200);

    for (const type of ["AT_END", "DURING_PICKING"]) {
      await assign(type);
      const c = await job();
      // Picking may start without one.
      expect((await act(api, c.id, { name: "START", version: 1 })).status).toBe(200);
      const line = c.pickLineItems[0].id;
      expect(
        (await act(api, c.id, { name: "PICK", version: 2, lineItems: [{ id: line, picked: 2 }] })).status,
      ).toBe(200);
      const closeRefused = error(
        await act(api, c.id, { name: "CLOSE", version: 3 }),
        422,
        "LOAD_UNIT_REQUIRED",
      );
      expect(closeRefused.description).toContain(`loadUnitAssignmentConfiguration.pickJob ${type}`);
      error(
        await api("PATCH", `/api/pickjobs/${c.id}`, {
          version: 3,
          actions: [{ action: "ModifyPickJob", status: "CLOSED" }],
        }),
        422,
        "LOAD_UNIT_REQUIRED",
      );
      // A deleted (OBSOLETE) load unit is no load unit.
      const gone = await addUnit(c.id, `LU-GONE-${type}`);
      expect((await api("DELETE", `/api/loadunits/${gone.id}`)).status).toBeLessThan(300);
      error(await act(api, c.id, { name: "CLOSE", version: 3 }), 422, "LOAD_UNIT_REQUIRED");
      await addUnit(c.id, `LU-${type}`);
      expect((await units(c.id)).body.total).toBe(2);
      const closed = await act(api, c.id, { name: "CLOSE", version: 3 });
      expect(closed.status, closed.text).toBe(200);
      expect(closed.body.status).toBe("CLOSED");
    }

    await assign("INACTIVE");
    const d = await job();
    expect((await act(api, d.id, { name: "START", version: 1 })).status).toBe(200);
    expect((await act(api, d.id, { name: "CLOSE", version: 2 })).status).toBe(200);
  });

  it("loadUnitAssignmentConfiguration.pickRun: a run's START needs a load unit on every job it starts (AT_START), its FINISH on every job (AT_END); the single-order setting does not judge runs", async () => {
    const { api, facility, job } = await floor();
    const runOf = async () => {
      const res = await api("POST", "/api/pickruns", {
        facilityRef: facility.id,
        pickJobRefs: [(await job()).id, (await job()).id],
      });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const runAct = (id: string, body: Record<string, unknown>) =>
      api("POST", `/api/pickruns/${id}/actions`, body);
    const addUnit = async (id: string) =>
      expect((await api("POST", `/api/pickjobs/${id}/loadunits`, { codes: [`LU-${id}`] })).status).toBe(201);

    await patch(api, { loadUnitAssignmentConfiguration: { pickJob: "INACTIVE", pickRun: "AT_START" } });
    const r = await runOf();
    await addUnit(r.pickJobRefs[0]);
    const refused = error(await runAct(r.id, { name: "START", version: 1 }), 422, "LOAD_UNIT_REQUIRED");
    expect(refused.description).toContain(r.pickJobRefs[1]);
    expect((await api("GET", `/api/pickruns/${r.id}`)).body).toMatchObject({ status: "OPEN", version: 1 });
    await addUnit(r.pickJobRefs[1]);
    const started = await runAct(r.id, { name: "START", version: 1 });
    expect(started.status, started.text).toBe(200);
    expect((await api("GET", `/api/pickjobs/${r.pickJobRefs[1]}`)).body.status).toBe("IN_PROGRESS");

    await patch(api, { loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" } });
    const e = await runOf();
    // The jobs of a run follow the run's setting: no load unit needed to start them.
    const startedE = await runAct(e.id, { name: "START", version: 1 });
    expect(startedE.status, startedE.text).toBe(200);
    error(await runAct(e.id, { name: "FINISH", version: 2 }), 422, "LOAD_UNIT_REQUIRED");
    for (const ref of e.pickJobRefs) await addUnit(ref);
    const finished = await runAct(e.id, { name: "FINISH", version: 2 });
    expect(finished.status, finished.text).toBe(200);
    expect(finished.body.status).toBe("CLOSED");
  });

  it("loadUnitAssignmentConfiguration: with the loadunits service down, a START that needs its answer is 503, never let through; a CLOSE that needs none is unaffected", async () => {
    const { api, job } = await floor();
    await patch(api, { loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "INACTIVE" } });
    const a = await job();
    const b = await job();
    expect((await api("POST", `/api/pickjobs/${b.id}/loadunits`, { codes: ["LU-B"] })).status).toBe(201);
    expect((await act(api, b.id, { name: "START", version: 1 })).status).toBe(200);
    const line = b.pickLineItems[0].id;
    expect(
      (await act(api, b.id, { name: "PICK", version: 2, lineItems: [{ id: line, picked: 2 }] })).status,
    ).toBe(200);
    await sys.stopService("loadunits");
    try {
      const res = await act(api, a.id, { name: "START", version: 1 });
      expect(res.status, res.text).toBe(503);
      expect(res.body[0]).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      expect((await api("GET", `/api/pickjobs/${a.id}`)).body).toMatchObject({ status: "OPEN", version: 1 });
      // AT_START asks nothing when closing: no call, no failure.
      const closed = await act(api, b.id, { name: "CLOSE", version: 3 });
      expect(closed.status, closed.text).toBe(200);
    } finally {
      await sys.restartService("loadunits");
    }
  });

  it("restartPickJobConfiguration: RESTART is 422 while switched off, and works again once on", async () => {
    const { api, job } = await floor();
    const j = await job();
    expect((await act(api, j.id, { name: "START", version: 1 })).status).toBe(200);
    expect((await act(api, j.id, { name: "PAUSE", version: 2 })).status).toBe(200);
    await patch(api, { restartPickJobConfiguration: { active: false } });
    error(await act(api, j.id, { name: "RESTART", version: 3 }), 422, "RESTART_PICK_JOB_DISABLED");
    expect((await api("GET", `/api/pickjobs/${j.id}`)).body).toMatchObject({ status: "PAUSED", version: 3 });
    await patch(api, { restartPickJobConfiguration: { active: true } });
    const restarted = await act(api, j.id, { name: "RESTART", version: 3 });
    expect(restarted.status, restarted.text).toBe(200);
    expect(restarted.body.status).toBe("IN_PROGRESS");
  });

  it("takeOverPickRunConfiguration: another user's TAKE_OVER_PICK_RUN is 422 while switched off", async () => {
    const { api, grace, facility, job } = await floor();
    const run = (
      await api("POST", "/api/pickruns", { facilityRef: facility.id, pickJobRefs: [(await job()).id] })
    ).body;
    expect(run.version).toBe(1);
    await patch(api, { takeOverPickRunConfiguration: { active: false } });
    error(
      await grace("POST", `/api/pickruns/${run.id}/actions`, { name: "TAKE_OVER_PICK_RUN", version: 1 }),
      422,
      "TAKE_OVER_PICK_RUN_DISABLED",
    );
    await patch(api, { takeOverPickRunConfiguration: { active: true } });
    const taken = await grace("POST", `/api/pickruns/${run.id}/actions`, {
      name: "TAKE_OVER_PICK_RUN",
      version: 1,
    });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.editor).toMatchObject({ username: "grace" });
  });

  it("batch / multiOrder picking configuration: a run over more jobs than its type allows is 400 naming pickJobRefs", async () => {
    const { api, facility, job } = await floor();
    await patch(api, { batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 1 } });
    const refs = [(await job()).id, (await job()).id];
    const batch = error(
      await api("POST", "/api/pickruns", {
        facilityRef: facility.id,
        pickJobRefs: refs,
        pickRunType: "batch",
      }),
      400,
      "LIMIT_EXCEEDED",
    );
    expect(JSON.stringify(batch)).toContain("pickJobRefs");
    const multi = await api("POST", "/api/pickruns", {
      facilityRef: facility.id,
      pickJobRefs: refs,
      pickRunType: "multiOrder",
    });
    expect(multi.status, multi.text).toBe(201);
    expect(multi.body.pickJobRefs).toEqual(refs);
  });

  it("scanCodeValidationConfiguration CODE_MUST_BE_KNOWN: an unknown scanned code is 422, a known one is recorded", async () => {
    const { api, job } = await floor();
    const j = await job();
    const line = j.pickLineItems[0].id;
    const scan = (code: string, version: number) =>
      act(api, j.id, {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version,
        pickJobLineItemUpdates: [{ id: line, picked: 1, scannedCodes: [{ code, quantity: 1 }] }],
      });
    expect((await scan("9999", 1)).status).toBe(200); // NO_VALIDATION by default
    await patch(api, {
      scanCodeValidationConfiguration: { pickingScanCodeValidationType: "CODE_MUST_BE_KNOWN" },
    });
    const refused = error(await scan("9998", 2), 422, "SCAN_CODE_UNKNOWN");
    expect(refused.description).toContain("9998");
    const known = await scan("4011", 2);
    expect(known.status, known.text).toBe(200);
    expect(known.body.pickLineItems[0].scannedCodes).toEqual([{ code: "4011", quantity: 1 }]);
  });

  it("takeOverPickJobConfiguration: while off, another user's take-over (ModifyPickJobLastEditor, or picking on a job in progress) is 422; supervisory actions stay", async () => {
    const { api, grace, job } = await floor();
    const j = await job();
    const line = j.pickLineItems[0].id;
    expect((await act(api, j.id, { name: "START", version: 1 })).status).toBe(200); // ada edits it
    const takeOver = (who: Api, version: number) =>
      who("PATCH", `/api/pickjobs/${j.id}`, { version, actions: [{ action: "ModifyPickJobLastEditor" }] });
    await patch(api, { takeOverPickJobConfiguration: { active: false } });
    const refused = error(await takeOver(grace, 2), 422, "TAKE_OVER_PICK_JOB_DISABLED");
    expect(refused.description).toContain("takeOverPickJobConfiguration");
    error(
      await act(grace, j.id, {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version: 2,
        pickJobLineItemUpdates: [{ id: line, picked: 1 }],
      }),
      422,
      "TAKE_OVER_PICK_JOB_DISABLED",
    );
    error(
      await act(grace, j.id, { name: "PICK", version: 2, lineItems: [{ id: line, picked: 2 }] }),
      422,
      "TAKE_OVER_PICK_JOB_DISABLED",
    );
    error(
      await grace("PATCH", `/api/pickjobs/${j.id}`, {
        version: 2,
        actions: [{ action: "ModifyPickLineItem", id: line, picked: 1 }],
      }),
      422,
      "TAKE_OVER_PICK_JOB_DISABLED",
    );
    expect((await api("GET", `/api/pickjobs/${j.id}`)).body).toMatchObject({
      version: 2,
      editor: { username: "ada" },
      pickLineItems: [{ picked: 0 }],
    });
    // The editor herself goes on picking.
    const own = await act(api, j.id, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 2,
      pickJobLineItemUpdates: [{ id: line, picked: 1 }],
    });
    expect(own.status, own.text).toBe(200);
    await patch(api, { takeOverPickJobConfiguration: { active: true } });
    const taken = await takeOver(grace, 3);
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.editor).toMatchObject({ username: "grace" });
    // Off again: ada's PAUSE of grace's job is supervisory, no take-over.
    await patch(api, { takeOverPickJobConfiguration: { active: false } });
    const paused = await act(api, j.id, { name: "PAUSE", version: 4 });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.status).toBe("PAUSED");
  });

  it("pickingShortPickConfiguration.shortPickReasons: once configured, a line's short-pick reason must be an active one (422 naming the field), on pick jobs and pick runs", async () => {
    const { api, facility, job } = await floor();
    const j = await job();
    const line = j.pickLineItems[0].id;
    const reason = (reasonLocalized: Record<string, string>, version: number) =>
      act(api, j.id, {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version,
        pickJobLineItemUpdates: [{ id: line, picked: 1, shortPickReason: { reasonLocalized } }],
      });
    expect((await reason({ en_US: "Anything" }, 1)).status).toBe(200); // none configured: any reason
    await patch(api, {
      pickingShortPickConfiguration: {
        confirmationOnShortPick: true,
        shortPickReasons: [
          { reasonLocalized: { en_US: "Broken", de_DE: "Kaputt" }, active: true },
          { reasonLocalized: { en_US: "Gone" }, active: false },
        ],
      },
    });
    for (const unknown of [{ en_US: "Stolen" }, { en_US: "Gone" }]) {
      const e = error(await reason(unknown, 2), 422, "SHORT_PICK_REASON_UNKNOWN");
      expect(e.description).toContain("/pickJobLineItemUpdates/0/shortPickReason/reasonLocalized");
    }
    const legacy = error(
      await api("PATCH", `/api/pickjobs/${j.id}`, {
        version: 2,
        actions: [{ action: "ModifyPickLineItem", id: line, shortPickReasonLocalized: { en_US: "Lost" } }],
      }),
      422,
      "SHORT_PICK_REASON_UNKNOWN",
    );
    expect(legacy.description).toContain("/actions/0/shortPickReasonLocalized");
    const known = await reason({ de_DE: "Kaputt" }, 2);
    expect(known.status, known.text).toBe(200);
    expect(known.body.pickLineItems[0].shortPickReason).toEqual({
      reasonLocalized: { de_DE: "Kaputt" },
      reason: "Kaputt",
    });

    const run = (
      await api("POST", "/api/pickruns", { facilityRef: facility.id, pickJobRefs: [(await job()).id] })
    ).body;
    const runLine = run.pickLineItems[0].id;
    const modifyRun = (reasonLocalized: Record<string, string>) =>
      api("PATCH", `/api/pickruns/${run.id}`, {
        version: run.version,
        actions: [
          { action: "ModifyPickRunLineItem", id: runLine, picked: 1, shortPickReason: { reasonLocalized } },
        ],
      });
    const runRefused = error(await modifyRun({ en_US: "Stolen" }), 422, "SHORT_PICK_REASON_UNKNOWN");
    expect(runRefused.description).toContain("/actions/0/shortPickReason/reasonLocalized");
    const runKnown = await modifyRun({ en_US: "Broken" });
    expect(runKnown.status, runKnown.text).toBe(200);
    expect(runKnown.body.pickLineItems[0].shortPickReason).toMatchObject({ reason: "Broken" });
  });

  it("scanningConfiguration.scanningType: picks need scans (MUST_SCAN_EACH: as many, MUST_SCAN_FIRST: one) unless the caller has an overriding role", async () => {
    const { api, name, job } = await floor();
    const picker = sys.as(await sys.token(name, { user: "pia", roles: ["PICKER"] }));
    const supervisor = sys.as(await sys.token(name, { user: "sam", roles: ["PICKER", "SUPERVISOR"] }));
    const j = await job();
    const line = j.pickLineItems[0].id;
    const modify = (who: Api, version: number, update: Record<string, unknown>) =>
      act(who, j.id, {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version,
        pickJobLineItemUpdates: [{ id: line, ...update }],
      });
    expect((await modify(picker, 1, { picked: 1 })).status).toBe(200); // SCAN_NOT_REQUIRED by default
    await patch(api, {
      scanningConfiguration: {
        scanningType: "MUST_SCAN_EACH",
        rolesWithOverwritingScanningPermission: ["SUPERVISOR"],
      },
    });
    const each = error(
      await modify(picker, 2, { picked: 2, scannedCodes: [{ code: "4011", quantity: 1 }] }),
      422,
      "SCAN_REQUIRED",
    );
    expect(each.description).toContain("/pickJobLineItemUpdates/0/picked");
    const scanned = await modify(picker, 2, { picked: 2, scannedCodes: [{ code: "4011", quantity: 2 }] });
    expect(scanned.status, scanned.text).toBe(200);
    const unscanned = await modify(supervisor, 3, { picked: 2, scannedCodes: [] });
    expect(unscanned.status, unscanned.text).toBe(200);
    expect(unscanned.body.pickLineItems[0]).toMatchObject({ picked: 2, scannedCodes: [] });

    await patch(api, { scanningConfiguration: { scanningType: "MUST_SCAN_FIRST" } });
    const second = await job();
    const first = error(
      await act(picker, second.id, {
        name: "PICK",
        version: 1,
        lineItems: [{ id: second.pickLineItems[0].id, picked: 2 }],
      }),
      422,
      "SCAN_REQUIRED",
    );
    expect(first.description).toContain("/lineItems/0/picked");
    const picked = await act(picker, second.id, {
      name: "PICK",
      version: 1,
      lineItems: [
        { id: second.pickLineItems[0].id, picked: 2, scannedCodes: [{ code: "4011", quantity: 1 }] },
      ],
    });
    expect(picked.status, picked.text).toBe(200);
    expect(picked.body.status).toBe("PICKED");
  });
});
