import { AppError } from "@fop/kit/errors";
import { describe, expect, it } from "vitest";
import { applyPickJobAction } from "./lifecycle.ts";
import { createPickJob } from "./pickjob.ts";
import { checkPicked } from "./tolerance.ts";
import type { ActionContext, JsonObject, PickJob, PickLineItem } from "./types.ts";

const MV = {
  overPickHardTolerancePercentage: 20,
  overPickSoftTolerancePercentage: 10,
  shortPickHardTolerancePercentage: 30,
  shortPickSoftTolerancePercentage: 10,
};
const line = (over: Partial<PickLineItem> = {}): PickLineItem => ({
  id: "l1",
  article: { tenantArticleId: "A", title: "Apple" },
  quantity: 10,
  picked: 0,
  status: "IN_PROGRESS",
  measurementValidation: MV,
  ...over,
});
const code = (fn: () => unknown) => {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.kind).toBe("precondition");
    return e.code;
  }
};

describe("checkPicked", () => {
  it("over pick: within soft ok, soft..hard accepted as soft, above hard 422", () => {
    expect(checkPicked(line(), 10, undefined, false)).toEqual({ soft: false });
    expect(checkPicked(line(), 11, undefined, false)).toEqual({ soft: false });
    expect(checkPicked(line(), 12, undefined, false)).toEqual({ soft: true });
    expect(code(() => checkPicked(line(), 13, undefined, false))).toBe("OVERPICK_TOLERANCE_EXCEEDED");
  });

  it("the hard over-pick message names the line, the pick, the quantity and the allowed max", () => {
    try {
      checkPicked(line(), 13, undefined, false);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).description).toBe(
        "Line l1: picked 13 of 10 is 30 % over; at most 20 % is allowed (picked at most 12).",
      );
    }
  });

  it("a line without measurementValidation may not be over-picked, but may be short-picked", () => {
    const plain = line({ measurementValidation: undefined });
    expect(code(() => checkPicked(plain, 11, undefined, false))).toBe("OVERPICK_NOT_ALLOWED");
    expect(checkPicked(plain, 10, undefined, true)).toEqual({ soft: false });
    expect(checkPicked(plain, 0, undefined, true)).toEqual({ soft: false });
  });

  it("a measurementValidation without an over-pick hard tolerance allows no over pick", () => {
    const shortOnly = line({ measurementValidation: { shortPickHardTolerancePercentage: 50 } });
    expect(code(() => checkPicked(shortOnly, 11, undefined, false))).toBe("OVERPICK_TOLERANCE_EXCEEDED");
  });

  it("short pick: only judged when closing; above hard 422, soft..hard accepted as soft", () => {
    expect(checkPicked(line(), 5, undefined, false)).toEqual({ soft: false });
    expect(code(() => checkPicked(line(), 6, undefined, true))).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    expect(checkPicked(line(), 7, undefined, true)).toEqual({ soft: true });
    expect(checkPicked(line(), 9, undefined, true)).toEqual({ soft: false });
    expect(checkPicked(line(), 10, undefined, true)).toEqual({ soft: false });
  });

  it("no short-pick tolerance: any short pick is the normal short-pick flow", () => {
    const overOnly = line({ measurementValidation: { overPickHardTolerancePercentage: 5 } });
    expect(checkPicked(overOnly, 0, undefined, true)).toEqual({ soft: false });
  });

  it("the secondary pair (e.g. grams) is measured against secondaryQuantity", () => {
    const weighed = line({ quantity: 1, secondaryQuantity: 500 });
    expect(checkPicked(weighed, 1, 540, false)).toEqual({ soft: false });
    expect(checkPicked(weighed, 1, 590, false)).toEqual({ soft: true });
    expect(code(() => checkPicked(weighed, 1, 610, false))).toBe("OVERPICK_TOLERANCE_EXCEEDED");
    expect(checkPicked(weighed, 1, 300, false)).toEqual({ soft: false });
    expect(code(() => checkPicked(weighed, 1, 300, true))).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    // Without a secondaryQuantity the secondary pick is not judged.
    expect(checkPicked(line({ quantity: 1 }), 1, 9999, true)).toEqual({ soft: false });
  });
});

describe("tolerances in the actions", () => {
  let n = 0;
  const ctx: ActionContext = {
    now: new Date("2026-03-01T10:00:00.000Z"),
    user: { userId: "u1", username: "ada" },
    newId: () => `id-${++n}`,
  };
  const job = (): PickJob => ({
    ...createPickJob(
      {
        facilityRef: "f1",
        orderDate: "2026-03-01T09:00:00.000Z",
        pickLineItems: [
          {
            article: { tenantArticleId: "A", title: "Apple" },
            quantity: 10,
            secondaryQuantity: 500,
            measurementValidation: MV,
          },
          { article: { tenantArticleId: "B", title: "Bread" }, quantity: 2 },
        ],
      },
      { ...ctx, id: "job-1", shortId: "S1" },
    ),
    status: "IN_PROGRESS",
  });
  const run = (j: PickJob, action: JsonObject) => {
    try {
      return applyPickJobAction(j, action, ctx).job;
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return e.code;
    }
  };

  it("PICK judges over and short picks of the lines it closes", () => {
    const j = job();
    const [a] = j.pickLineItems.map((l) => l.id);
    const pick = (item: JsonObject) => run(j, { name: "PICK", version: 1, lineItems: [item] });
    expect(pick({ id: a!, picked: 13 })).toBe("OVERPICK_TOLERANCE_EXCEEDED");
    expect(pick({ id: a!, picked: 6 })).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    expect(pick({ id: a!, picked: 12 })).toMatchObject({ status: "PICKED" });
    expect(pick({ id: a!, picked: 10, secondaryPicked: 610 })).toBe("OVERPICK_TOLERANCE_EXCEEDED");
    expect(pick({ id: a!, picked: 10, secondaryPicked: 300 })).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    expect(pick({ id: a!, picked: 10, secondaryPicked: 450 })).toMatchObject({ status: "PICKED" });
  });

  it("MODIFY judges short picks only when the line is closed", () => {
    const j = job();
    const [a] = j.pickLineItems.map((l) => l.id);
    const modify = (item: JsonObject) =>
      run(j, { name: "MODIFY_PICK_JOB_LINE_ITEMS", version: 1, pickJobLineItemUpdates: [item] });
    expect(modify({ id: a!, picked: 2 })).toMatchObject({ status: "IN_PROGRESS" });
    expect(modify({ id: a!, picked: 2, status: "CLOSED" })).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    expect(modify({ id: a!, picked: 11 })).toMatchObject({ status: "IN_PROGRESS" });
  });

  it("CLOSE judges the lines it closes, unless nothing was picked at all (then it aborts)", () => {
    const j = job();
    j.pickLineItems[1]!.picked = 2;
    j.pickLineItems[0]!.picked = 5;
    expect(run(j, { name: "CLOSE", version: 1 })).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    j.pickLineItems[0]!.picked = 8;
    expect(run(j, { name: "CLOSE", version: 1 })).toMatchObject({
      status: "CLOSED",
      subStatus: "SHORT_PICKED",
    });
    expect(run(job(), { name: "CLOSE", version: 1 })).toMatchObject({
      status: "ABORTED",
      subStatus: "ZERO_PICKED",
    });
  });
});
