import { describe, expect, it } from "vitest";
import { applyPickJobAction } from "./lifecycle.ts";
import { applyPickJobPatch } from "./patch.ts";
import {
  DEFAULT_PICKING_CONFIGURATION,
  DEFAULT_PICKING_RULES,
  defaultPickingConfiguration,
  type PickingConfiguration,
  patchPickingConfiguration,
  pickingRules,
} from "./picking-config.ts";
import { createPickJob } from "./pickjob.ts";
import { applyPickRunAction, createPickRun } from "./pickrun.ts";
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
    // stored only: no rule changes
    [{ takeOverPickJobConfiguration: { active: false } }, {}],
    [{ loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "AT_END" } }, {}],
  ] as [JsonObject, object][])("%j -> %j", (subs, changed) => {
    expect(pickingRules({ version: 1, ...subs })).toEqual({ ...DEFAULT_PICKING_RULES, ...changed });
  });
});

// --- the rules in effect, through the domain functions ---------------------------------------------

let n = 0;
const ctx = (config: JsonObject = {}, username = "ada"): ActionContext => ({
  now: NOW,
  user: { userId: `u-${username}`, username },
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
