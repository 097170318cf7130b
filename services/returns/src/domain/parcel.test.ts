import { describe, expect, it } from "vitest";
import { addItemReturn, type ItemReturn, itemReturnAction } from "./itemreturn.ts";
import { createJob, type ItemReturnJob } from "./job.ts";
import { createParcel, itemReturnOf, PARCEL_LIMITS } from "./parcel.ts";
import type { JsonObject } from "./types.ts";

let n = 0;
const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => `id${++n}`, shortId: () => "S" };
const consumer = { firstName: "Ada", street: "Main", city: "Köln", postalCode: "50667", country: "DE" };
const facilityAddress = {
  companyName: "Store 1",
  street: "Ring",
  city: "Köln",
  postalCode: "50667",
  country: "DE",
};

function jobWithReturn(extra: JsonObject = {}): { job: ItemReturnJob; ir: ItemReturn } {
  const job = createJob(
    {
      originFacilityRefs: ["f"],
      status: "OPEN",
      consumerAddresses: [consumer],
      returnableLineItems: [{ article: { tenantArticleId: "A", title: "T" }, delivered: 2 }],
      processRef: "P-1",
      ...extra,
    },
    c,
  );
  const added = addItemReturn(
    job,
    {
      itemReturnJobVersion: job.version,
      itemReturnForCreation: { status: "OPEN", returnFacilityRef: "f", returnedLineItems: [] },
    },
    c,
  );
  return { job: added.job, ir: added.itemReturn };
}

const make = (job: ItemReturnJob, ir: ItemReturn, body: JsonObject) =>
  createParcel(job, ir, body, { facilityAddress }, c);

describe("createParcel", () => {
  it("fills what the Parcel requires from the return: sender, recipient, processRef, status OPEN", () => {
    const { job, ir } = jobWithReturn();
    const { parcel, job: next } = make(job, ir, { carrierRef: "carrier-1" });
    expect(parcel).toMatchObject({
      version: 1,
      status: "OPEN",
      carrierRef: "carrier-1",
      processRef: "P-1",
      sender: facilityAddress,
      recipient: consumer,
      loadUnitRefs: [],
      workflowInformation: { isAvailable: false },
      created: c.now.toISOString(),
    });
    expect(next.version).toBe(job.version + 1);
    expect(itemReturnOf(next, ir.id)?.parcelRefs).toEqual([parcel.id]);
  });

  it("keeps what the request gives, gives items and their recordable attributes ids, drops parentRef", () => {
    const { job, ir } = jobWithReturn({ tenantOrderId: "O-7" });
    const sender = { street: "Elsewhere", city: "Bonn", postalCode: "53111", country: "DE" };
    const { parcel } = make(job, ir, {
      carrierRef: "c",
      sender,
      status: "WAITING_FOR_INPUT",
      tenantParcelId: "P-9",
      parentRef: "x",
      dimensions: { weight: 1000 },
      items: [
        { quantity: 2, recordableAttributes: [{ keyLocalized: { de_DE: "K" }, recordingRule: "OPTIONAL" }] },
      ],
    });
    expect(parcel).toMatchObject({
      sender,
      status: "WAITING_FOR_INPUT",
      tenantParcelId: "P-9",
      tenantOrderId: "O-7",
      dimensions: { weight: 1000 },
    });
    expect(parcel.parentRef).toBeUndefined();
    expect(parcel.items).toEqual([
      expect.objectContaining({
        quantity: 2,
        id: expect.any(String),
        recordableAttributes: [expect.objectContaining({ id: expect.any(String) })],
      }),
    ]);
  });

  it("takes 50 parcels per item return and refuses the 51st", () => {
    let { job, ir } = jobWithReturn();
    for (let i = 0; i < PARCEL_LIMITS.parcelsPerItemReturn; i++) {
      job = make(job, ir, { carrierRef: "c" }).job;
      ir = itemReturnOf(job, ir.id) as ItemReturn;
    }
    expect(ir.parcelRefs).toHaveLength(50);
    expect(() => make(job, ir, { carrierRef: "c" })).toThrow(/at most 50 parcels/);
  });

  it.each([
    ["no carrierRef", {}, /carrierRef is required/],
    [
      "a pick-up window that ends before it starts",
      {
        carrierRef: "c",
        pickUpInformation: { startTime: "2026-11-26T12:00:00Z", endTime: "2026-11-26T10:00:00Z" },
      },
      /startTime must be before/,
    ],
  ])("refuses %s (400)", (_, body, message) => {
    const { job, ir } = jobWithReturn();
    expect(() => make(job, ir, body as JsonObject)).toThrow(message);
  });

  it("needs a sender when the return facility has no address", () => {
    const { job, ir } = jobWithReturn();
    expect(() => createParcel(job, ir, { carrierRef: "c" }, { facilityAddress: undefined }, c)).toThrow(
      /sender is required/,
    );
  });

  it("refuses a canceled item return (422)", () => {
    const { job, ir } = jobWithReturn();
    const canceled = itemReturnAction(
      job,
      ir.id,
      { name: "CancelItemReturn", itemReturnJobVersion: job.version },
      c,
    );
    expect(() => make(canceled.job, canceled.itemReturn, { carrierRef: "c" })).toThrow(
      expect.objectContaining({ kind: "precondition" }),
    );
  });
});
