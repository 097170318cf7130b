/**
 * Each of the 15 pick job actions (plus the two internal pick-run ones): a happy path and an invalid
 * case. The status machine itself is covered by lifecycle.test.ts.
 */
import { AppError } from "@fop/kit/errors";
import { describe, expect, it } from "vitest";
import { applyPickJobAction } from "./lifecycle.ts";
import { createPickJob } from "./pickjob.ts";
import type { ActionContext, PickJob, PickJobStatus } from "./types.ts";

let n = 0;
const ctx: ActionContext = {
  now: new Date("2026-03-01T10:00:00.000Z"),
  user: { userId: "u1", username: "ada" },
  newId: () => `id-${++n}`,
};
const NOW = ctx.now.toISOString();

function job(status: PickJobStatus = "IN_PROGRESS", over: Partial<PickJob> = {}): PickJob {
  const j = createPickJob(
    {
      facilityRef: "f1",
      orderDate: "2026-03-01T09:00:00.000Z",
      pickLineItems: [
        {
          article: { tenantArticleId: "A", title: "Apple" },
          quantity: 4,
          allowedSubstitutes: [
            {
              tenantArticleId: "A2",
              title: "Green apple",
              imageUrl: "https://img/a2",
              priority: 1,
              attributes: [{ key: "k", value: "v" }],
            },
          ],
          partialStockLocations: [{ tenantPartialStockId: "p1", stockRef: "s1", quantity: 4 }],
          recordableAttributes: [{ keyLocalized: { en_US: "origin" }, recordingRule: "OPTIONAL" }],
        },
        {
          article: { tenantArticleId: "B", title: "Bread" },
          quantity: 2,
          recordableAttributes: [{ keyLocalized: { en_US: "batch" }, recordingRule: "MANDATORY" }],
        },
      ],
    },
    { ...ctx, id: "job-1", shortId: "ABC123" },
  );
  return { ...j, status, ...over };
}
const ids = (j: PickJob) => j.pickLineItems.map((l) => l.id) as [string, string];

function attempt(j: PickJob, action: Record<string, unknown>) {
  try {
    return { ok: applyPickJobAction(j, action as never, ctx) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { err };
  }
}
const apply = (j: PickJob, action: Record<string, unknown>) => applyPickJobAction(j, action as never, ctx);

describe("status actions", () => {
  it("START / PAUSE / RESTART / RESET / ABORT / CANCEL / OBSOLETE / CLOSE: happy paths and their events", () => {
    const started = apply(job("OPEN"), { name: "START", version: 1 });
    expect([started.job.status, started.event]).toEqual(["IN_PROGRESS", "PICK_JOB_STARTED"]);
    const paused = apply(started.job, { name: "PAUSE", version: 2 });
    expect([paused.job.status, paused.event]).toEqual(["PAUSED", "PICK_JOB_PAUSED"]);
    const restarted = apply(paused.job, { name: "RESTART", version: 3 });
    expect([restarted.job.status, restarted.event]).toEqual(["IN_PROGRESS", "PICK_JOB_RESTARTED"]);
    const reset = apply(restarted.job, { name: "RESET", version: 4 });
    expect([reset.job.status, reset.event]).toEqual(["OPEN", "PICK_JOB_RESET"]);
    const aborted = apply(reset.job, { name: "ABORT", version: 5 });
    expect([aborted.job.status, aborted.event]).toEqual(["ABORTED", "PICK_JOB_ABORTED"]);
    const obsolete = apply(aborted.job, { name: "OBSOLETE", version: 6 });
    expect([obsolete.job.status, obsolete.event]).toEqual(["OBSOLETE", "PICK_JOB_OBSOLETE"]);
    expect(obsolete.job.version).toBe(7);
    const canceled = apply(job("PAUSED"), { name: "CANCEL", version: 1 });
    expect([canceled.job.status, canceled.event]).toEqual(["CANCELED", "PICK_JOB_CANCELED"]);
    const picked = job("PICKED");
    picked.pickLineItems = picked.pickLineItems.map((l) => ({ ...l, picked: l.quantity }));
    const closed = apply(picked, { name: "CLOSE", version: 1 });
    expect([closed.job.status, closed.event]).toEqual(["CLOSED", "PICK_JOB_CLOSED"]);
  });

  it("and each is refused where the machine does not allow it", () => {
    for (const [name, status] of [
      ["START", "IN_PROGRESS"],
      ["PAUSE", "PAUSED"],
      ["RESTART", "OPEN"],
      ["RESET", "OPEN"],
      ["ABORT", "CLOSED"],
      ["CANCEL", "ABORTED"],
      ["OBSOLETE", "CANCELED"],
      ["CLOSE", "PAUSED"],
    ] as const) {
      expect(attempt(job(status), { name, version: 1 }).err?.code, `${name} from ${status}`).toBe(
        "INVALID_TRANSITION",
      );
    }
  });
});

describe("PICK", () => {
  it("records absolute picks and the pick details, closes the named lines and sets PICKED", () => {
    const j = job();
    const [a, b] = ids(j);
    const r = apply(j, {
      name: "PICK",
      version: 1,
      lineItems: [
        {
          id: a,
          picked: 3,
          scannedCodes: [{ code: "400", quantity: 3 }],
          stickers: [{ key: "s", nameLocalized: { en_US: "S" }, priority: 1 }],
          stockEmptied: true,
          customAttributes: { c: 1 },
          shortPickReason: { reasonLocalized: { de_DE: "kaputt", en_US: "broken" } },
          partialStockLocations: [{ tenantPartialStockId: "p1", picked: 3, stockEmptied: true }],
        },
      ],
    });
    expect(r.event).toBe("PICK_JOB_PICKED");
    expect(r.job.status).toBe("PICKED");
    expect(r.job.pickLineItems[0]).toMatchObject({
      picked: 3,
      status: "CLOSED",
      pickedAt: NOW,
      scannedCodes: [{ code: "400", quantity: 3 }],
      stockEmptied: true,
      customAttributes: { c: 1 },
      shortPickReason: { reasonLocalized: { de_DE: "kaputt", en_US: "broken" }, reason: "broken" },
      partialStockLocations: [
        { tenantPartialStockId: "p1", stockRef: "s1", quantity: 4, picked: 3, stockEmptied: true },
      ],
    });
    expect(r.job.pickLineItems[1]).toMatchObject({ id: b, picked: 0, status: "OPEN" });
    // Absolute, not additive; pickedAt as given.
    const again = apply(j, {
      name: "PICK",
      version: 1,
      lineItems: [{ id: a, picked: 1, pickedAt: "2026-03-01T09:59:00.000Z" }],
    });
    expect(again.job.pickLineItems[0]).toMatchObject({ picked: 1, pickedAt: "2026-03-01T09:59:00.000Z" });
  });

  it("short-pick reason without en_US takes the first text", () => {
    const j = job();
    const r = apply(j, {
      name: "PICK",
      version: 1,
      lineItems: [{ id: ids(j)[0], picked: 1, shortPickReason: { reasonLocalized: { de_DE: "kaputt" } } }],
    });
    expect(r.job.pickLineItems[0]!.shortPickReason).toEqual({
      reasonLocalized: { de_DE: "kaputt" },
      reason: "kaputt",
    });
  });

  it("unknown line -> 400 naming /lineItems/i/id; unknown stock location -> 400; over pick -> 422", () => {
    const j = job();
    const [a] = ids(j);
    expect(
      attempt(j, {
        name: "PICK",
        version: 1,
        lineItems: [
          { id: a, picked: 1 },
          { id: "nope", picked: 1 },
        ],
      }).err,
    ).toMatchObject({ kind: "invalid", code: "UNKNOWN_PICK_LINE_ITEM", field: "/lineItems/1/id" });
    expect(
      attempt(j, {
        name: "PICK",
        version: 1,
        lineItems: [{ id: a, picked: 1, partialStockLocations: [{ tenantPartialStockId: "zz", picked: 1 }] }],
      }).err,
    ).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_PARTIAL_STOCK_LOCATION",
      field: "/lineItems/0/partialStockLocations/0/tenantPartialStockId",
    });
    expect(attempt(j, { name: "PICK", version: 1, lineItems: [{ id: a, picked: 5 }] }).err).toMatchObject({
      kind: "precondition",
      code: "OVERPICK_NOT_ALLOWED",
    });
  });

  it("substitutes: upsert by id, article from the allowed substitute, must be allowed", () => {
    const j = job();
    const [a] = ids(j);
    const r = apply(j, {
      name: "PICK",
      version: 1,
      lineItems: [
        { id: a, picked: 0, substituteLineItems: [{ tenantArticleId: "A2", quantity: 4, picked: 4 }] },
      ],
    });
    const sub = r.job.pickLineItems[0]!.substituteLineItems![0]!;
    expect(sub).toMatchObject({
      article: {
        tenantArticleId: "A2",
        title: "Green apple",
        imageUrl: "https://img/a2",
        attributes: [{ key: "k", value: "v" }],
      },
      quantity: 4,
      picked: 4,
      pickedAt: NOW,
      priority: 1,
    });
    expect(sub.id).toMatch(/^id-/);
    // Update by id, in a later MODIFY.
    const upd = apply(
      { ...r.job, status: "IN_PROGRESS" },
      {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version: 2,
        pickJobLineItemUpdates: [
          { id: a, substituteLineItems: [{ id: sub.id, tenantArticleId: "A2", quantity: 4, picked: 2 }] },
        ],
      },
    );
    expect(upd.job.pickLineItems[0]!.substituteLineItems).toHaveLength(1);
    expect(upd.job.pickLineItems[0]!.substituteLineItems![0]).toMatchObject({ id: sub.id, picked: 2 });

    expect(
      attempt(j, {
        name: "PICK",
        version: 1,
        lineItems: [{ id: a, picked: 0, substituteLineItems: [{ tenantArticleId: "ZZ", quantity: 1 }] }],
      }).err,
    ).toMatchObject({ kind: "precondition", code: "SUBSTITUTE_NOT_ALLOWED" });
    expect(
      attempt(j, {
        name: "PICK",
        version: 1,
        lineItems: [
          { id: a, picked: 0, substituteLineItems: [{ id: "x", tenantArticleId: "A2", quantity: 1 }] },
        ],
      }).err,
    ).toMatchObject({ kind: "invalid", code: "UNKNOWN_SUBSTITUTE_LINE_ITEM" });
    expect(
      attempt(j, {
        name: "PICK",
        version: 1,
        lineItems: [
          { id: a, picked: 0, substituteLineItems: [{ tenantArticleId: "A2", quantity: 1, picked: 2 }] },
        ],
      }).err,
    ).toMatchObject({ kind: "precondition", code: "OVERPICK_NOT_ALLOWED" });
  });
});

describe("MODIFY_PICK_JOB_LINE_ITEMS", () => {
  it("updates lines incl. their status, never the job's", () => {
    const j = job();
    const [a, b] = ids(j);
    const r = apply(j, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 1,
      pickJobLineItemUpdates: [
        { id: a, picked: 2, status: "CLOSED" },
        { id: b, secondaryPicked: 0, customAttributes: null },
      ],
    });
    expect(r.event).toBe("PICK_JOB_UPDATED");
    expect(r.job.status).toBe("IN_PROGRESS");
    expect(r.job.pickLineItems[0]).toMatchObject({ picked: 2, status: "CLOSED", pickedAt: NOW });
    expect(r.job.pickLineItems[1]).toMatchObject({
      status: "OPEN",
      secondaryPicked: 0,
      customAttributes: null,
    });
  });

  it("unknown line -> 400 /pickJobLineItemUpdates/i/id; CLOSED job -> 422", () => {
    const j = job();
    expect(
      attempt(j, {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version: 1,
        pickJobLineItemUpdates: [{ id: "x", picked: 1 }],
      }).err,
    ).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_PICK_LINE_ITEM",
      field: "/pickJobLineItemUpdates/0/id",
    });
    expect(
      attempt(job("CLOSED"), {
        name: "MODIFY_PICK_JOB_LINE_ITEMS",
        version: 1,
        pickJobLineItemUpdates: [{ id: ids(j)[0], picked: 1 }],
      }).err?.code,
    ).toBe("INVALID_TRANSITION");
  });
});

describe("SPLIT_LINE_ITEMS_PICK_JOB", () => {
  it("takes quantity and picked off the source into a new line with originId", () => {
    const j = job();
    const [a] = ids(j);
    j.pickLineItems[0]!.picked = 3;
    const r = apply(j, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 1,
      splitLineItemsInfo: [{ lineItemId: a, quantity: 3, picked: 2 }],
    });
    expect(r.event).toBe("PICK_JOB_UPDATED");
    expect(r.job.pickLineItems.map((l) => [l.quantity, l.picked])).toEqual([
      [1, 1],
      [2, 0],
      [3, 2],
    ]);
    const part = r.job.pickLineItems[2]!;
    expect(part.originId).toBe(a);
    expect(part.id).not.toBe(a);
    expect(part.article).toEqual(j.pickLineItems[0]!.article);
    const origAttr = j.pickLineItems[0]!.recordableAttributes![0]!;
    expect(part.recordableAttributes![0]).toMatchObject({ originId: origAttr.id });
    expect(part.recordableAttributes![0]!.id).not.toBe(origAttr.id);
    // A split of a split keeps the first origin.
    const again = apply(r.job, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 2,
      splitLineItemsInfo: [{ lineItemId: part.id, quantity: 1, picked: 0 }],
    });
    expect(again.job.pickLineItems[3]!.originId).toBe(a);
  });

  it("divides secondary quantity and picks in proportion: the parts add up to the line", () => {
    const j = job();
    const [a] = ids(j);
    Object.assign(j.pickLineItems[0]!, { quantity: 4, picked: 2, secondaryQuantity: 10, secondaryPicked: 5 });
    const r = apply(j, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 1,
      splitLineItemsInfo: [{ lineItemId: a, quantity: 2, picked: 1 }],
    });
    const source = r.job.pickLineItems[0]!;
    const part = r.job.pickLineItems.at(-1)!;
    expect([part.secondaryQuantity, part.secondaryPicked]).toEqual([5, 2]);
    expect([source.secondaryQuantity, source.secondaryPicked]).toEqual([5, 3]);
  });

  it("the source must keep quantity >= 1 and picked within 0..quantity (400 naming the info)", () => {
    const j = job();
    const [a] = ids(j);
    j.pickLineItems[0]!.picked = 4;
    const cases: [Record<string, unknown>, string][] = [
      [{ lineItemId: a, quantity: 4, picked: 0 }, "/splitLineItemsInfo/0/quantity"],
      [{ lineItemId: a, quantity: 1, picked: 2 }, "/splitLineItemsInfo/0/picked"], // part over-picked
      [{ lineItemId: a, quantity: 2, picked: 0 }, "/splitLineItemsInfo/0/picked"], // source would keep 4 of 2
      [{ lineItemId: "x", quantity: 1, picked: 0 }, "/splitLineItemsInfo/0/lineItemId"],
    ];
    for (const [info, field] of cases) {
      const r = attempt(j, { name: "SPLIT_LINE_ITEMS_PICK_JOB", version: 1, splitLineItemsInfo: [info] });
      expect(r.err, JSON.stringify(info)).toMatchObject({ kind: "invalid", field });
    }
    const none = structuredClone(j);
    none.pickLineItems[0]!.picked = 0;
    expect(
      attempt(none, {
        name: "SPLIT_LINE_ITEMS_PICK_JOB",
        version: 1,
        splitLineItemsInfo: [{ lineItemId: a, quantity: 1, picked: 1 }],
      }).err?.field,
    ).toBe("/splitLineItemsInfo/0/picked");
  });
});

describe("MERGE_LINE_ITEMS_PICK_JOB", () => {
  it("merges lines of one article into the first: quantities and picks summed, others removed", () => {
    const j = job();
    const [a] = ids(j);
    j.pickLineItems[0]!.picked = 1;
    const split = apply(j, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 1,
      splitLineItemsInfo: [{ lineItemId: a, quantity: 2, picked: 1 }],
    }).job;
    split.pickLineItems[2]!.picked = 2;
    const merged = apply(split, {
      name: "MERGE_LINE_ITEMS_PICK_JOB",
      version: 2,
      lineItemIds: [a, split.pickLineItems[2]!.id],
    });
    expect(merged.event).toBe("PICK_JOB_UPDATED");
    expect(merged.job.pickLineItems.map((l) => [l.id, l.quantity, l.picked])).toEqual([
      [a, 4, 2],
      [ids(j)[1], 2, 0],
    ]);
  });

  it("different articles -> 422; unknown or repeated ids, fewer than two -> 400", () => {
    const j = job();
    const [a, b] = ids(j);
    expect(
      attempt(j, { name: "MERGE_LINE_ITEMS_PICK_JOB", version: 1, lineItemIds: [a, b] }).err,
    ).toMatchObject({
      kind: "precondition",
      code: "MERGE_ARTICLE_MISMATCH",
    });
    expect(
      attempt(j, { name: "MERGE_LINE_ITEMS_PICK_JOB", version: 1, lineItemIds: [a, "x"] }).err,
    ).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_PICK_LINE_ITEM",
      field: "/lineItemIds/1",
    });
    expect(
      attempt(j, { name: "MERGE_LINE_ITEMS_PICK_JOB", version: 1, lineItemIds: [a, a] }).err,
    ).toMatchObject({
      kind: "invalid",
      code: "INVALID_MERGE",
    });
    expect(attempt(j, { name: "MERGE_LINE_ITEMS_PICK_JOB", version: 1, lineItemIds: [a] }).err?.code).toBe(
      "INVALID_MERGE",
    );
  });
});

describe("UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES", () => {
  it("updates attributes by id across lines, only the given fields", () => {
    const j = job();
    const ra = j.pickLineItems[0]!.recordableAttributes![0]!;
    const rb = j.pickLineItems[1]!.recordableAttributes![0]!;
    const r = apply(j, {
      name: "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
      version: 1,
      recordableAttributeUpdates: [
        { recordableAttributeId: ra.id, value: "NZ" },
        {
          recordableAttributeId: rb.id,
          group: "g",
          recordingRule: "OPTIONAL",
          keyLocalized: { de_DE: "Charge" },
        },
      ],
    });
    expect(r.event).toBe("PICK_JOB_UPDATED");
    expect(r.job.pickLineItems[0]!.recordableAttributes![0]).toEqual({ ...ra, value: "NZ" });
    expect(r.job.pickLineItems[1]!.recordableAttributes![0]).toEqual({
      ...rb,
      group: "g",
      recordingRule: "OPTIONAL",
      keyLocalized: { de_DE: "Charge" },
    });
    expect(j.pickLineItems[0]!.recordableAttributes![0]!.value).toBeUndefined(); // input untouched
  });

  it("unknown attribute id -> 400", () => {
    expect(
      attempt(job(), {
        name: "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
        version: 1,
        recordableAttributeUpdates: [{ recordableAttributeId: "x", value: "v" }],
      }).err,
    ).toMatchObject({
      kind: "invalid",
      code: "UNKNOWN_RECORDABLE_ATTRIBUTE",
      field: "/recordableAttributeUpdates/0/recordableAttributeId",
    });
  });
});

describe("REPLACE_ASSIGNED_USERS", () => {
  it("replaces the users, each name/id filling the other", () => {
    const r = apply(job("OPEN", { assignedUsers: [{ username: "old", userId: "old" }] }), {
      name: "REPLACE_ASSIGNED_USERS",
      version: 1,
      assignedUsers: [{ username: "g" }, { userId: "u9" }],
    });
    expect(r.event).toBe("PICK_JOB_UPDATED");
    expect(r.job.assignedUsers).toEqual([
      { username: "g", userId: "g" },
      { username: "u9", userId: "u9" },
    ]);
  });

  it("not on a terminal job", () => {
    expect(
      attempt(job("CANCELED"), {
        name: "REPLACE_ASSIGNED_USERS",
        version: 1,
        assignedUsers: [{ username: "g" }],
      }).err?.code,
    ).toBe("INVALID_TRANSITION");
  });
});

describe("ADD_TARGET_TIME", () => {
  it("sets the target time once; a second time is 422", () => {
    const r = apply(job("OPEN"), {
      name: "ADD_TARGET_TIME",
      version: 1,
      targetTime: "2026-03-02T00:00:00.000Z",
    });
    expect(r.event).toBe("PICK_JOB_UPDATED");
    expect(r.job.deliveryinformation).toEqual({
      channel: "SHIPPING",
      targetTime: "2026-03-02T00:00:00.000Z",
    });
    expect(
      attempt(r.job, { name: "ADD_TARGET_TIME", version: 2, targetTime: "2026-03-03T00:00:00.000Z" }).err,
    ).toMatchObject({ kind: "precondition", code: "TARGET_TIME_ALREADY_SET" });
  });
});

describe("internal pick-run actions", () => {
  it("ATTACH_PICK_RUN sets pickRunRef once (same run again is fine), DETACH_PICK_RUN removes it", () => {
    const attached = apply(job("OPEN"), { name: "ATTACH_PICK_RUN", version: 1, pickRunRef: "run-1" });
    expect(attached.event).toBe("PICK_JOB_UPDATED");
    expect(attached.job.pickRunRef).toBe("run-1");
    expect(
      apply(attached.job, { name: "ATTACH_PICK_RUN", version: 2, pickRunRef: "run-1" }).job.pickRunRef,
    ).toBe("run-1");
    expect(
      attempt(attached.job, { name: "ATTACH_PICK_RUN", version: 2, pickRunRef: "run-2" }).err,
    ).toMatchObject({
      kind: "precondition",
      code: "ALREADY_IN_PICK_RUN",
    });
    const detached = apply({ ...attached.job, status: "CLOSED" }, { name: "DETACH_PICK_RUN", version: 2 });
    expect(detached.job).not.toHaveProperty("pickRunRef");
    expect(detached.event).toBe("PICK_JOB_UPDATED");
  });

  it("ATTACH_PICK_RUN only for OPEN, IN_PROGRESS or PAUSED jobs", () => {
    expect(attempt(job("PICKED"), { name: "ATTACH_PICK_RUN", version: 1, pickRunRef: "r" }).err?.code).toBe(
      "INVALID_TRANSITION",
    );
  });
});
