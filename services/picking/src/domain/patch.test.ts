import { AppError } from "@fop/kit/errors";
import { describe, expect, it } from "vitest";
import { applyPickJobPatch } from "./patch.ts";
import { createPickJob } from "./pickjob.ts";
import type { ActionContext, JsonObject, PickJob, PickJobStatus } from "./types.ts";

let n = 0;
const ctx: ActionContext = {
  now: new Date("2026-03-01T10:00:00.000Z"),
  user: { userId: "u1", username: "ada" },
  newId: () => `id-${++n}`,
};

function job(status: PickJobStatus = "OPEN", over: Partial<PickJob> = {}): PickJob {
  const j = createPickJob(
    {
      facilityRef: "f1",
      orderDate: "2026-03-01T09:00:00.000Z",
      pickLineItems: [
        { article: { tenantArticleId: "A", title: "Apple" }, quantity: 4 },
        { article: { tenantArticleId: "B", title: "Bread" }, quantity: 2 },
      ],
    },
    { ...ctx, id: "job-1", shortId: "ABC123" },
  );
  return { ...j, status, ...over };
}
const ids = (j: PickJob) => j.pickLineItems.map((l) => l.id) as [string, string];

function attempt(j: PickJob, actions: JsonObject[]) {
  try {
    return { ok: applyPickJobPatch(j, actions, ctx) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { err };
  }
}

describe("the deprecated PATCH", () => {
  it("legacy flow: ModifyPickJob IN_PROGRESS (lines stay OPEN), then lines + CLOSED in one patch", () => {
    const started = applyPickJobPatch(job(), [{ action: "ModifyPickJob", status: "IN_PROGRESS" }], ctx);
    expect(started.job).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    expect(started.events).toEqual(["PICK_JOB_STARTED"]);
    const [a, b] = ids(started.job);
    // Status first, lines after: the lines are still applied first.
    const closed = applyPickJobPatch(
      started.job,
      [
        { action: "ModifyPickJob", status: "CLOSED" },
        { action: "ModifyPickLineItem", id: a, picked: 4, status: "CLOSED" },
        {
          action: "ModifyPickLineItem",
          id: b,
          picked: 1,
          status: "CLOSED",
          shortPickReasonLocalized: { de_DE: "kaputt" },
        },
      ],
      ctx,
    );
    expect(closed.job).toMatchObject({
      status: "CLOSED",
      subStatus: "SHORT_PICKED",
      statusReason: "SHORT_PICKED",
    });
    expect(closed.job.version).toBe(3); // once for the whole patch
    expect(closed.job.pickLineItems.map((l) => [l.picked, l.status])).toEqual([
      [4, "CLOSED"],
      [1, "CLOSED"],
    ]);
    expect(closed.job.pickLineItems[1]!.shortPickReason).toEqual({
      reasonLocalized: { de_DE: "kaputt" },
      reason: "kaputt",
    });
    expect(closed.events).toEqual(["PICK_JOB_CLOSED"]);
  });

  it("ModifyPickLineItem alone changes lines only (PICK_JOB_UPDATED); unknown line is 400", () => {
    const j = job("IN_PROGRESS");
    const [a] = ids(j);
    const r = applyPickJobPatch(
      j,
      [{ action: "ModifyPickLineItem", id: a, picked: 2, scannedCodes: [{ code: "c", quantity: 2 }] }],
      ctx,
    );
    expect(r.job.status).toBe("IN_PROGRESS");
    expect(r.job.pickLineItems[0]).toMatchObject({ picked: 2, scannedCodes: [{ code: "c", quantity: 2 }] });
    expect(r.events).toEqual(["PICK_JOB_UPDATED"]);
    expect(attempt(j, [{ action: "ModifyPickLineItem", id: "x", picked: 1 }]).err).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_PICK_LINE_ITEM",
      field: "/actions/0/id",
    });
    expect(attempt(job("CANCELED"), [{ action: "ModifyPickLineItem", id: a, picked: 1 }]).err?.code).toBe(
      "INVALID_TRANSITION",
    );
  });

  it("ModifyPickJob statuses map onto the state machine", () => {
    const status = (from: PickJobStatus, to: PickJobStatus, over: Partial<PickJob> = {}) =>
      attempt(job(from, over), [{ action: "ModifyPickJob", status: to }]);
    expect(status("IN_PROGRESS", "PAUSED").ok?.events).toEqual(["PICK_JOB_PAUSED"]);
    expect(status("PAUSED", "IN_PROGRESS").ok?.events).toEqual(["PICK_JOB_STARTED"]);
    expect(status("CLOSED", "IN_PROGRESS").ok?.events).toEqual(["PICK_JOB_RESTARTED"]);
    expect(status("CLOSED", "IN_PROGRESS", { resetBlocked: true }).err?.code).toBe("RESET_BLOCKED");
    expect(status("IN_PROGRESS", "PICKED").ok?.job.status).toBe("PICKED");
    expect(status("ABORTED", "OPEN").ok?.events).toEqual(["PICK_JOB_RESET"]);
    expect(status("OPEN", "CLOSED").err?.code).toBe("INVALID_TRANSITION");
    expect(status("IN_PROGRESS", "CLOSED").ok?.job).toMatchObject({
      status: "ABORTED",
      subStatus: "ZERO_PICKED",
    });
    expect(status("IN_PROGRESS", "CLOSED").ok?.events).toEqual(["PICK_JOB_ABORTED"]);
    // The same status is a no-op (but still a change: version + 1).
    const same = status("IN_PROGRESS", "IN_PROGRESS").ok!;
    expect(same.job).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    expect(same.events).toEqual(["PICK_JOB_UPDATED"]);
  });

  it("platform statuses are set directly, only from an active status; subStatus cleared", () => {
    const r = attempt(job("PICKED", { subStatus: "ORDER_MODIFIED", statusReason: "ORDER_MODIFIED" }), [
      { action: "ModifyPickJob", status: "REROUTED" },
    ]);
    expect(r.ok?.job.status).toBe("REROUTED");
    expect(r.ok?.job).not.toHaveProperty("subStatus");
    expect(r.ok?.job).not.toHaveProperty("statusReason");
    expect(r.ok?.events).toEqual(["PICK_JOB_UPDATED"]);
    expect(attempt(job(), [{ action: "ModifyPickJob", status: "WAITING_FOR_INPUT" }]).ok?.job.status).toBe(
      "WAITING_FOR_INPUT",
    );
    for (const from of ["CANCELED", "EXPIRED", "CLOSED"] as const) {
      expect(attempt(job(from), [{ action: "ModifyPickJob", status: "REROUTED" }]).err, from).toMatchObject({
        kind: "precondition",
        code: "INVALID_TRANSITION",
      });
    }
  });

  it("protected statuses (CANCELED, ABORTED, OBSOLETE) are rejected by the domain too", () => {
    for (const status of ["CANCELED", "ABORTED", "OBSOLETE"]) {
      expect(attempt(job(), [{ action: "ModifyPickJob", status }]).err, status).toMatchObject({
        kind: "invalid",
        code: "PROTECTED_STATUS",
        field: "/actions/0/status",
      });
    }
  });

  it("ModifyPickJob replaces preferredPickingMethods, paymentInformation and customAttributes", () => {
    const r = applyPickJobPatch(
      job(),
      [
        {
          action: "ModifyPickJob",
          preferredPickingMethods: ["BATCH"],
          paymentInformation: { currency: "EUR" },
          customAttributes: { x: 1 },
        },
      ],
      ctx,
    );
    expect(r.job).toMatchObject({
      status: "OPEN",
      preferredPickingMethods: ["BATCH"],
      paymentInformation: { currency: "EUR" },
      customAttributes: { x: 1 },
    });
  });

  it("ModifyPickJobLastEditor takes the job over; Restart/Reset/AbortPickJob use the machine", () => {
    const other = { ...ctx, user: { userId: "u2", username: "grace" } };
    const taken = applyPickJobPatch(job(), [{ action: "ModifyPickJobLastEditor" }], other).job;
    expect(taken.editor).toEqual({ userId: "u2", username: "grace" });
    expect(taken.version).toBe(2);

    expect(attempt(job("PAUSED"), [{ action: "RestartPickJob" }]).ok?.job.status).toBe("IN_PROGRESS");
    expect(attempt(job("PICKED"), [{ action: "ResetPickJob" }]).ok?.events).toEqual(["PICK_JOB_RESET"]);
    expect(attempt(job("IN_PROGRESS"), [{ action: "AbortPickJob" }]).ok?.job).toMatchObject({
      status: "ABORTED",
      subStatus: "PICK_JOB_ABORTED",
    });
    expect(attempt(job("OPEN"), [{ action: "RestartPickJob" }]).err?.code).toBe("INVALID_TRANSITION");
  });

  it("several status actions: one version, one event each; a failing one fails the whole patch", () => {
    const r = applyPickJobPatch(
      job("IN_PROGRESS"),
      [{ action: "ModifyPickJob", status: "PAUSED" }, { action: "RestartPickJob" }],
      ctx,
    );
    expect(r.job).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    expect(r.events).toEqual(["PICK_JOB_PAUSED", "PICK_JOB_RESTARTED"]);
    const original = job("IN_PROGRESS");
    const before = structuredClone(original);
    expect(
      attempt(original, [
        { action: "ModifyPickJob", status: "PAUSED" },
        { action: "ResetPickJob" },
        { action: "ResetPickJob" },
      ]).err?.code,
    ).toBe("INVALID_TRANSITION");
    expect(original).toEqual(before);
  });
});
