import { describe, expect, it } from "vitest";
import { createJob, type ItemReturnJob, JOB_LIMITS, jobAction } from "./job.ts";
import type { JsonObject } from "./types.ts";

let n = 0;
const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => `id${++n}`, shortId: () => "SHORT1" };
const later = { now: new Date("2026-11-25T11:00:00.000Z"), newId: () => `id${++n}` };
const line = (i: number, extra: JsonObject = {}): JsonObject => ({
  article: { tenantArticleId: `A${i}`, title: `T${i}` },
  delivered: 3,
  ...extra,
});
const input = (extra: JsonObject = {}): JsonObject => ({
  originFacilityRefs: ["f1", "f1"],
  status: "OPEN",
  consumerAddresses: [{ street: "s", city: "c", postalCode: "1", country: "DE" }],
  returnableLineItems: [line(1), line(2)],
  ...extra,
});
const err = (kind: string, code?: string) => expect.objectContaining(code ? { kind, code } : { kind });

describe("createJob", () => {
  it("takes the status given, generates ids, shortId and processRef, counts nothing returned", () => {
    const job = createJob(input({ notReturnableLineItems: [line(3)], tenantOrderId: "O1" }), c);
    expect(job).toMatchObject({
      version: 1,
      status: "OPEN",
      shortId: "SHORT1",
      processRef: expect.stringMatching(/^id/),
      originFacilityRefs: ["f1"],
      itemReturns: [],
      anonymized: false,
      tenantOrderId: "O1",
      created: "2026-11-25T10:00:00.000Z",
    });
    expect(job.returnableLineItems[0]).toEqual({
      id: expect.stringMatching(/^id/),
      article: { tenantArticleId: "A1", title: "T1" },
      delivered: 3,
      returnable: 3,
      returned: 0,
    });
    expect(job.notReturnableLineItems[0]).toMatchObject({ returnable: 0, returned: 0 });
    expect(createJob(input({ shortId: "MINE", processRef: "P" }), c)).toMatchObject({
      shortId: "MINE",
      processRef: "P",
    });
  });

  it("enforces the limits: at the limit accepted, one over rejected", () => {
    const many = (k: number) => Array.from({ length: k }, (_, i) => line(i));
    expect(
      createJob(input({ returnableLineItems: many(JOB_LIMITS.lineItems) }), c).returnableLineItems,
    ).toHaveLength(100);
    for (const [body, field] of [
      [input({ returnableLineItems: many(101) }), "/returnableLineItems"],
      [input({ notReturnableLineItems: many(101) }), "/notReturnableLineItems"],
      [input({ consumerAddresses: [] }), "/consumerAddresses"],
      [input({ consumerAddresses: Array(6).fill({}) }), "/consumerAddresses"],
      [input({ originFacilityRefs: Array.from({ length: 51 }, (_, i) => `f${i}`) }), "/originFacilityRefs"],
      [input({ scannableCodes: Array(51).fill("x") }), "/scannableCodes"],
      [
        input({ returnableLineItems: [line(1, { scannableCodes: Array(51).fill("x") })] }),
        "/returnableLineItems/0/scannableCodes",
      ],
      [
        input({
          returnableLineItems: [line(1, { recordableAttributes: Array(51).fill({ keyLocalized: {} }) })],
        }),
        "/returnableLineItems/0/recordableAttributes",
      ],
    ] as const) {
      expect(() => createJob(body, c), field).toThrow(
        expect.objectContaining({ code: "LIMIT_EXCEEDED", field }),
      );
    }
  });

  it("400 for a bad status, quantity or article", () => {
    expect(() => createJob(input({ status: "DONE" }), c)).toThrow(err("invalid", "INVALID_STATUS"));
    expect(() => createJob(input({ returnableLineItems: [line(1, { delivered: 0 })] }), c)).toThrow(
      expect.objectContaining({ code: "INVALID_QUANTITY", field: "/returnableLineItems/0/delivered" }),
    );
    expect(() => createJob(input({ returnableLineItems: [line(1, { delivered: 1.5 })] }), c)).toThrow(
      err("invalid"),
    );
    expect(() =>
      createJob(input({ returnableLineItems: [{ delivered: 1, article: { title: "x" } }] }), c),
    ).toThrow(err("invalid", "ARTICLE_REQUIRED"));
  });
});

describe("jobAction", () => {
  const job = (): ItemReturnJob => createJob(input(), c);

  it("status actions follow the table; version + 1, lastModified", () => {
    const started = jobAction(job(), { name: "StartItemReturnJob", version: 1 }, later);
    expect(started).toMatchObject({
      status: "IN_PROGRESS",
      version: 2,
      lastModified: "2026-11-25T11:00:00.000Z",
    });
    expect(() => jobAction(started, { name: "StartItemReturnJob", version: 2 }, later)).toThrow(
      err("precondition", "INVALID_TRANSITION"),
    );
  });

  it("names the current version: 400 without, 409 on another", () => {
    expect(() => jobAction(job(), { name: "StartItemReturnJob" }, later)).toThrow(
      err("invalid", "VERSION_REQUIRED"),
    );
    expect(() => jobAction(job(), { name: "StartItemReturnJob", version: 2 }, later)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 2, version: 1 }),
    );
  });

  it("moves line items both ways; unknown ids and over 20 are 400", () => {
    const j = job();
    const [a, b] = j.returnableLineItems;
    const out = jobAction(
      j,
      { name: "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB", version: 1, lineItemIds: [a!.id] },
      later,
    );
    expect(out.returnableLineItems).toEqual([b]);
    expect(out.notReturnableLineItems).toEqual([{ ...a, returnable: 0 }]);
    const back = jobAction(
      out,
      { name: "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB", version: 2, lineItemIds: [a!.id] },
      later,
    );
    expect(back.returnableLineItems).toEqual([b, a]);
    expect(() =>
      jobAction(
        back,
        { name: "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB", version: 3, lineItemIds: [a!.id] },
        later,
      ),
    ).toThrow(expect.objectContaining({ code: "LINE_ITEM_NOT_FOUND", field: "/lineItemIds/0" }));
    expect(() =>
      jobAction(
        back,
        {
          name: "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB",
          version: 3,
          lineItemIds: Array(21).fill("x"),
        },
        later,
      ),
    ).toThrow(err("invalid", "LIMIT_EXCEEDED"));
  });

  it("moves into a list up to 100 line items; one more is 400 naming lineItemIds and the list", () => {
    for (const [name, from, to] of [
      [
        "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB",
        "returnableLineItems",
        "notReturnableLineItems",
      ],
      ["CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB", "notReturnableLineItems", "returnableLineItems"],
    ] as const) {
      const full = createJob(
        input({
          returnableLineItems: [],
          [from]: [line(1), line(2)],
          [to]: Array.from({ length: JOB_LIMITS.lineItems - 1 }, (_, i) => line(i + 10)),
        }),
        c,
      );
      const [a, b] = full[from];
      const at = jobAction(full, { name, version: 1, lineItemIds: [a!.id] }, later);
      expect(at[to]).toHaveLength(JOB_LIMITS.lineItems);
      expect(() => jobAction(at, { name, version: 2, lineItemIds: [b!.id] }, later)).toThrow(
        expect.objectContaining({
          code: "LIMIT_EXCEEDED",
          field: "/lineItemIds",
          description: expect.stringMatching(new RegExp(`^lineItemIds: ${to} would hold 101 line items`)),
        }),
      );
    }
  });

  it("REPLACE_LINE_ITEMS replaces only the lists it gives (at most 20 each)", () => {
    const j = job();
    const out = jobAction(
      j,
      { name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB", version: 1, notReturnableLineItems: [line(7)] },
      later,
    );
    expect(out.returnableLineItems).toEqual(j.returnableLineItems);
    expect(out.notReturnableLineItems).toEqual([
      expect.objectContaining({ article: line(7).article, returnable: 0 }),
    ]);
    expect(() =>
      jobAction(
        j,
        {
          name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
          version: 1,
          returnableLineItems: Array(21).fill(line(1)),
        },
        later,
      ),
    ).toThrow(err("invalid", "LIMIT_EXCEEDED"));
  });
});
