/**
 * The whole pick job transition table: every action from every one of the 13 statuses either lands
 * where the table says (with its effect on the lines, subStatus and event) or is a 422
 * INVALID_TRANSITION; an independent hand-written matrix and hand-written scenarios make a wrong
 * table fail too.
 */
import { AppError } from "@fop/kit/errors";
import { describe, expect, it } from "vitest";
import { applyPickJobAction, INTERNAL_ACTIONS, LINE_ACTIONS, TERMINAL, TRANSITIONS } from "./lifecycle.ts";
import { createPickJob } from "./pickjob.ts";
import { type ActionContext, PICK_JOB_STATUSES, type PickJob, type PickJobStatus } from "./types.ts";

let n = 0;
const ctx: ActionContext = {
  now: new Date("2026-03-01T10:00:00.000Z"),
  user: { userId: "u1", username: "ada" },
  newId: () => `id-${++n}`,
};

/** A job with two lines (A: 4, B: 2), forced into `status`. */
function job(status: PickJobStatus = "OPEN", over: Partial<PickJob> = {}): PickJob {
  const j = createPickJob(
    {
      facilityRef: "f1",
      orderDate: "2026-03-01T09:00:00.000Z",
      pickLineItems: [
        {
          article: { tenantArticleId: "A", title: "Apple" },
          quantity: 4,
          allowedSubstitutes: [{ tenantArticleId: "A2", title: "Green apple" }],
          recordableAttributes: [{ keyLocalized: { en_US: "origin" }, recordingRule: "OPTIONAL" }],
        },
        { article: { tenantArticleId: "B", title: "Bread" }, quantity: 2 },
      ],
    },
    { ...ctx, id: "job-1", shortId: "ABC123" },
  );
  return { ...j, status, ...over };
}

const lineIds = (j: PickJob) => j.pickLineItems.map((l) => l.id);

/** A valid body for each action, for a job made by job(). */
function body(name: string, j: PickJob): Record<string, unknown> {
  const [a, b] = lineIds(j);
  const version = j.version;
  switch (name) {
    case "PICK":
      return { name, version, lineItems: [{ id: a, picked: 4 }] };
    case "REPLACE_ASSIGNED_USERS":
      return { name, version, assignedUsers: [{ username: "grace" }] };
    case "SPLIT_LINE_ITEMS_PICK_JOB":
      return { name, version, splitLineItemsInfo: [{ lineItemId: a, quantity: 1, picked: 0 }] };
    case "MERGE_LINE_ITEMS_PICK_JOB":
      return { name, version, lineItemIds: [a, b] };
    case "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES":
      return {
        name,
        version,
        recordableAttributeUpdates: [
          { recordableAttributeId: j.pickLineItems[0]!.recordableAttributes![0]!.id, value: "NZ" },
        ],
      };
    case "MODIFY_PICK_JOB_LINE_ITEMS":
      return { name, version, pickJobLineItemUpdates: [{ id: a, picked: 1 }] };
    case "ADD_TARGET_TIME":
      return { name, version, targetTime: "2026-03-02T10:00:00.000Z" };
    case "ATTACH_PICK_RUN":
      return { name, version, pickRunRef: "run-1" };
    default:
      return { name, version };
  }
}

function attempt(j: PickJob, action: Record<string, unknown>) {
  try {
    return { ok: applyPickJobAction(j, action as never, ctx) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { err };
  }
}

/** Written out by hand, independently of TRANSITIONS: where each status action may start. */
const EXPECTED_FROM: Record<string, PickJobStatus[]> = {
  START: ["OPEN", "PAUSED"],
  PAUSE: ["IN_PROGRESS"],
  RESTART: ["PAUSED", "PICKED", "CLOSED", "ABORTED"],
  PICK: ["OPEN", "IN_PROGRESS"],
  CLOSE: ["IN_PROGRESS", "PICKED"],
  ABORT: ["OPEN", "IN_PROGRESS", "PAUSED", "PICKED", "WAITING_FOR_INPUT"],
  CANCEL: ["OPEN", "IN_PROGRESS", "PAUSED", "PICKED", "WAITING_FOR_INPUT"],
  OBSOLETE: ["OPEN", "IN_PROGRESS", "PAUSED", "PICKED", "WAITING_FOR_INPUT", "CLOSED", "ABORTED"],
  RESET: ["IN_PROGRESS", "PAUSED", "PICKED", "CLOSED", "ABORTED"],
};
const EXPECTED_TO: Record<string, PickJobStatus | "computed"> = {
  START: "IN_PROGRESS",
  PAUSE: "PAUSED",
  RESTART: "IN_PROGRESS",
  PICK: "PICKED",
  CLOSE: "computed",
  ABORT: "ABORTED",
  CANCEL: "CANCELED",
  OBSOLETE: "OBSOLETE",
  RESET: "OPEN",
};
const EXPECTED_TERMINAL: PickJobStatus[] = [
  "CANCELED",
  "OBSOLETE",
  "EXPIRED",
  "REROUTED",
  "REJECTED",
  "RESTOWED",
];

describe("the table is the documented machine", () => {
  it("names exactly the nine status actions, with the documented sources and targets", () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual(Object.keys(EXPECTED_FROM).sort());
    for (const [name, t] of Object.entries(TRANSITIONS)) {
      expect([...t.from].sort(), name).toEqual([...EXPECTED_FROM[name]!].sort());
      expect(t.to, name).toBe(EXPECTED_TO[name]);
    }
  });

  it("terminal statuses are left by no action and no line action is allowed in them", () => {
    expect([...TERMINAL].sort()).toEqual([...EXPECTED_TERMINAL].sort());
    for (const t of Object.values(TRANSITIONS)) {
      for (const s of EXPECTED_TERMINAL) expect(t.from).not.toContain(s);
    }
    for (const allowed of Object.values(LINE_ACTIONS)) {
      for (const s of EXPECTED_TERMINAL) expect(allowed).not.toContain(s);
    }
  });

  it("line modifications are refused on CLOSED and ABORTED jobs", () => {
    for (const name of [
      "MODIFY_PICK_JOB_LINE_ITEMS",
      "SPLIT_LINE_ITEMS_PICK_JOB",
      "MERGE_LINE_ITEMS_PICK_JOB",
    ] as const) {
      expect(LINE_ACTIONS[name]).not.toContain("CLOSED");
      expect(LINE_ACTIONS[name]).not.toContain("ABORTED");
    }
  });
});

describe("every status action from every status", () => {
  for (const [name, t] of Object.entries(TRANSITIONS)) {
    for (const status of PICK_JOB_STATUSES) {
      const allowed = t.from.includes(status);
      it(`${name} from ${status}: ${allowed ? `-> ${t.to}` : "422 INVALID_TRANSITION"}`, () => {
        // Something picked (so CLOSE closes) and a subStatus to see it cleared or replaced.
        const base = job(status, { subStatus: "ORDER_MODIFIED", statusReason: "ORDER_MODIFIED" });
        base.pickLineItems[0] = {
          ...base.pickLineItems[0]!,
          picked: 4,
          pickedAt: "2026-03-01T09:30:00.000Z",
        };
        const before = structuredClone(base);
        const r = attempt(base, body(name, base));
        expect(base).toEqual(before); // input never mutated
        if (!allowed) {
          expect(r.err).toMatchObject({ kind: "precondition", code: "INVALID_TRANSITION" });
          expect(r.err?.description).toBe(
            `Action ${name} is not possible for a pick job in status ${status}; it is possible in status ${t.from.join(", ")}.`,
          );
          return;
        }
        expect(r.err).toBeUndefined();
        const next = r.ok!.job;
        const target = t.to === "computed" ? "CLOSED" : t.to;
        expect(next.status).toBe(target);
        expect(r.ok!.event).toBe(t.event);
        expect(next.version).toBe(base.version + 1);
        // subStatus follows the status change: what the action sets, else removed; statusReason mirrors.
        const sub = name === "CLOSE" ? "SHORT_PICKED" : t.subStatus;
        expect(next.subStatus).toBe(sub);
        expect(next.statusReason).toBe(sub);
        const [a, b] = next.pickLineItems;
        switch (t.lines) {
          case "IN_PROGRESS":
            expect(next.pickLineItems.map((l) => l.status)).toEqual(["IN_PROGRESS", "IN_PROGRESS"]);
            expect(a!.picked).toBe(4);
            break;
          case "PICK":
            expect(a).toMatchObject({ picked: 4, status: "CLOSED" });
            expect(b!.status).toBe(base.pickLineItems[1]!.status);
            break;
          case "CLOSED":
            expect(next.pickLineItems.map((l) => l.status)).toEqual(["CLOSED", "CLOSED"]);
            break;
          case "RESET":
            expect(next.pickLineItems.map((l) => [l.status, l.picked])).toEqual([
              ["OPEN", 0],
              ["OPEN", 0],
            ]);
            expect(a!.pickedAt).toBeUndefined();
            break;
          case undefined:
            expect(next.pickLineItems).toEqual(base.pickLineItems);
        }
      });
    }
  }
});

describe("every line action and internal action in every status", () => {
  const table = { ...LINE_ACTIONS, ...INTERNAL_ACTIONS };
  for (const [name, allowedIn] of Object.entries(table)) {
    for (const status of PICK_JOB_STATUSES) {
      const allowed = allowedIn.includes(status);
      it(`${name} in ${status}: ${allowed ? "allowed, status kept" : "422 INVALID_TRANSITION"}`, () => {
        const base = job(status);
        if (name === "MERGE_LINE_ITEMS_PICK_JOB") {
          base.pickLineItems[1] = {
            ...base.pickLineItems[1]!,
            article: { tenantArticleId: "A", title: "Apple" },
          };
        }
        const r = attempt(base, body(name, base));
        if (!allowed) {
          expect(r.err).toMatchObject({ kind: "precondition", code: "INVALID_TRANSITION" });
          expect(r.err?.description).toContain(`${name} is not possible for a pick job in status ${status}`);
          return;
        }
        expect(r.err).toBeUndefined();
        expect(r.ok!.job.status).toBe(status);
        expect(r.ok!.event).toBe("PICK_JOB_UPDATED");
        expect(r.ok!.job.version).toBe(base.version + 1);
      });
    }
  }
});

describe("hand-written expectations", () => {
  it("START moves the job and all its lines to IN_PROGRESS; CLOSE from OPEN is rejected", () => {
    const started = applyPickJobAction(job(), { name: "START", version: 1 }, ctx);
    expect(started.job.status).toBe("IN_PROGRESS");
    expect(started.job.pickLineItems.map((l) => l.status)).toEqual(["IN_PROGRESS", "IN_PROGRESS"]);
    expect(started.event).toBe("PICK_JOB_STARTED");
    const close = attempt(job(), { name: "CLOSE", version: 1 });
    expect(close.err).toMatchObject({ kind: "precondition", code: "INVALID_TRANSITION" });
    expect(close.err?.description).toBe(
      "Action CLOSE is not possible for a pick job in status OPEN; it is possible in status IN_PROGRESS, PICKED.",
    );
  });

  it("CLOSE with nothing picked -> ABORTED/ZERO_PICKED (event PICK_JOB_ABORTED), lines CLOSED", () => {
    const r = applyPickJobAction(job("IN_PROGRESS"), { name: "CLOSE", version: 1 }, ctx);
    expect(r.job).toMatchObject({ status: "ABORTED", subStatus: "ZERO_PICKED", statusReason: "ZERO_PICKED" });
    expect(r.job.pickLineItems.every((l) => l.status === "CLOSED")).toBe(true);
    expect(r.event).toBe("PICK_JOB_ABORTED");
  });

  it("CLOSE short -> CLOSED/SHORT_PICKED; complete -> CLOSED without subStatus", () => {
    const short = job("IN_PROGRESS");
    short.pickLineItems[0]!.picked = 3;
    short.pickLineItems[1]!.picked = 2;
    const closedShort = applyPickJobAction(short, { name: "CLOSE", version: 1 }, ctx);
    expect(closedShort.job).toMatchObject({
      status: "CLOSED",
      subStatus: "SHORT_PICKED",
      statusReason: "SHORT_PICKED",
    });
    expect(closedShort.job.pickLineItems.every((l) => l.status === "CLOSED")).toBe(true);
    expect(closedShort.event).toBe("PICK_JOB_CLOSED");

    const full = job("PICKED", { subStatus: "ORDER_MODIFIED", statusReason: "ORDER_MODIFIED" });
    full.pickLineItems[0]!.picked = 4;
    full.pickLineItems[1]!.picked = 2;
    const closed = applyPickJobAction(full, { name: "CLOSE", version: 1 }, ctx).job;
    expect(closed.status).toBe("CLOSED");
    expect(closed.subStatus).toBeUndefined();
    expect(closed.statusReason).toBeUndefined();
  });

  it("picked substitutes count: a job picked only with substitutes closes, not aborts", () => {
    const substituted = job("IN_PROGRESS");
    substituted.pickLineItems[0]!.substituteLineItems = [
      { id: "s", article: { tenantArticleId: "A2", title: "Green apple" }, quantity: 4, picked: 4 },
    ];
    substituted.pickLineItems[1]!.picked = 2;
    const r = applyPickJobAction(substituted, { name: "CLOSE", version: 1 }, ctx).job;
    expect(r.status).toBe("CLOSED");
    expect(r.subStatus).toBeUndefined();
  });

  it("RESET undoes every pick and clears subStatus", () => {
    const closed = job("CLOSED", { subStatus: "SHORT_PICKED", statusReason: "SHORT_PICKED" });
    closed.pickLineItems[0] = {
      ...closed.pickLineItems[0]!,
      picked: 3,
      secondaryPicked: 30,
      status: "CLOSED",
      pickedAt: "2026-03-01T09:30:00.000Z",
      scannedCodes: [{ code: "x", quantity: 3 }],
      shortPickReason: { reasonLocalized: { en_US: "broken" }, reason: "broken" },
      stockEmptied: true,
      partialStockLocations: [{ tenantPartialStockId: "p1", stockRef: "s1", picked: 3, stockEmptied: true }],
      substituteLineItems: [
        { id: "s", article: { tenantArticleId: "A2", title: "G" }, quantity: 1, picked: 1 },
      ],
    };
    const r = applyPickJobAction(closed, { name: "RESET", version: 1 }, ctx);
    expect(r.event).toBe("PICK_JOB_RESET");
    expect(r.job.status).toBe("OPEN");
    expect(r.job.subStatus).toBeUndefined();
    expect(r.job.statusReason).toBeUndefined();
    const line = r.job.pickLineItems[0]!;
    expect(line).toMatchObject({ picked: 0, status: "OPEN", scannedCodes: [] });
    for (const gone of [
      "pickedAt",
      "secondaryPicked",
      "shortPickReason",
      "stockEmptied",
      "substituteLineItems",
    ]) {
      expect(line, gone).not.toHaveProperty(gone);
    }
    expect(line.partialStockLocations).toEqual([{ tenantPartialStockId: "p1", stockRef: "s1", picked: 0 }]);
    expect(line.recordableAttributes).toEqual(closed.pickLineItems[0]!.recordableAttributes);
  });

  it("RESET and RESTART refuse a resetBlocked job with 422 RESET_BLOCKED", () => {
    for (const name of ["RESET", "RESTART"]) {
      for (const status of ["CLOSED", "ABORTED", "PICKED", "PAUSED"] as const) {
        const blocked = attempt(job(status, { resetBlocked: true }), { name, version: 1 });
        expect(blocked.err, `${name} from ${status}`).toMatchObject({
          kind: "precondition",
          code: "RESET_BLOCKED",
        });
      }
    }
    // START from PAUSED is not a restart: resetBlocked does not stop it.
    expect(
      applyPickJobAction(job("PAUSED", { resetBlocked: true }), { name: "START", version: 1 }, ctx).job
        .status,
    ).toBe("IN_PROGRESS");
  });

  it("RESTART keeps picks, reopens closed lines and clears the subStatus", () => {
    const closed = job("CLOSED", { subStatus: "SHORT_PICKED", statusReason: "SHORT_PICKED" });
    closed.pickLineItems = closed.pickLineItems.map((l) => ({ ...l, picked: 1, status: "CLOSED" }));
    const r = applyPickJobAction(closed, { name: "RESTART", version: 1 }, ctx);
    expect(r.event).toBe("PICK_JOB_RESTARTED");
    expect(r.job.status).toBe("IN_PROGRESS");
    expect(r.job.subStatus).toBeUndefined();
    expect(r.job.pickLineItems.map((l) => [l.status, l.picked])).toEqual([
      ["IN_PROGRESS", 1],
      ["IN_PROGRESS", 1],
    ]);
  });

  it("PAUSE only from IN_PROGRESS; ABORT sets PICK_JOB_ABORTED; CANCEL and OBSOLETE are final", () => {
    expect(attempt(job("OPEN"), { name: "PAUSE", version: 1 }).err?.code).toBe("INVALID_TRANSITION");
    const aborted = applyPickJobAction(job("WAITING_FOR_INPUT"), { name: "ABORT", version: 1 }, ctx);
    expect(aborted.job).toMatchObject({
      status: "ABORTED",
      subStatus: "PICK_JOB_ABORTED",
      statusReason: "PICK_JOB_ABORTED",
    });
    expect(aborted.event).toBe("PICK_JOB_ABORTED");
    const canceled = applyPickJobAction(job(), { name: "CANCEL", version: 1 }, ctx).job;
    expect(attempt(canceled, { name: "RESET", version: 2 }).err?.code).toBe("INVALID_TRANSITION");
    const obsolete = applyPickJobAction(job("CLOSED"), { name: "OBSOLETE", version: 1 }, ctx);
    expect(obsolete.job.status).toBe("OBSOLETE");
    expect(obsolete.event).toBe("PICK_JOB_OBSOLETE");
    expect(attempt(obsolete.job, { name: "OBSOLETE", version: 2 }).err?.code).toBe("INVALID_TRANSITION");
  });

  it("every change bumps the version once and records the editor", () => {
    const other = { ...ctx, user: { userId: "u2", username: "grace" } };
    const r = applyPickJobAction(job(), { name: "START", version: 1 }, other).job;
    expect(r.version).toBe(2);
    expect(r.lastModified).toBe(ctx.now.toISOString());
    expect(r.editor).toEqual({ userId: "u2", username: "grace" });
    expect(r.usersModificationHistory).toEqual([
      { modificationDate: ctx.now.toISOString(), userId: "u1", username: "ada" },
      { modificationDate: ctx.now.toISOString(), userId: "u2", username: "grace" },
    ]);
  });

  it("an unknown action name is 400", () => {
    expect(attempt(job(), { name: "FLY", version: 1 }).err).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_ACTION",
    });
  });
});
