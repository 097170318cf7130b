import { describe, expect, it } from "vitest";
import {
  addItemReturn,
  allLinesClosed,
  type ItemReturn,
  itemReturnAction,
  patchReturnLine,
  removeItemReturn,
  replaceReturnLines,
} from "./itemreturn.ts";
import { createJob, type ItemReturnJob } from "./job.ts";
import type { JsonObject } from "./types.ts";

let n = 0;
const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => `id${++n}`, shortId: () => "S" };
const job = (): ItemReturnJob =>
  createJob(
    {
      originFacilityRefs: ["f"],
      status: "OPEN",
      consumerAddresses: [{}],
      returnableLineItems: [{ article: { tenantArticleId: "A", title: "T" }, delivered: 2 }],
      notReturnableLineItems: [{ article: { tenantArticleId: "N", title: "T" }, delivered: 1 }],
    },
    c,
  );
const add = (j: ItemReturnJob, lines: JsonObject[], extra: JsonObject = {}) =>
  addItemReturn(
    j,
    {
      itemReturnJobVersion: j.version,
      itemReturnForCreation: { status: "OPEN", returnFacilityRef: "f", returnedLineItems: lines, ...extra },
    },
    c,
  );
const ref = (j: ItemReturnJob) => j.returnableLineItems[0]!.id;
const irOf = (j: ItemReturnJob) => j.itemReturns[0] as unknown as ItemReturn;

describe("addItemReturn", () => {
  it("counts returned lines on the job line (canceled lines and item returns not)", () => {
    const j = job();
    const once = add(j, [{ itemReturnJobLineItemRef: ref(j), status: "OPEN" }]).job;
    expect(once.returnableLineItems[0]).toMatchObject({ returned: 1, returnable: 1 });
    const twice = add(once, [{ itemReturnJobLineItemRef: ref(j), status: "CANCELED" }]).job;
    expect(twice.returnableLineItems[0]).toMatchObject({ returned: 1, returnable: 1 });
    const ir = irOf(twice);
    const canceled = itemReturnAction(
      twice,
      ir.id,
      { name: "CancelItemReturn", itemReturnJobVersion: 3 },
      c,
    ).job;
    expect(canceled.returnableLineItems[0]).toMatchObject({ returned: 0, returnable: 2 });
  });

  it("takes tenantArticleId from the job line and tenantOrderId from the job", () => {
    const j = { ...job(), tenantOrderId: "O-1" };
    const ir = add(j, [{ itemReturnJobLineItemRef: ref(j), status: "OPEN" }]).itemReturn;
    expect(ir.returnedLineItems[0]).toMatchObject({
      tenantArticleId: "A",
      itemReturnJobLineItemRefs: [ref(j)],
    });
    expect(ir.tenantOrderId).toBe("O-1");
  });

  it("400s name the field: wrong list, limits, empty comment; 409 on another job version", () => {
    const j = job();
    const notReturnable = j.notReturnableLineItems[0]!.id;
    expect(() => add(j, [{ itemReturnJobLineItemRef: notReturnable, status: "OPEN" }])).toThrow(
      expect.objectContaining({
        field: "/itemReturnForCreation/returnedLineItems/0/itemReturnJobLineItemRef",
      }),
    );
    expect(() =>
      add(j, [
        {
          itemReturnJobLineItemRef: ref(j),
          status: "OPEN",
          reasons: Array(21).fill({ reasonLocalized: { en: "x" } }),
        },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: "LIMIT_EXCEEDED",
        field: "/itemReturnForCreation/returnedLineItems/0/reasons",
      }),
    );
    expect(() =>
      add(j, [{ itemReturnJobLineItemRef: ref(j), status: "OPEN", itemConditionComment: "" }]),
    ).toThrow(expect.objectContaining({ kind: "invalid" }));
    expect(() => add(j, Array(101).fill({ itemReturnJobLineItemRef: ref(j), status: "OPEN" }))).toThrow(
      expect.objectContaining({ code: "LIMIT_EXCEEDED" }),
    );
    expect(() =>
      addItemReturn(
        j,
        {
          itemReturnJobVersion: 9,
          itemReturnForCreation: { status: "OPEN", returnFacilityRef: "f", returnedLineItems: [] },
        },
        c,
      ),
    ).toThrow(expect.objectContaining({ kind: "version_conflict", requestVersion: 9, version: 1 }));
  });
});

describe("patchReturnLine and the refund rule", () => {
  it("closed lines are final; a refund names price or percent; not-returnable lines have none", () => {
    const j = job();
    const withReturn = add(j, [{ itemReturnJobLineItemRef: ref(j), status: "OPEN" }], {
      returnedNotReturnableLineItems: [
        { itemReturnJobLineItemRef: j.notReturnableLineItems[0]!.id, status: "OPEN" },
      ],
    }).job;
    const ir = irOf(withReturn);
    const lineId = ir.returnedLineItems[0]!.id;
    const accepted = patchReturnLine(
      withReturn,
      ir.id,
      "returned",
      lineId,
      {
        itemReturnJobVersion: 2,
        status: "ACCEPTED",
        refund: { status: "OPEN", price: { value: 5, currency: "EUR" } },
      },
      c,
    );
    expect(accepted.line).toMatchObject({ status: "ACCEPTED", refund: { price: { value: 5 } } });
    expect(() =>
      patchReturnLine(
        accepted.job,
        ir.id,
        "returned",
        lineId,
        { itemReturnJobVersion: 3, status: "OPEN" },
        c,
      ),
    ).toThrow(expect.objectContaining({ kind: "precondition", code: "INVALID_TRANSITION" }));
    expect(() =>
      patchReturnLine(
        accepted.job,
        ir.id,
        "returned",
        lineId,
        { itemReturnJobVersion: 3, refund: { status: "OPEN" } },
        c,
      ),
    ).toThrow(expect.objectContaining({ code: "INVALID_REFUND" }));
    const nr = ir.returnedNotReturnableLineItems[0]!.id;
    expect(() =>
      patchReturnLine(
        accepted.job,
        ir.id,
        "notReturnable",
        nr,
        { itemReturnJobVersion: 3, refund: { status: "OPEN", percent: 1 } },
        c,
      ),
    ).toThrow(expect.objectContaining({ field: "/refund" }));
    expect(allLinesClosed(accepted.job)).toBe(false);
    const done = patchReturnLine(
      accepted.job,
      ir.id,
      "notReturnable",
      nr,
      { itemReturnJobVersion: 3, status: "REJECTED" },
      c,
    );
    expect(allLinesClosed(done.job)).toBe(true);
  });

  it("a job without lines, or whose only item return is canceled, is not all closed", () => {
    expect(allLinesClosed(job())).toBe(false);
    const j = job();
    const added = add(j, [{ itemReturnJobLineItemRef: ref(j), status: "ACCEPTED" }]).job;
    expect(allLinesClosed(added)).toBe(true);
    const canceled = itemReturnAction(
      added,
      irOf(added).id,
      { name: "CancelItemReturn", itemReturnJobVersion: 2 },
      c,
    ).job;
    expect(allLinesClosed(canceled)).toBe(false);
  });
});

describe("replaceReturnLines and removeItemReturn", () => {
  it("replaces one list with 1-100 new lines; removing recounts the job lines", () => {
    const j = job();
    const added = add(j, [{ itemReturnJobLineItemRef: ref(j), status: "OPEN" }]).job;
    const ir = irOf(added);
    const replaced = replaceReturnLines(
      added,
      ir.id,
      "returned",
      {
        itemReturnJobVersion: 2,
        returnedLineItems: [{ itemReturnJobLineItemRef: ref(j), status: "ACCEPTED" }],
      },
      c,
    );
    expect(replaced.itemReturn.returnedLineItems).toEqual([expect.objectContaining({ status: "ACCEPTED" })]);
    expect(replaced.itemReturn.returnedLineItems[0]!.id).not.toBe(ir.returnedLineItems[0]!.id);
    expect(() =>
      replaceReturnLines(added, ir.id, "returned", { itemReturnJobVersion: 2, returnedLineItems: [] }, c),
    ).toThrow(expect.objectContaining({ code: "LINE_ITEMS_REQUIRED" }));
    const removed = removeItemReturn(replaced.job, ir.id, 3, c).job;
    expect(removed.itemReturns).toEqual([]);
    expect(removed.returnableLineItems[0]).toMatchObject({ returned: 0, returnable: 2 });
    expect(() => removeItemReturn(replaced.job, ir.id, 2, c)).toThrow(
      expect.objectContaining({ kind: "version_conflict" }),
    );
    expect(() => removeItemReturn(removed, ir.id, 4, c)).toThrow(
      expect.objectContaining({ kind: "not_found" }),
    );
  });
});
