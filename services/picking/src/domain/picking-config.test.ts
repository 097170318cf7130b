import { LOAD_UNIT_ASSIGNMENT_TYPES } from "@fop/contracts/picking";
import { describe, expect, it } from "vitest";
import { applyPickJobAction } from "./lifecycle.ts";
import { applyPickJobPatch, patchPickingMoments } from "./patch.ts";
import {
  DEFAULT_PICKING_CONFIGURATION,
  DEFAULT_PICKING_RULES,
  defaultPickingConfiguration,
  isKnownShortPickReason,
  needsLoadUnitAnswer,
  type PickingConfiguration,
  patchPickingConfiguration,
  pickingRules,
  pickRunJobRules,
} from "./picking-config.ts";
import { createPickJob } from "./pickjob.ts";
import { applyPickRunAction, applyPickRunPatch, createPickRun, pickRunMoments } from "./pickrun.ts";
import type { ActionContext, JsonObject, PickJob, PickJobStatus } from "./types.ts";

const NOW = new Date("2026-06-01T10:00:00.000Z");
const LATER = new Date("2026-06-01T11:00:00.000Z");

describe("patchPickingConfiguration", () => {
  it("creates from the defaults on version 0, keeping the sub-configurations not named", () => {
    const c = patchPickingConfiguration(
      undefined,
      { version: 0, restartPickJobConfiguration: { active: false } },
      NOW,
    );
    expect(c).toEqual({
      ...DEFAULT_PICKING_CONFIGURATION,
      version: 1,
      created: NOW.toISOString(),
      lastModified: NOW.toISOString(),
      restartPickJobConfiguration: { active: false },
    });
  });

  it("replaces each named sub-configuration as a whole and keeps created", () => {
    const first = patchPickingConfiguration(
      undefined,
      {
        version: 0,
        scanningConfiguration: {
          scanningType: "MUST_SCAN_EACH",
          rolesWithOverwritingScanningPermission: ["SUPERVISOR"],
        },
      },
      NOW,
    );
    const second = patchPickingConfiguration(
      first,
      { version: 1, scanningConfiguration: { scanningType: "SCAN_NOT_REQUIRED" } },
      LATER,
    );
    expect(second.version).toBe(2);
    expect(second.created).toBe(NOW.toISOString());
    expect(second.lastModified).toBe(LATER.toISOString());
    expect(second.scanningConfiguration).toEqual({ scanningType: "SCAN_NOT_REQUIRED" });
    expect(first.scanningConfiguration?.scanningType).toBe("MUST_SCAN_EACH"); // input not mutated
  });

  it("gives short-pick reasons their reason text (en_US, else the first locale)", () => {
    const c = patchPickingConfiguration(
      undefined,
      {
        version: 0,
        pickingShortPickConfiguration: {
          confirmationOnShortPick: true,
          shortPickReasons: [
            { reasonLocalized: { de_DE: "Kaputt", en_US: "Broken" }, active: true },
            { reasonLocalized: { de_DE: "Fehlt" }, active: false },
          ],
        },
      },
      NOW,
    );
    expect(c.pickingShortPickConfiguration).toEqual({
      confirmationOnShortPick: true,
      shortPickReasons: [
        { reasonLocalized: { de_DE: "Kaputt", en_US: "Broken" }, active: true, reason: "Broken" },
        { reasonLocalized: { de_DE: "Fehlt" }, active: false, reason: "Fehlt" },
      ],
    });
  });

  it.each([
    ["no version", undefined, {}, "VERSION_REQUIRED"],
    ["a stale version before the first write", undefined, { version: 1 }, "VERSION_CONFLICT"],
    ["a stale version", { ...defaultPickingConfiguration(), version: 3 }, { version: 2 }, "VERSION_CONFLICT"],
  ] as [string, PickingConfiguration | undefined, JsonObject, string][])(
    "refuses %s",
    (_name, current, body, code) => {
      expect(() => patchPickingConfiguration(current, body, NOW)).toThrow(expect.objectContaining({ code }));
    },
  );

  it("a version conflict names the requested and the current version", () => {
    expect(() => patchPickingConfiguration(undefined, { version: 7 }, NOW)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 7, version: 0 }),
    );
  });
});

describe("pickingRules", () => {
  it("the defaults keep the platform's behaviour", () => {
    expect(DEFAULT_PICKING_RULES).toEqual({
      restartPickJob: true,
      takeOverPickRun: true,
      maxPickJobsPerRun: { batch: 100, multiOrder: 100 },
      scanCodesMustBeKnown: false,
      takeOverPickJob: true,
      shortPickReasons: [],
      scanning: "SCAN_NOT_REQUIRED",
      scanningOverrideRoles: [],
      loadUnitAssignment: { pickJob: "INACTIVE", pickRun: "INACTIVE" },
    });
    expect(pickingRules({ version: 4 })).toEqual(DEFAULT_PICKING_RULES);
  });

  it.each([
    [{ restartPickJobConfiguration: { active: false } }, { restartPickJob: false }],
    [{ takeOverPickRunConfiguration: { active: false } }, { takeOverPickRun: false }],
    [
      { batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 3 } },
      { maxPickJobsPerRun: { batch: 3, multiOrder: 100 } },
    ],
    [
      { multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: 2 } },
      { maxPickJobsPerRun: { batch: 100, multiOrder: 2 } },
    ],
    [
      { scanCodeValidationConfiguration: { pickingScanCodeValidationType: "CODE_MUST_BE_KNOWN" } },
      { scanCodesMustBeKnown: true },
    ],
    [{ scanCodeValidationConfiguration: { pickingScanCodeValidationType: "NO_VALIDATION" } }, {}],
    [{ takeOverPickJobConfiguration: { active: false } }, { takeOverPickJob: false }],
    [
      {
        pickingShortPickConfiguration: {
          confirmationOnShortPick: true,
          shortPickReasons: [
            { reasonLocalized: { en_US: "Broken" }, active: true },
            { reasonLocalized: { en_US: "Gone" }, active: false },
            { reasonLocalized: { de_DE: "Fehlt" } },
          ],
        },
      },
      { shortPickReasons: [{ en_US: "Broken" }, { de_DE: "Fehlt" }] },
    ],
    [
      {
        scanningConfiguration: {
          scanningType: "MUST_SCAN_EACH",
          rolesWithOverwritingScanningPermission: ["SUPERVISOR"],
          scanningRule: { values: [] },
        },
      },
      { scanning: "MUST_SCAN_EACH", scanningOverrideRoles: ["SUPERVISOR"] },
    ],
    [{ scanningConfiguration: { scanningType: "MUST_SCAN_FIRST" } }, { scanning: "MUST_SCAN_FIRST" }],
    [{ scanningConfiguration: { scanningType: "SCAN_NOT_REQUIRED" } }, {}],
    [
      { loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" } },
      { loadUnitAssignment: { pickJob: "AT_START", pickRun: "AT_END" } },
    ],
    [
      { loadUnitAssignmentConfiguration: { pickJob: "DURING_PICKING", pickRun: "INACTIVE" } },
      { loadUnitAssignment: { pickJob: "DURING_PICKING", pickRun: "INACTIVE" } },
    ],
    [{ loadUnitAssignmentConfiguration: { pickJob: "SOMETIME", pickRun: 3 } }, {}],
    // stored only: no rule changes
    [{ pickingShortPickConfiguration: { confirmationOnShortPick: true } }, {}],
  ] as [JsonObject, object][])("%j -> %j", (subs, changed) => {
    expect(pickingRules({ version: 1, ...subs })).toEqual({ ...DEFAULT_PICKING_RULES, ...changed });
  });
});

// --- the rules in effect, through the domain functions ---------------------------------------------

let n = 0;
const ctx = (config: JsonObject = {}, username = "ada", roles: string[] = []): ActionContext => ({
  now: NOW,
  user: { userId: `u-${username}`, username },
  roles,
  newId: () => `id-${++n}`,
  rules: pickingRules({ version: 1, ...config }),
});

function job(id: string, status: PickJobStatus = "OPEN"): PickJob {
  const j = createPickJob(
    {
      facilityRef: "fac-1",
      orderDate: NOW.toISOString(),
      pickLineItems: [
        {
          article: { tenantArticleId: "A", title: "Apple" },
          quantity: 2,
          scannableCodes: ["4011"],
          allowedSubstitutes: [{ tenantArticleId: "A2", title: "Green apple", scannableCodes: ["4012"] }],
        },
      ],
    },
    { ...ctx(), id, shortId: id.toUpperCase() },
  );
  return { ...j, status };
}

describe("restartPickJobConfiguration", () => {
  it.each(["PAUSED", "PICKED", "CLOSED", "ABORTED"] as PickJobStatus[])(
    "RESTART from %s: allowed by default, 422 RESTART_PICK_JOB_DISABLED when switched off",
    (status) => {
      expect(applyPickJobAction(job("j", status), { name: "RESTART" }, ctx()).job.status).toBe("IN_PROGRESS");
      expect(() =>
        applyPickJobAction(
          job("j", status),
          { name: "RESTART" },
          ctx({ restartPickJobConfiguration: { active: false } }),
        ),
      ).toThrow(expect.objectContaining({ kind: "precondition", code: "RESTART_PICK_JOB_DISABLED" }));
    },
  );

  it.each([
    ["RestartPickJob", [{ action: "RestartPickJob" }]],
    ["ModifyPickJob status IN_PROGRESS from CLOSED", [{ action: "ModifyPickJob", status: "IN_PROGRESS" }]],
  ])("the deprecated PATCH's restart (%s) follows it too", (_name, actions) => {
    expect(applyPickJobPatch(job("j", "CLOSED"), actions, ctx()).job.status).toBe("IN_PROGRESS");
    expect(() =>
      applyPickJobPatch(job("j", "CLOSED"), actions, ctx({ restartPickJobConfiguration: { active: false } })),
    ).toThrow(expect.objectContaining({ code: "RESTART_PICK_JOB_DISABLED" }));
  });

  it("leaves START (resuming a paused job) and RESET alone", () => {
    const off = ctx({ restartPickJobConfiguration: { active: false } });
    expect(applyPickJobAction(job("j", "PAUSED"), { name: "START" }, off).job.status).toBe("IN_PROGRESS");
    expect(applyPickJobAction(job("j", "CLOSED"), { name: "RESET" }, off).job.status).toBe("OPEN");
  });
});

describe("scanCodeValidationConfiguration", () => {
  const pick = (code: string, config: JsonObject) => {
    const j = job("j", "IN_PROGRESS");
    const lineId = j.pickLineItems[0]!.id;
    return () =>
      applyPickJobAction(
        j,
        {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: lineId, picked: 1, scannedCodes: [{ code, quantity: 1 }] }],
        },
        ctx(config),
      );
  };
  const mustBeKnown = {
    scanCodeValidationConfiguration: { pickingScanCodeValidationType: "CODE_MUST_BE_KNOWN" },
  };

  it("NO_VALIDATION (the default) takes any code", () => {
    expect(pick("9999", {})().job.pickLineItems[0]!.scannedCodes).toEqual([{ code: "9999", quantity: 1 }]);
  });

  it.each(["4011", "4012"])("CODE_MUST_BE_KNOWN takes the line's or a substitute's code %s", (code) => {
    expect(pick(code, mustBeKnown)().job.pickLineItems[0]!.scannedCodes).toEqual([{ code, quantity: 1 }]);
  });

  it("CODE_MUST_BE_KNOWN refuses an unknown code (422 SCAN_CODE_UNKNOWN naming the field)", () => {
    expect(pick("9999", mustBeKnown)).toThrow(
      expect.objectContaining({
        kind: "precondition",
        code: "SCAN_CODE_UNKNOWN",
        message: expect.stringContaining("/pickJobLineItemUpdates/0/scannedCodes/0/code"),
      }),
    );
  });
});

describe("batch / multi-order picking configuration", () => {
  const jobs = [job("job-1"), job("job-2"), job("job-3")];
  const create = (pickRunType: string, config: JsonObject) => () =>
    createPickRun({ facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2", "job-3"], pickRunType }, jobs, {
      ...ctx(config),
      id: "run-1",
    });

  it.each([
    ["batch", { batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 2 } }],
    ["multiOrder", { multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: 2 } }],
  ])("a %s run over more jobs than configured is 400 naming /pickJobRefs", (type, config) => {
    expect(create(type, config)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "LIMIT_EXCEEDED", field: "/pickJobRefs" }),
    );
  });

  it.each([
    ["batch", { multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: 2 } }],
    ["multiOrder", { batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 2 } }],
    ["batch", { batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: 3 } }],
  ])("a %s run is judged by its own type's limit only (%j)", (type, config) => {
    expect(create(type, config)().run.pickJobRefs).toHaveLength(3);
  });
});

describe("takeOverPickRunConfiguration", () => {
  const run = () =>
    createPickRun({ facilityRef: "fac-1", pickJobRefs: ["job-1"] }, [job("job-1")], {
      ...ctx({}, "ada"),
      id: "run-1",
    }).run;

  it("another user takes a run over by default", () => {
    const r = applyPickRunAction(run(), { name: "TAKE_OVER_PICK_RUN", version: 1 }, ctx({}, "bob"));
    expect(r.run.editor).toEqual({ userId: "u-bob", username: "bob" });
  });

  it("switched off: 422 TAKE_OVER_PICK_RUN_DISABLED", () => {
    expect(() =>
      applyPickRunAction(
        run(),
        { name: "TAKE_OVER_PICK_RUN", version: 1 },
        ctx({ takeOverPickRunConfiguration: { active: false } }, "bob"),
      ),
    ).toThrow(expect.objectContaining({ kind: "precondition", code: "TAKE_OVER_PICK_RUN_DISABLED" }));
  });
});

describe("takeOverPickJobConfiguration", () => {
  const off = { takeOverPickJobConfiguration: { active: false } };
  /** A job ada started (she is its editor). */
  const started = (status: PickJobStatus = "IN_PROGRESS") => ({ ...job("j", "OPEN"), status });
  const lineOf = (j: PickJob) => j.pickLineItems[0]!.id;

  it("ModifyPickJobLastEditor: taken over by default, 422 TAKE_OVER_PICK_JOB_DISABLED when switched off", () => {
    const take = [{ action: "ModifyPickJobLastEditor" }];
    expect(applyPickJobPatch(started(), take, ctx({}, "bob")).job.editor).toEqual({
      userId: "u-bob",
      username: "bob",
    });
    expect(() => applyPickJobPatch(started(), take, ctx(off, "bob"))).toThrow(
      expect.objectContaining({ kind: "precondition", code: "TAKE_OVER_PICK_JOB_DISABLED" }),
    );
  });

  const pickerWork: [string, (j: PickJob, c: ActionContext) => PickJob][] = [
    [
      "PICK",
      (j, c) => applyPickJobAction(j, { name: "PICK", lineItems: [{ id: lineOf(j), picked: 1 }] }, c).job,
    ],
    [
      "MODIFY_PICK_JOB_LINE_ITEMS",
      (j, c) =>
        applyPickJobAction(
          j,
          { name: "MODIFY_PICK_JOB_LINE_ITEMS", pickJobLineItemUpdates: [{ id: lineOf(j), picked: 1 }] },
          c,
        ).job,
    ],
    [
      "ModifyPickLineItem (PATCH)",
      (j, c) => applyPickJobPatch(j, [{ action: "ModifyPickLineItem", id: lineOf(j), picked: 1 }], c).job,
    ],
  ];

  it.each(pickerWork)("%s by another user on an IN_PROGRESS job: an implicit take-over", (_name, work) => {
    expect(work(started(), ctx({}, "bob")).editor?.username).toBe("bob");
    expect(() => work(started(), ctx(off, "bob"))).toThrow(
      expect.objectContaining({ kind: "precondition", code: "TAKE_OVER_PICK_JOB_DISABLED" }),
    );
  });

  it.each(pickerWork)("%s by the editor, or on a job not IN_PROGRESS, is no take-over", (_name, work) => {
    expect(work(started(), ctx(off, "ada")).editor?.username).toBe("ada");
    expect(work(started("OPEN"), ctx(off, "bob")).editor?.username).toBe("bob");
  });

  it.each([
    [{ name: "ABORT" }],
    [{ name: "CANCEL" }],
    [{ name: "PAUSE" }],
    [{ name: "RESET" }],
    [{ name: "CLOSE" }],
    [{ name: "REPLACE_ASSIGNED_USERS", assignedUsers: [{ username: "carl" }] }],
    [{ name: "ADD_TARGET_TIME", targetTime: LATER.toISOString() }],
  ] as [JsonObject][])("supervisory action %j stays allowed when switched off", (action) => {
    expect(applyPickJobAction(started(), action, ctx(off, "bob")).job.editor?.username).toBe("bob");
  });

  it("a pick run's changes to its jobs run under the run's rules (no job take-over check)", () => {
    const rules = pickRunJobRules(pickingRules({ version: 1, ...off }));
    const j = started();
    const c = { ...ctx(off, "bob"), rules };
    expect(pickerWork[1]![1](j, c).editor?.username).toBe("bob");
  });
});

describe("pickingShortPickConfiguration.shortPickReasons", () => {
  const reasons: JsonObject = {
    pickingShortPickConfiguration: {
      confirmationOnShortPick: false,
      shortPickReasons: [
        { reasonLocalized: { en_US: "Broken", de_DE: "Kaputt" }, active: true },
        { reasonLocalized: { en_US: "Gone" }, active: false },
      ],
    },
  };

  it.each([
    [{}, { en_US: "Anything" }, true],
    [reasons, { en_US: "Broken", de_DE: "Kaputt" }, true],
    [reasons, { de_DE: "Kaputt" }, true],
    [reasons, { en_US: "Broken", de_DE: "Defekt" }, true],
    [reasons, { en_US: "broken" }, false],
    [reasons, { de_DE: "Broken" }, false],
    [reasons, { en_US: "Gone" }, false],
    [reasons, { fr_FR: "Cassé" }, false],
  ] as [JsonObject, Record<string, string>, boolean][])(
    "configured %j: reason %j matches: %s",
    (config, reasonLocalized, known) => {
      expect(isKnownShortPickReason(pickingRules({ version: 1, ...config }), reasonLocalized)).toBe(known);
    },
  );

  const updates: [string, (j: PickJob, c: ActionContext, r: Record<string, string>) => PickJob, string][] = [
    [
      "MODIFY_PICK_JOB_LINE_ITEMS shortPickReason",
      (j, c, r) =>
        applyPickJobAction(
          j,
          {
            name: "MODIFY_PICK_JOB_LINE_ITEMS",
            pickJobLineItemUpdates: [{ id: j.pickLineItems[0]!.id, shortPickReason: { reasonLocalized: r } }],
          },
          c,
        ).job,
      "/pickJobLineItemUpdates/0/shortPickReason/reasonLocalized",
    ],
    [
      "PICK shortPickReason",
      (j, c, r) =>
        applyPickJobAction(
          j,
          {
            name: "PICK",
            lineItems: [{ id: j.pickLineItems[0]!.id, picked: 1, shortPickReason: { reasonLocalized: r } }],
          },
          c,
        ).job,
      "/lineItems/0/shortPickReason/reasonLocalized",
    ],
    [
      "PATCH ModifyPickLineItem shortPickReasonLocalized",
      (j, c, r) =>
        applyPickJobPatch(
          j,
          [{ action: "ModifyPickLineItem", id: j.pickLineItems[0]!.id, shortPickReasonLocalized: r }],
          c,
        ).job,
      "/actions/0/shortPickReasonLocalized",
    ],
  ];

  it.each(updates)("%s: any reason without configured ones", (_name, update) => {
    expect(
      update(job("j", "IN_PROGRESS"), ctx(), { en_US: "Whatever" }).pickLineItems[0]!.shortPickReason,
    ).toEqual({ reasonLocalized: { en_US: "Whatever" }, reason: "Whatever" });
  });

  it.each(updates)("%s: a configured active reason is stored as given", (_name, update) => {
    expect(
      update(job("j", "IN_PROGRESS"), ctx(reasons), { de_DE: "Kaputt" }).pickLineItems[0]!.shortPickReason,
    ).toEqual({ reasonLocalized: { de_DE: "Kaputt" }, reason: "Kaputt" });
  });

  it.each(updates)(
    "%s: another reason is 422 SHORT_PICK_REASON_UNKNOWN naming the field",
    (_name, update, field) => {
      expect(() => update(job("j", "IN_PROGRESS"), ctx(reasons), { en_US: "Gone" })).toThrow(
        expect.objectContaining({
          kind: "precondition",
          code: "SHORT_PICK_REASON_UNKNOWN",
          message: expect.stringContaining(field),
        }),
      );
    },
  );

  it("a pick run's ModifyPickRunLineItem is judged too", () => {
    const run = createPickRun({ facilityRef: "fac-1", pickJobRefs: ["job-1"] }, [job("job-1")], {
      ...ctx(),
      id: "run-1",
    }).run;
    const modify = (r: Record<string, string>) => () =>
      applyPickRunPatch(
        run,
        [
          {
            action: "ModifyPickRunLineItem",
            id: run.pickLineItems[0]!.id,
            shortPickReason: { reasonLocalized: r },
          },
        ],
        ctx(reasons),
      );
    expect(modify({ en_US: "Broken" })().run.pickLineItems[0]!.shortPickReason?.reason).toBe("Broken");
    expect(modify({ en_US: "Stolen" })).toThrow(
      expect.objectContaining({
        code: "SHORT_PICK_REASON_UNKNOWN",
        message: expect.stringContaining("/actions/0/shortPickReason/reasonLocalized"),
      }),
    );
  });
});

describe("scanningConfiguration.scanningType", () => {
  const scanning = (scanningType: string, roles?: string[]) => ({
    scanningConfiguration: {
      scanningType,
      ...(roles ? { rolesWithOverwritingScanningPermission: roles } : {}),
    },
  });
  const modify = (update: JsonObject, c: ActionContext) => {
    const j = job("j", "IN_PROGRESS");
    return () =>
      applyPickJobAction(
        j,
        {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: j.pickLineItems[0]!.id, ...update }],
        },
        c,
      ).job;
  };
  const codes = (...quantities: number[]) => quantities.map((quantity) => ({ code: "4011", quantity }));

  it.each([
    // [scanningType, update, allowed]
    ["SCAN_NOT_REQUIRED", { picked: 2 }, true],
    ["MUST_SCAN_EACH", { picked: 2, scannedCodes: codes(1, 1) }, true],
    ["MUST_SCAN_EACH", { picked: 1, scannedCodes: codes(2) }, true],
    ["MUST_SCAN_EACH", { picked: 0 }, true],
    ["MUST_SCAN_EACH", { picked: 2, scannedCodes: codes(1) }, false],
    ["MUST_SCAN_EACH", { picked: 1 }, false],
    ["MUST_SCAN_FIRST", { picked: 2, scannedCodes: codes(1) }, true],
    ["MUST_SCAN_FIRST", { picked: 0 }, true],
    ["MUST_SCAN_FIRST", { picked: 2 }, false],
    ["MUST_SCAN_FIRST", { picked: 2, scannedCodes: [] }, false],
  ] as [string, JsonObject, boolean][])("%s: %j allowed: %s", (type, update, allowed) => {
    const run = modify(update, ctx(scanning(type)));
    if (allowed) expect(run().pickLineItems[0]!.picked).toBe(update.picked);
    else
      expect(run).toThrow(
        expect.objectContaining({
          kind: "precondition",
          code: "SCAN_REQUIRED",
          message: expect.stringContaining("/pickJobLineItemUpdates/0/picked"),
        }),
      );
  });

  it("scans recorded earlier count: picks backed by the line's scanned codes pass", () => {
    const c = ctx(scanning("MUST_SCAN_EACH"));
    const j = modify({ scannedCodes: codes(2) }, c)();
    const next = applyPickJobAction(
      j,
      { name: "PICK", lineItems: [{ id: j.pickLineItems[0]!.id, picked: 2 }] },
      c,
    ).job;
    expect(next.pickLineItems[0]!.picked).toBe(2);
  });

  it("removing scans below the picks is refused too (naming scannedCodes)", () => {
    const c = ctx(scanning("MUST_SCAN_EACH"));
    const j = modify({ picked: 2, scannedCodes: codes(2) }, c)();
    expect(() =>
      applyPickJobAction(
        j,
        {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: j.pickLineItems[0]!.id, scannedCodes: codes(1) }],
        },
        c,
      ),
    ).toThrow(
      expect.objectContaining({ code: "SCAN_REQUIRED", message: expect.stringContaining("/scannedCodes") }),
    );
  });

  it.each([
    ["PICK", (j: PickJob) => ({ name: "PICK", lineItems: [{ id: j.pickLineItems[0]!.id, picked: 1 }] })],
  ])("%s without scans is refused as well", (_name, action) => {
    const j = job("j", "IN_PROGRESS");
    expect(() => applyPickJobAction(j, action(j), ctx(scanning("MUST_SCAN_FIRST")))).toThrow(
      expect.objectContaining({
        code: "SCAN_REQUIRED",
        message: expect.stringContaining("/lineItems/0/picked"),
      }),
    );
    expect(() =>
      applyPickJobPatch(
        j,
        [{ action: "ModifyPickLineItem", id: j.pickLineItems[0]!.id, picked: 1 }],
        ctx(scanning("MUST_SCAN_FIRST")),
      ),
    ).toThrow(
      expect.objectContaining({
        code: "SCAN_REQUIRED",
        message: expect.stringContaining("/actions/0/picked"),
      }),
    );
  });

  it("a caller with a role of rolesWithOverwritingScanningPermission picks without scans", () => {
    const config = scanning("MUST_SCAN_EACH", ["SUPERVISOR"]);
    expect(
      modify({ picked: 2 }, ctx(config, "ada", ["PICKER", "SUPERVISOR"]))().pickLineItems[0]!.picked,
    ).toBe(2);
    expect(modify({ picked: 2 }, ctx(config, "ada", ["PICKER"]))).toThrow(
      expect.objectContaining({ code: "SCAN_REQUIRED" }),
    );
  });

  it("a pick run's changes to its jobs are not judged (run lines carry no scanned codes)", () => {
    const c = ctx(scanning("MUST_SCAN_EACH"));
    expect(modify({ picked: 2 }, { ...c, rules: pickRunJobRules(c.rules!) })().pickLineItems[0]!.picked).toBe(
      2,
    );
  });
});

describe("loadUnitAssignmentConfiguration.pickJob", () => {
  const assignment = (pickJob: string) => ({
    loadUnitAssignmentConfiguration: { pickJob, pickRun: "INACTIVE" },
  });
  const withUnit = (config: JsonObject, has: boolean): ActionContext => ({
    ...ctx(config),
    ...(has ? { pickJobsWithLoadUnits: new Set(["j"]) } : {}),
  });
  // [type, action, from status, refused without a load unit]
  const table: [string, string, PickJobStatus, boolean][] = [];
  for (const type of LOAD_UNIT_ASSIGNMENT_TYPES) {
    table.push(
      [type, "START", "OPEN", type === "AT_START"],
      [type, "START", "PAUSED", false],
      [type, "CLOSE", "IN_PROGRESS", type === "AT_END" || type === "DURING_PICKING"],
      [type, "CLOSE", "PICKED", type === "AT_END" || type === "DURING_PICKING"],
      [type, "PICK", "IN_PROGRESS", false],
      [type, "ABORT", "IN_PROGRESS", false],
    );
  }

  it.each(table)("%s: %s from %s (refused without a load unit: %s)", (type, name, status, refused) => {
    const config = assignment(type);
    const body: JsonObject = name === "PICK" ? { name, lineItems: [] } : { name };
    // With a load unit: always allowed.
    expect(applyPickJobAction(job("j", status), body, withUnit(config, true)).job.status).not.toBe(status);
    const without = () => applyPickJobAction(job("j", status), body, withUnit(config, false));
    if (refused) {
      expect(without).toThrow(
        expect.objectContaining({
          kind: "precondition",
          code: "LOAD_UNIT_REQUIRED",
          description: expect.stringContaining(`loadUnitAssignmentConfiguration.pickJob ${type}`),
        }),
      );
      expect(
        needsLoadUnitAnswer(pickingRules({ version: 1, ...config }), [name === "START" ? "START" : "END"]),
      ).toBe(true);
    } else {
      expect(without().job.status).not.toBe(status);
    }
  });

  it("without a configuration no job needs a load unit, and none is asked for", () => {
    expect(applyPickJobAction(job("j"), { name: "START" }, ctx()).job.status).toBe("IN_PROGRESS");
    expect(applyPickJobAction(job("j", "PICKED"), { name: "CLOSE" }, ctx()).job.status).toBe("ABORTED");
    expect(needsLoadUnitAnswer(DEFAULT_PICKING_RULES, ["START", "END"])).toBe(false);
    expect(
      needsLoadUnitAnswer(pickingRules({ version: 1, ...assignment("AT_START") }), ["END", undefined]),
    ).toBe(false);
  });

  it.each([
    ["AT_START", "OPEN", "IN_PROGRESS"],
    ["AT_END", "PICKED", "CLOSED"],
    ["DURING_PICKING", "IN_PROGRESS", "CLOSED"],
  ] as [string, PickJobStatus, string][])(
    "%s: the deprecated PATCH's ModifyPickJob status from %s to %s follows it too",
    (type, from, to) => {
      const actions = [{ action: "ModifyPickJob", status: to }];
      expect(patchPickingMoments(actions)).toEqual([to === "IN_PROGRESS" ? "START" : "END"]);
      expect(() => applyPickJobPatch(job("j", from), actions, withUnit(assignment(type), false))).toThrow(
        expect.objectContaining({ code: "LOAD_UNIT_REQUIRED" }),
      );
      expect(applyPickJobPatch(job("j", from), actions, withUnit(assignment(type), true)).job.status).toBe(
        // nothing was picked: closing aborts it (ZERO_PICKED)
        to === "CLOSED" ? "ABORTED" : to,
      );
    },
  );

  it("a pick run starts its jobs under the run's setting, not the single-order one", () => {
    const rules = pickRunJobRules(pickingRules({ version: 1, ...assignment("AT_START") }));
    expect(rules.loadUnitAssignment.pickJob).toBe("INACTIVE");
    expect(applyPickJobAction(job("j"), { name: "START" }, { ...ctx(), rules }).job.status).toBe(
      "IN_PROGRESS",
    );
  });
});

describe("loadUnitAssignmentConfiguration.pickRun", () => {
  const assignment = (pickRun: string) => ({
    loadUnitAssignmentConfiguration: { pickJob: "INACTIVE", pickRun },
  });
  const open = () =>
    createPickRun({ facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2"] }, [job("job-1"), job("job-2")], {
      ...ctx(),
      id: "run-1",
    }).run;
  const withUnits = (type: string, ids: string[]): ActionContext => ({
    ...ctx(assignment(type)),
    pickJobsWithLoadUnits: new Set(ids),
  });
  const statuses = { "job-1": "OPEN", "job-2": "OPEN" } as const;

  it.each(LOAD_UNIT_ASSIGNMENT_TYPES.map((t) => [t]))("%s: START and FINISH of a run", (type) => {
    const startNeeds = type === "AT_START";
    const endNeeds = type === "AT_END" || type === "DURING_PICKING";
    const start = (ids: string[]) =>
      applyPickRunAction(open(), { name: "START" }, withUnits(type, ids), statuses);
    if (startNeeds) {
      expect(() => start(["job-1"])).toThrow(
        expect.objectContaining({
          code: "LOAD_UNIT_REQUIRED",
          description: expect.stringContaining("Pick job job-2 has no load unit"),
        }),
      );
    } else {
      expect(start([]).run.status).toBe("IN_PROGRESS");
    }
    const started = start(["job-1", "job-2"]).run;
    const finish = (ids: string[]) => applyPickRunAction(started, { name: "FINISH" }, withUnits(type, ids));
    if (endNeeds) {
      expect(() => finish(["job-2"])).toThrow(
        expect.objectContaining({
          code: "LOAD_UNIT_REQUIRED",
          description: expect.stringContaining(`loadUnitAssignmentConfiguration.pickRun ${type}`),
        }),
      );
      expect(() =>
        applyPickRunPatch(started, [{ action: "FinishPickRun" }], withUnits(type, ["job-1"])),
      ).toThrow(expect.objectContaining({ code: "LOAD_UNIT_REQUIRED" }));
    } else {
      expect(finish([]).run.status).toBe("CLOSED");
    }
    expect(finish(["job-1", "job-2"]).run.status).toBe("CLOSED");
  });

  it("a job already started (PAUSED) needs none when the run starts it again; the moments a run change reaches", () => {
    const c = withUnits("AT_START", ["job-1"]);
    expect(
      applyPickRunAction(open(), { name: "START" }, c, { "job-1": "OPEN", "job-2": "PAUSED" }).run.status,
    ).toBe("IN_PROGRESS");
    expect(pickRunMoments(open(), ["START"])).toEqual(["START"]);
    expect(pickRunMoments(open(), ["StartPickRun", "FinishPickRun"])).toEqual(["START", "END"]);
    expect(pickRunMoments(open(), ["ModifyPickRunLineItem"])).toEqual(["START"]);
    expect(pickRunMoments({ ...open(), status: "IN_PROGRESS" }, ["ModifyPickRunLineItem", "PAUSE"])).toEqual(
      [],
    );
  });

  it("the single-order setting does not judge runs, nor the run setting single jobs", () => {
    const jobSetting = { loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "INACTIVE" } };
    expect(applyPickRunAction(open(), { name: "START" }, ctx(jobSetting), statuses).run.status).toBe(
      "IN_PROGRESS",
    );
    expect(applyPickJobAction(job("j"), { name: "START" }, ctx(assignment("AT_START"))).job.status).toBe(
      "IN_PROGRESS",
    );
  });
});
