import { AppError } from "@fop/kit/errors";
import { describe, expect, it } from "vitest";
import { availableSubstitutes, createPickJob } from "./pickjob.ts";
import type { ActionContext, JsonObject } from "./types.ts";

let n = 0;
const ctx: ActionContext & { id: string; shortId: string } = {
  now: new Date("2026-03-01T10:00:00.000Z"),
  user: { userId: "u1", username: "ada" },
  newId: () => `id-${++n}`,
  id: "job-1",
  shortId: "GEN1",
};
const NOW = "2026-03-01T10:00:00.000Z";
const minimal = (over: JsonObject = {}): JsonObject => ({
  facilityRef: "f1",
  orderDate: "2026-03-01T09:00:00.000Z",
  pickLineItems: [{ article: { tenantArticleId: "A", title: "Apple" }, quantity: 2 }],
  ...over,
});
const fail = (input: JsonObject) => {
  try {
    createPickJob(input, ctx);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected an AppError");
};

describe("createPickJob", () => {
  it("fills the read model's server fields and defaults", () => {
    const job = createPickJob(minimal(), ctx);
    expect(job).toMatchObject({
      id: "job-1",
      version: 1,
      created: NOW,
      lastModified: NOW,
      shortId: "GEN1",
      status: "OPEN",
      facilityRef: "f1",
      orderDate: "2026-03-01T09:00:00.000Z",
      deliveryinformation: { channel: "SHIPPING" },
      workflowInformation: { isAvailable: false },
      documentsRef: "documents/job-1",
      documentHandling: { sendLabel: { enabled: false } },
      resetBlocked: false,
      anonymized: false,
      editor: { userId: "u1", username: "ada" },
      usersModificationHistory: [{ modificationDate: NOW, userId: "u1", username: "ada" }],
    });
    expect(job).not.toHaveProperty("subStatus");
    expect(job.pickLineItems).toHaveLength(1);
    expect(job.pickLineItems[0]).toEqual({
      id: expect.stringMatching(/^id-/),
      article: { tenantArticleId: "A", title: "Apple" },
      quantity: 2,
      picked: 0,
      status: "OPEN",
      scannedCodes: [],
    });
  });

  it("keeps given fields, gives every line, recordable attribute and expected line a new id", () => {
    const input = minimal({
      shortId: "MINE",
      tenantOrderId: "T-1",
      customAttributes: { a: 1 },
      deliveryinformation: { targetTime: "2026-03-02T00:00:00.000Z", details: { collect: { paid: true } } },
      workflowInformation: { isAvailable: true, instanceRef: "wf", nodeRef: "n" },
      pickLineItems: [
        {
          article: { tenantArticleId: "A", title: "Apple" },
          quantity: 2,
          recordableAttributes: [{ keyLocalized: { en_US: "origin" }, recordingRule: "MANDATORY" }],
          measurementValidation: { overPickHardTolerancePercentage: 10 },
        },
        { article: { tenantArticleId: "A", title: "Apple" }, quantity: 1 },
      ],
      expectedPickLineItems: [
        { article: { tenantArticleId: "C", title: "Cake" }, quantity: 1, transferId: "t1" },
      ],
    });
    const before = structuredClone(input);
    const job = createPickJob(input, ctx);
    expect(input).toEqual(before); // input untouched
    expect(job).toMatchObject({
      shortId: "MINE",
      tenantOrderId: "T-1",
      customAttributes: { a: 1 },
      deliveryinformation: {
        channel: "SHIPPING",
        targetTime: "2026-03-02T00:00:00.000Z",
        details: { collect: { paid: true } },
      },
      workflowInformation: { isAvailable: true, instanceRef: "wf", nodeRef: "n" },
    });
    const lineIds = job.pickLineItems.map((l) => l.id);
    expect(new Set(lineIds).size).toBe(2);
    expect(job.pickLineItems[0]!.recordableAttributes![0]).toEqual({
      id: expect.stringMatching(/^id-/),
      keyLocalized: { en_US: "origin" },
      recordingRule: "MANDATORY",
    });
    expect(job.pickLineItems[0]!.measurementValidation).toEqual({ overPickHardTolerancePercentage: 10 });
    expect(job.expectedPickLineItems![0]).toMatchObject({
      id: expect.stringMatching(/^id-/),
      transferId: "t1",
    });
    expect(
      createPickJob(minimal({ deliveryinformation: { channel: "COLLECT" } }), ctx).deliveryinformation,
    ).toEqual({
      channel: "COLLECT",
    });
  });

  it("assigned users: a name or an id names both (no user registry yet)", () => {
    const job = createPickJob(minimal({ assignedUsers: [{ username: "grace" }, { userId: "u7" }] }), ctx);
    expect(job.assignedUsers).toEqual([
      { username: "grace", userId: "grace" },
      { username: "u7", userId: "u7" },
    ]);
  });

  it("status on creation: OPEN by default; WAITING_FOR_INPUT, IN_PROGRESS, PAUSED allowed with open lines; the rest 400", () => {
    expect(createPickJob(minimal(), ctx).status).toBe("OPEN");
    for (const status of ["OPEN", "WAITING_FOR_INPUT", "IN_PROGRESS", "PAUSED"]) {
      const created = createPickJob(minimal({ status }), ctx);
      expect(created.status).toBe(status);
      expect(created.pickLineItems.every((l) => l.status === "OPEN" && l.picked === 0)).toBe(true);
    }
    for (const status of [
      "PICKED",
      "CLOSED",
      "ABORTED",
      "CANCELED",
      "OBSOLETE",
      "REROUTED",
      "REJECTED",
      "RESTOWED",
      "EXPIRED",
    ]) {
      const e = fail(minimal({ status }));
      expect(e).toMatchObject({ kind: "invalid", code: "STATUS_NOT_ALLOWED_ON_CREATION", field: "/status" });
      expect(e.description).toContain("OPEN, WAITING_FOR_INPUT, IN_PROGRESS, PAUSED");
    }
  });

  it("tags together with processId is 400; either alone is fine", () => {
    const tags = [{ id: "t", value: "v" }];
    expect(fail(minimal({ tags, processId: "p1" }))).toMatchObject({
      kind: "invalid",
      code: "TAGS_WITH_PROCESS",
      field: "/tags",
    });
    expect(createPickJob(minimal({ tags }), ctx).tags).toEqual(tags);
    expect(createPickJob(minimal({ processId: "p1" }), ctx).processId).toBe("p1");
  });

  it("an empty pick job is allowed (pickLineItems minItems 0)", () => {
    expect(createPickJob(minimal({ pickLineItems: [] }), ctx).pickLineItems).toEqual([]);
  });
});

describe("availableSubstitutes", () => {
  const job = createPickJob(
    minimal({
      pickLineItems: [
        {
          article: { tenantArticleId: "A", title: "Apple" },
          quantity: 2,
          allowedSubstitutes: [
            { tenantArticleId: "S-none", title: "no priority" },
            { tenantArticleId: "S-5", title: "five", priority: 5 },
            { tenantArticleId: "S-0", title: "zero", priority: 0 },
            { tenantArticleId: "S-2", title: "two", priority: 2 },
          ],
        },
        { article: { tenantArticleId: "B", title: "Bread" }, quantity: 1 },
      ],
    }),
    ctx,
  );

  it("lists the line's substitutes by priority, those without one last", () => {
    const r = availableSubstitutes(job, job.pickLineItems[0]!.id);
    expect(r.tenantArticleId).toBe("A");
    expect(r.substitutes.map((s) => s.tenantArticleId)).toEqual(["S-0", "S-2", "S-5", "S-none"]);
    expect(availableSubstitutes(job, job.pickLineItems[1]!.id)).toEqual({
      tenantArticleId: "B",
      substitutes: [],
    });
  });

  it("an unknown line is 404", () => {
    expect(() => availableSubstitutes(job, "nope")).toThrow(
      expect.objectContaining({ kind: "not_found", code: "PICK_LINE_ITEM_NOT_FOUND" }),
    );
  });
});
