import { describe, expect, it } from "vitest";
import {
  applyPickRunAction,
  applyPickRunPatch,
  createPickRun,
  distributePicked,
  distributeProportionally,
  PICK_RUN_ACTIONS,
  type PickRunActionName,
  parsePickRunType,
  pickRunKind,
  publicPickRun,
  RUN_TRANSITIONS,
  removePickJobFromRun,
} from "./pickrun.ts";
import {
  type ActionContext,
  type JsonObject,
  PICK_RUN_STATUSES,
  type PickJob,
  type PickLineItem,
  type PickRun,
  type PickRunStatus,
} from "./types.ts";

const NOW = new Date("2026-05-01T10:00:00.000Z");
const LATER = new Date("2026-05-01T11:00:00.000Z");

let n = 0; // ids unique across the whole file
function context(now = NOW, username = "alice"): ActionContext {
  return { now, user: { userId: `u-${username}`, username }, newId: () => `id-${++n}` };
}

const article = (tenantArticleId: string) => ({ tenantArticleId, title: `Article ${tenantArticleId}` });

function line(
  id: string,
  tenantArticleId: string,
  quantity: number,
  over: Partial<PickLineItem> = {},
): PickLineItem {
  return { id, article: article(tenantArticleId), quantity, picked: 0, status: "OPEN", ...over };
}

function job(id: string, lines: PickLineItem[], over: Partial<PickJob> = {}): PickJob {
  return {
    id,
    version: 3,
    created: NOW.toISOString(),
    lastModified: NOW.toISOString(),
    shortId: id.toUpperCase(),
    facilityRef: "fac-1",
    orderDate: NOW.toISOString(),
    status: "OPEN",
    pickLineItems: lines,
    deliveryinformation: { channel: "SHIPPING" },
    workflowInformation: { isAvailable: false },
    documentsRef: `docs-${id}`,
    resetBlocked: false,
    anonymized: false,
    ...over,
  };
}

/** Two jobs sharing article A (3 + 2); job 1 also has article B. */
function jobs(): PickJob[] {
  return [
    job("job-1", [
      line("j1-a", "A", 3, {
        globalLineItemId: "g1",
        scannableCodes: ["111", "222"],
        measurementValidation: { overPickHardTolerancePercentage: 10 },
        partialStockLocations: [{ tenantPartialStockId: "ps1", stockRef: "s1" }],
      }),
      line("j1-b", "B", 1),
    ]),
    job("job-2", [
      line("j2-a", "A", 2, {
        globalLineItemId: "g2",
        scannableCodes: ["222", "333"],
        partialStockLocations: [{ tenantPartialStockId: "ps2", stockRef: "s2" }],
      }),
    ]),
  ];
}

function batchRun(type?: string): PickRun {
  return createPickRun(
    { facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2"], ...(type ? { pickRunType: type } : {}) },
    jobs(),
    { ...context(), id: "run-1" },
  ).run;
}

const withStatus = (run: PickRun, status: PickRunStatus): PickRun => ({ ...run, status });
const lineOf = (run: PickRun, tenantArticleId: string) =>
  run.pickLineItems.find((l) => l.article.tenantArticleId === tenantArticleId)!;

describe("parsePickRunType / pickRunKind", () => {
  it.each([
    [undefined, "batchPick", "batch"],
    ["batchPick", "batchPick", "batch"],
    ["batch", "batch", "batch"],
    ["multiOrderPick", "multiOrderPick", "multiOrder"],
    ["multiOrder", "multiOrder", "multiOrder"],
  ])("keeps %s as %s, built as %s", (t, kept, kind) => {
    const type = parsePickRunType(t);
    expect(type).toBe(kept);
    expect(pickRunKind(type)).toBe(kind);
  });

  it("rejects an unknown type", () => {
    expect(() => parsePickRunType("zone")).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_PICK_RUN_TYPE" }),
    );
  });
});

describe("createPickRun", () => {
  it("aggregates a batch run's lines by article and unit, remembering the sources", () => {
    const input = jobs();
    const snapshot = structuredClone(input);
    const { run, commands, event } = createPickRun(
      { facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2"] },
      input,
      { ...context(), id: "run-1" },
    );
    expect(input).toEqual(snapshot);
    expect(event).toBe("PICK_RUN_CREATED");
    expect(run).toMatchObject({
      id: "run-1",
      version: 1,
      created: NOW.toISOString(),
      lastModified: NOW.toISOString(),
      facilityRef: "fac-1",
      pickJobRefs: ["job-1", "job-2"],
      pickRunType: "batchPick", // the reference's schema default
      status: "OPEN",
      editor: { username: "alice" },
    });
    expect(run.pickLineItems).toHaveLength(2);
    const a = lineOf(run, "A");
    expect(a).toMatchObject({
      quantity: 5,
      picked: 0,
      status: "OPEN",
      scannableCodes: ["111", "222", "333"],
      globalLineItemIds: ["g1", "g2"],
      measurementValidation: { overPickHardTolerancePercentage: 10 },
      partialStockLocations: [
        { tenantPartialStockId: "ps1", stockRef: "s1" },
        { tenantPartialStockId: "ps2", stockRef: "s2" },
      ],
    });
    expect(a.pickJobRef).toBeUndefined();
    expect(run.lineSources[a.id]).toEqual([
      { pickJobRef: "job-1", lineItemId: "j1-a", quantity: 3 },
      { pickJobRef: "job-2", lineItemId: "j2-a", quantity: 2 },
    ]);
    expect(run.lineSources[lineOf(run, "B").id]).toEqual([
      { pickJobRef: "job-1", lineItemId: "j1-b", quantity: 1 },
    ]);
    expect(commands).toEqual([
      { pickJobRef: "job-1", action: { name: "ATTACH_PICK_RUN", pickRunRef: "run-1" } },
      { pickJobRef: "job-2", action: { name: "ATTACH_PICK_RUN", pickRunRef: "run-1" } },
    ]);
  });

  it("keeps lines with different measurement units apart in a batch", () => {
    const js = [
      job("job-1", [line("l1", "A", 1, { measurementUnitKey: "kg" })]),
      job("job-2", [line("l2", "A", 1)]),
    ];
    const { run } = createPickRun({ facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2"] }, js, {
      ...context(),
      id: "r",
    });
    expect(run.pickLineItems).toHaveLength(2);
  });

  it("keeps batchPick as sent and aggregates as batch does", () => {
    const run = batchRun("batchPick");
    expect(run.pickRunType).toBe("batchPick");
    const withoutIds = (r: PickRun) => r.pickLineItems.map(({ id: _, ...line }) => line);
    expect(withoutIds(run)).toEqual(withoutIds(batchRun("batch")));
  });

  it.each(["multiOrder", "multiOrderPick"])("keeps one line per job line for %s", (type) => {
    const { run } = createPickRun(
      { facilityRef: "fac-1", pickJobRefs: ["job-1", "job-2"], pickRunType: type },
      jobs(),
      {
        ...context(),
        id: "run-1",
      },
    );
    expect(run.pickRunType).toBe(type);
    expect(run.pickLineItems.map((l) => [l.pickJobRef, l.pickJobLineItemRef, l.quantity])).toEqual([
      ["job-1", "j1-a", 3],
      ["job-1", "j1-b", 1],
      ["job-2", "j2-a", 2],
    ]);
    for (const l of run.pickLineItems) {
      expect(run.lineSources[l.id]).toEqual([
        { pickJobRef: l.pickJobRef, lineItemId: l.pickJobLineItemRef, quantity: l.quantity },
      ]);
    }
    expect(run.pickLineItems[0]!.globalLineItemIds).toEqual(["g1"]);
  });

  const create =
    (refs: string[], js: PickJob[], over: JsonObject = {}) =>
    () =>
      createPickRun({ facilityRef: "fac-1", pickJobRefs: refs, ...over }, js, { ...context(), id: "r" });

  it.each([
    [
      "a job of another facility",
      create(["job-1"], [job("job-1", [], { facilityRef: "fac-2" })]),
      "PICK_JOB_IN_OTHER_FACILITY",
      "/pickJobRefs/0",
    ],
    ["a missing job", create(["job-1", "job-9"], [job("job-1", [])]), "PICK_JOB_NOT_FOUND", "/pickJobRefs/1"],
    [
      "a duplicate job",
      create(["job-1", "job-1"], [job("job-1", [])]),
      "DUPLICATE_PICK_JOB_REF",
      "/pickJobRefs/1",
    ],
    [
      "a status other than OPEN",
      create(["job-1"], [job("job-1", [])], { status: "IN_PROGRESS" }),
      "INVALID_PICK_RUN_STATUS",
      "/status",
    ],
  ])("rejects %s (400)", (_n, fn, code, field) => {
    expect(fn).toThrow(expect.objectContaining({ kind: "invalid", code, field }));
  });

  it("accepts status OPEN explicitly", () => {
    expect(create(["job-1"], [job("job-1", [])], { status: "OPEN" })().run.status).toBe("OPEN");
  });

  it.each([
    ["a job already in a run", job("job-1", [], { pickRunRef: "run-0" }), /run-0/],
    ["a closed job", job("job-1", [], { status: "CLOSED" }), /CLOSED/],
    ["a picked job", job("job-1", [], { status: "PICKED" }), /PICKED/],
  ])("rejects %s (422)", (_n, j, message) => {
    expect(create(["job-1"], [j])).toThrow(
      expect.objectContaining({
        kind: "precondition",
        code: "PICK_JOB_NOT_AVAILABLE",
        message: expect.stringMatching(message),
      }),
    );
  });

  it.each(["IN_PROGRESS", "PAUSED"] as const)("accepts a job in status %s", (status) => {
    expect(create(["job-1"], [job("job-1", [], { status })])().run.pickJobRefs).toEqual(["job-1"]);
  });
});

describe("run transitions", () => {
  const expected: Record<PickRunActionName, Partial<Record<PickRunStatus, PickRunStatus>>> = {
    START: { OPEN: "IN_PROGRESS" },
    PAUSE: { IN_PROGRESS: "PAUSED" },
    RESUME: { PAUSED: "IN_PROGRESS" },
    FINISH: { IN_PROGRESS: "CLOSED" },
    CANCEL: { OPEN: "CANCELED", IN_PROGRESS: "CANCELED", PAUSED: "CANCELED" },
    TAKE_OVER_PICK_RUN: { OPEN: "OPEN", IN_PROGRESS: "IN_PROGRESS", PAUSED: "PAUSED" },
    REMOVE_PICK_JOB: { OPEN: "OPEN", IN_PROGRESS: "IN_PROGRESS", PAUSED: "PAUSED" },
    SPLIT_LINES_PICK_RUN: { OPEN: "OPEN", IN_PROGRESS: "IN_PROGRESS", PAUSED: "PAUSED" },
  };
  const body = (name: PickRunActionName): JsonObject => {
    if (name === "REMOVE_PICK_JOB") return { name, version: 1, payload: { pickJobId: "job-2" } };
    if (name === "SPLIT_LINES_PICK_RUN") return { name, version: 1, splitLineItemsInfo: [] };
    return { name, version: 1 };
  };
  const cases = PICK_RUN_ACTIONS.flatMap((a) => PICK_RUN_STATUSES.map((s) => [a, s] as const));

  it.each(cases)("%s in status %s", (action, status) => {
    const run = withStatus(batchRun(), status);
    const target = expected[action][status];
    if (target === undefined) {
      expect(() => applyPickRunAction(run, body(action), context(LATER, "bob"))).toThrow(
        expect.objectContaining({
          kind: "precondition",
          code: "INVALID_TRANSITION",
          message: `Action ${action} is not possible for a pick run in status ${status}; it is possible in status ${RUN_TRANSITIONS[action].from.join(", ")}.`,
        }),
      );
      return;
    }
    const { run: next } = applyPickRunAction(run, body(action), context(LATER, "bob"));
    expect(next).toMatchObject({
      status: target,
      version: run.version + 1,
      lastModified: LATER.toISOString(),
      editor: { username: "bob" },
    });
    expect(run.status).toBe(status);
  });

  it("the table matches the expectations", () => {
    for (const action of PICK_RUN_ACTIONS) {
      expect([...RUN_TRANSITIONS[action].from].sort()).toEqual(Object.keys(expected[action]).sort());
    }
  });

  it("START starts every job and raises PICK_RUN_STARTED", () => {
    expect(applyPickRunAction(batchRun(), { name: "START", version: 1 }, context())).toMatchObject({
      event: "PICK_RUN_STARTED",
      commands: [
        { pickJobRef: "job-1", action: { name: "START" } },
        { pickJobRef: "job-2", action: { name: "START" } },
      ],
    });
  });

  it("START skips jobs already in progress when their statuses are known", () => {
    const change = applyPickRunAction(batchRun(), { name: "START", version: 1 }, context(), {
      "job-1": "IN_PROGRESS",
      "job-2": "OPEN",
    });
    expect(change.commands).toEqual([{ pickJobRef: "job-2", action: { name: "START" } }]);
  });

  it.each([
    ["PAUSE", "IN_PROGRESS", "PICK_RUN_PAUSED"],
    ["RESUME", "PAUSED", "PICK_RUN_RESUMED"],
    ["TAKE_OVER_PICK_RUN", "OPEN", "PICK_RUN_UPDATED"],
  ] as const)("%s emits no job commands", (name, status, event) => {
    const change = applyPickRunAction(
      withStatus(batchRun(), status),
      { name, version: 1 },
      context(LATER, "bob"),
    );
    expect(change.commands).toEqual([]);
    expect(change.event).toBe(event);
    expect(change.run.editor).toEqual({ userId: "u-bob", username: "bob" });
  });

  it("CANCEL detaches every job", () => {
    const change = applyPickRunAction(
      withStatus(batchRun(), "IN_PROGRESS"),
      { name: "CANCEL", version: 1 },
      context(),
    );
    expect(change.event).toBe("PICK_RUN_CANCELED");
    expect(change.commands).toEqual([
      { pickJobRef: "job-1", action: { name: "DETACH_PICK_RUN" } },
      { pickJobRef: "job-2", action: { name: "DETACH_PICK_RUN" } },
    ]);
  });

  it("rejects an unknown action", () => {
    expect(() => applyPickRunAction(batchRun(), { name: "FLY", version: 1 }, context())).toThrow(
      expect.objectContaining({ kind: "invalid", code: "UNKNOWN_ACTION" }),
    );
  });
});

describe("distribution", () => {
  it.each([
    [4, [3, 2], [3, 1]],
    [5, [3, 2], [3, 2]],
    [6, [3, 2], [3, 3]],
    [0, [3, 2], [0, 0]],
    [2, [3, 2], [2, 0]],
  ])("picked %d over %j -> %j", (picked, quantities, out) => {
    expect(distributePicked(picked, quantities)).toEqual(out);
  });

  it("distributes proportionally with the remainder on the last", () => {
    expect(distributeProportionally(10, [3, 1])).toEqual([7, 3]);
    expect(distributeProportionally(5, [1, 1, 1])).toEqual([1, 1, 3]);
  });
});

describe("ModifyPickRunLineItem", () => {
  const modify = (run: PickRun, actions: JsonObject[]) =>
    applyPickRunPatch(run, actions, context(LATER, "bob"));

  it("distributes picked over the sources and emits one command per job (implicitly starting an OPEN run)", () => {
    const run = batchRun();
    const a = lineOf(run, "A");
    const b = lineOf(run, "B");
    const change = modify(run, [
      { action: "ModifyPickRunLineItem", id: a.id, picked: 4, status: "CLOSED" },
      { action: "ModifyPickRunLineItem", id: b.id, picked: 1 },
    ]);
    expect(change.run).toMatchObject({ status: "IN_PROGRESS", version: 2, editor: { username: "bob" } });
    expect(change.event).toBe("PICK_RUN_STARTED");
    expect(lineOf(change.run, "A")).toMatchObject({
      picked: 4,
      status: "CLOSED",
      pickedAt: LATER.toISOString(),
    });
    expect(change.commands).toEqual([
      { pickJobRef: "job-1", action: { name: "START" } },
      { pickJobRef: "job-2", action: { name: "START" } },
      {
        pickJobRef: "job-1",
        action: {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [
            { id: "j1-a", picked: 3, status: "CLOSED" },
            { id: "j1-b", picked: 1 },
          ],
        },
      },
      {
        pickJobRef: "job-2",
        action: {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: "j2-a", picked: 1, status: "CLOSED" }],
        },
      },
    ]);
    expect(run.status).toBe("OPEN");
    expect(lineOf(run, "A").picked).toBe(0);
  });

  it("puts an over-pick on the last source and splits secondaryPicked proportionally", () => {
    const run = withStatus(batchRun(), "IN_PROGRESS");
    const a = lineOf(run, "A");
    const reason = { reasonLocalized: { en_US: "broken" } };
    const change = modify(run, [
      { action: "ModifyPickRunLineItem", id: a.id, picked: 6, secondaryPicked: 601, shortPickReason: reason },
    ]);
    expect(change.event).toBe("PICK_RUN_UPDATED");
    expect(change.commands).toEqual([
      {
        pickJobRef: "job-1",
        action: {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: "j1-a", picked: 3, secondaryPicked: 300, shortPickReason: reason }],
        },
      },
      {
        pickJobRef: "job-2",
        action: {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: "j2-a", picked: 3, secondaryPicked: 301, shortPickReason: reason }],
        },
      },
    ]);
  });

  it("passes stock locations through for single-source lines", () => {
    const run = withStatus(batchRun("multiOrder"), "IN_PROGRESS");
    const l = run.pickLineItems[0]!;
    const psl = [{ tenantPartialStockId: "ps1", picked: 2 }];
    const change = modify(run, [
      { action: "ModifyPickRunLineItem", id: l.id, picked: 2, partialStockLocations: psl },
    ]);
    expect(change.run.pickLineItems[0]!.partialStockLocations).toEqual([
      { tenantPartialStockId: "ps1", stockRef: "s1", picked: 2 },
    ]);
    expect(change.commands).toEqual([
      {
        pickJobRef: "job-1",
        action: {
          name: "MODIFY_PICK_JOB_LINE_ITEMS",
          pickJobLineItemUpdates: [{ id: "j1-a", picked: 2, partialStockLocations: psl }],
        },
      },
    ]);
  });

  it("records reasons and stock picks on the run line as a job line does; an unknown stock location is 400", () => {
    const run = withStatus(batchRun("multiOrder"), "IN_PROGRESS");
    const l = run.pickLineItems[0]!;
    const change = modify(run, [
      {
        action: "ModifyPickRunLineItem",
        id: l.id,
        picked: 1,
        shortPickReason: { reasonLocalized: { en_US: "broken" } },
      },
    ]);
    expect(change.run.pickLineItems[0]!.shortPickReason).toEqual({
      reasonLocalized: { en_US: "broken" },
      reason: "broken",
    });
    expect(() =>
      modify(run, [
        {
          action: "ModifyPickRunLineItem",
          id: l.id,
          picked: 1,
          partialStockLocations: [{ tenantPartialStockId: "nope", picked: 1 }],
        },
      ]),
    ).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "UNKNOWN_PARTIAL_STOCK_LOCATION",
        field: "/actions/0/partialStockLocations/0/tenantPartialStockId",
      }),
    );
  });

  it("rejects an unknown line id", () => {
    expect(() => modify(batchRun(), [{ action: "ModifyPickRunLineItem", id: "nope", picked: 1 }])).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "PICK_RUN_LINE_ITEM_NOT_FOUND",
        field: "/actions/0/id",
      }),
    );
  });

  it.each(["CLOSED", "CANCELED", "OBSOLETE"] as const)("is not possible in status %s", (status) => {
    const run = withStatus(batchRun(), status);
    expect(() =>
      modify(run, [{ action: "ModifyPickRunLineItem", id: run.pickLineItems[0]!.id, picked: 1 }]),
    ).toThrow(expect.objectContaining({ kind: "precondition", code: "INVALID_TRANSITION" }));
  });

  it.each([
    ["StartPickRun", "OPEN", "IN_PROGRESS", "PICK_RUN_STARTED"],
    ["CancelPickRun", "PAUSED", "CANCELED", "PICK_RUN_CANCELED"],
    ["FinishPickRun", "IN_PROGRESS", "CLOSED", "PICK_RUN_FINISHED"],
  ] as const)("deprecated %s acts like its /actions counterpart", (action, from, to, event) => {
    const change = modify(withStatus(batchRun(), from), [{ action }]);
    expect(change.run.status).toBe(to);
    expect(change.event).toBe(event);
  });

  it("a whole patch is one version increment; modifications before a finish are emitted first", () => {
    const run = withStatus(batchRun(), "IN_PROGRESS");
    const a = lineOf(run, "A");
    const change = modify(run, [
      { action: "ModifyPickRunLineItem", id: a.id, picked: 5 },
      { action: "FinishPickRun" },
    ]);
    expect(change.run.version).toBe(run.version + 1);
    expect(change.commands.map((c) => [c.pickJobRef, c.action["name"]])).toEqual([
      ["job-1", "MODIFY_PICK_JOB_LINE_ITEMS"],
      ["job-2", "MODIFY_PICK_JOB_LINE_ITEMS"],
      ["job-1", "PICK"],
      ["job-2", "PICK"],
    ]);
  });
});

describe("FINISH", () => {
  it("emits PICK per job with the distributed picked values", () => {
    let run = withStatus(batchRun(), "IN_PROGRESS");
    run = applyPickRunPatch(
      run,
      [
        { action: "ModifyPickRunLineItem", id: lineOf(run, "A").id, picked: 4 },
        { action: "ModifyPickRunLineItem", id: lineOf(run, "B").id, picked: 1 },
      ],
      context(),
    ).run;
    const change = applyPickRunAction(run, { name: "FINISH", version: run.version }, context());
    expect(change.event).toBe("PICK_RUN_FINISHED");
    expect(change.run.status).toBe("CLOSED");
    expect(change.commands).toEqual([
      {
        pickJobRef: "job-1",
        action: {
          name: "PICK",
          lineItems: [
            { id: "j1-a", picked: 3 },
            { id: "j1-b", picked: 1 },
          ],
        },
      },
      { pickJobRef: "job-2", action: { name: "PICK", lineItems: [{ id: "j2-a", picked: 1 }] } },
    ]);
  });
});

describe("REMOVE_PICK_JOB", () => {
  it("shrinks the aggregated line and drops lines left without sources", () => {
    let run = withStatus(batchRun(), "IN_PROGRESS");
    run = applyPickRunPatch(
      run,
      [{ action: "ModifyPickRunLineItem", id: lineOf(run, "A").id, picked: 4 }],
      context(),
    ).run;
    const a = lineOf(run, "A");
    const change = applyPickRunAction(
      run,
      { name: "REMOVE_PICK_JOB", version: run.version, payload: { pickJobId: "job-1" } },
      context(),
    );
    expect(change.commands).toEqual([{ pickJobRef: "job-1", action: { name: "DETACH_PICK_RUN" } }]);
    expect(change.run.pickJobRefs).toEqual(["job-2"]);
    expect(change.run.status).toBe("IN_PROGRESS");
    expect(change.run.pickLineItems).toHaveLength(1);
    expect(change.run.pickLineItems[0]).toMatchObject({ id: a.id, quantity: 2, picked: 1 });
    expect(change.run.lineSources).toEqual({
      [a.id]: [{ pickJobRef: "job-2", lineItemId: "j2-a", quantity: 2 }],
    });
  });

  it("removing the last job makes the run OBSOLETE", () => {
    let run = batchRun();
    run = applyPickRunAction(
      run,
      { name: "REMOVE_PICK_JOB", version: 1, payload: { pickJobId: "job-2" } },
      context(),
    ).run;
    expect(lineOf(run, "A").quantity).toBe(3);
    const change = applyPickRunAction(
      run,
      { name: "REMOVE_PICK_JOB", version: 2, payload: { pickJobId: "job-1" } },
      context(),
    );
    expect(change.run).toMatchObject({
      status: "OBSOLETE",
      pickJobRefs: [],
      pickLineItems: [],
      lineSources: {},
      version: 3,
    });
  });

  it("rejects a job that is not in the run", () => {
    expect(() =>
      applyPickRunAction(
        batchRun(),
        { name: "REMOVE_PICK_JOB", version: 1, payload: { pickJobId: "job-9" } },
        context(),
      ),
    ).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "PICK_JOB_NOT_IN_PICK_RUN",
        field: "/payload/pickJobId",
      }),
    );
  });

  it("the deprecated PATCH .../pickjobs does the same", () => {
    const change = removePickJobFromRun(batchRun(), "job-2", context());
    expect(change.run.pickJobRefs).toEqual(["job-1"]);
    expect(change.commands).toEqual([{ pickJobRef: "job-2", action: { name: "DETACH_PICK_RUN" } }]);
    expect(() => removePickJobFromRun(batchRun(), "job-9", context())).toThrow(
      expect.objectContaining({ field: "/actions/0/pickJobRef" }),
    );
    expect(() => removePickJobFromRun(withStatus(batchRun(), "CLOSED"), "job-1", context())).toThrow(
      expect.objectContaining({ kind: "precondition", code: "INVALID_TRANSITION" }),
    );
  });
});

describe("SPLIT_LINES_PICK_RUN", () => {
  const split = (run: PickRun, info: JsonObject) =>
    applyPickRunAction(
      run,
      { name: "SPLIT_LINES_PICK_RUN", version: run.version, splitLineItemsInfo: [info] },
      context(),
    );

  it("moves quantity from the end of the sources onto a new line", () => {
    let run = withStatus(batchRun(), "IN_PROGRESS");
    run = applyPickRunPatch(
      run,
      [{ action: "ModifyPickRunLineItem", id: lineOf(run, "A").id, picked: 4 }],
      context(),
    ).run;
    const a = lineOf(run, "A");
    const change = split(run, { lineItemId: a.id, quantity: 3, picked: 2 });
    expect(change.commands).toEqual([]);
    const lines = change.run.pickLineItems;
    expect(lines).toHaveLength(3);
    const [kept, created] = [lines[0]!, lines[1]!];
    expect(kept).toMatchObject({ id: a.id, quantity: 2, picked: 2 });
    expect(created).toMatchObject({ originId: a.id, quantity: 3, picked: 2, article: a.article });
    expect(created.id).not.toBe(a.id);
    expect(change.run.lineSources[a.id]).toEqual([{ pickJobRef: "job-1", lineItemId: "j1-a", quantity: 2 }]);
    expect(change.run.lineSources[created.id]).toEqual([
      { pickJobRef: "job-1", lineItemId: "j1-a", quantity: 1 },
      { pickJobRef: "job-2", lineItemId: "j2-a", quantity: 2 },
    ]);
    // The job lines' totals survive the split: j1-a = 2 (kept) + 1 (new), j2-a = 1 (new).
    const finish = applyPickRunAction(change.run, { name: "FINISH", version: change.run.version }, context());
    expect(finish.commands).toEqual([
      {
        pickJobRef: "job-1",
        action: {
          name: "PICK",
          lineItems: [
            { id: "j1-a", picked: 3 },
            { id: "j1-b", picked: 0 },
          ],
        },
      },
      { pickJobRef: "job-2", action: { name: "PICK", lineItems: [{ id: "j2-a", picked: 1 }] } },
    ]);
  });

  it.each([
    ["an unknown line", { lineItemId: "nope", quantity: 1, picked: 0 }, "/splitLineItemsInfo/0/lineItemId"],
    ["taking the whole quantity", { quantity: 5, picked: 0 }, "/splitLineItemsInfo/0/quantity"],
    ["taking more than picked", { quantity: 1, picked: 1 }, "/splitLineItemsInfo/0/picked"],
  ])("rejects %s", (_n, info, field) => {
    const run = batchRun();
    expect(() => split(run, { lineItemId: lineOf(run, "A").id, ...info })).toThrow(
      expect.objectContaining({ kind: "invalid", field }),
    );
  });
});

describe("publicPickRun", () => {
  it("hides lineSources", () => {
    const run = batchRun();
    const view = publicPickRun(run);
    expect(view).not.toHaveProperty("lineSources");
    expect(view).toMatchObject({ id: "run-1", status: "OPEN", pickJobRefs: ["job-1", "job-2"] });
    expect(run.lineSources).toBeDefined();
  });
});
