/**
 * Item return parcels through the gateway (POST .../itemreturns/{id}/parcels, beta): the 201 Parcel
 * with what the return supplies (sender, recipient, processRef), parcelRefs on the item return and
 * the job's version, the carrier check, 50 parcels per item return, tenantParcelId uniqueness,
 * missing and unknown fields, 404s, a canceled item return, tenancy, the audit, conformance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let carrierId: string;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const consumer = {
  firstName: "Ada",
  lastName: "Lovelace",
  street: "Hohe Straße",
  houseNumber: "1",
  postalCode: "50667",
  city: "Köln",
  country: "DE",
};

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "rita.returns" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Returns desk", address: facilityAddress })).body
    .id;
  const carrier = await api("POST", "/api/carriers", { key: "DHL_V2", name: "DHL" });
  expect(carrier.status, carrier.text).toBe(201);
  carrierId = carrier.body.id;
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};

/** A job (processRef P-1, tenantOrderId O-1) with one OPEN item return. */
async function itemReturn(as = api, facility = facilityId) {
  const job = await as("POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facility],
    status: "OPEN",
    processRef: "P-1",
    tenantOrderId: "O-1",
    consumerAddresses: [consumer],
    returnableLineItems: [{ article: { tenantArticleId: "A-1", title: "Shirt" }, delivered: 1 }],
  });
  expect(job.status, job.text).toBe(200);
  const added = await as("POST", `/api/itemreturnjobs/${job.body.id}/itemreturns`, {
    itemReturnJobVersion: job.body.version,
    itemReturnForCreation: {
      status: "OPEN",
      returnFacilityRef: facility,
      returnedLineItems: [{ itemReturnJobLineItemRef: job.body.returnableLineItems[0].id, status: "OPEN" }],
    },
  });
  expect(added.status, added.text).toBe(200);
  const ir = added.body.itemReturns[0];
  return { job: added.body, ir, path: `/api/itemreturnjobs/${job.body.id}/itemreturns/${ir.id}/parcels` };
}

describe("creating an item return parcel", () => {
  it("answers 201 with the Parcel: sender from the return facility, recipient from the job, OPEN", async () => {
    const { job, ir, path } = await itemReturn();
    const res = await api("POST", path, {
      carrierRef: carrierId,
      carrierProduct: "RETURN",
      tenantParcelId: "PARCEL-1",
      dimensions: { weight: 1200, length: 30, width: 20, height: 10 },
      items: [{ quantity: 1, article: { tenantArticleId: "A-1", title: "Shirt" } }],
      services: { signature: true },
    });
    expect(res.status, res.text).toBe(201);
    conformant("Parcel", res.body);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      version: 1,
      status: "OPEN",
      carrierRef: carrierId,
      carrierProduct: "RETURN",
      processRef: "P-1",
      tenantOrderId: "O-1",
      tenantParcelId: "PARCEL-1",
      sender: {
        street: facilityAddress.street,
        city: facilityAddress.city,
        country: facilityAddress.country,
      },
      recipient: consumer,
      loadUnitRefs: [],
      workflowInformation: { isAvailable: false },
      items: [{ id: expect.any(String), quantity: 1 }],
      services: { signature: true },
    });

    const after = await api("GET", `/api/itemreturnjobs/${job.id}`);
    expect(after.body.version).toBe(job.version + 1);
    expect(after.body.itemReturns.find((r: any) => r.id === ir.id).parcelRefs).toEqual([res.body.id]);
    conformant("ItemReturnJob", after.body);

    const audits = await eventually(async () => {
      const found = await api("POST", "/api/audits/search", { query: { entityRef: { eq: res.body.id } } });
      return found.body.audits?.length ? (found.body.audits as any[]) : undefined;
    });
    expect(audits.map((a) => [a.entityType, a.operation.name])).toEqual([["PARCEL", "PARCEL_CREATED"]]);
  });

  it("keeps a sender, recipient and status the request gives", async () => {
    const { path } = await itemReturn();
    const sender = {
      companyName: "Hub",
      street: "Ring",
      houseNumber: "2",
      postalCode: "53111",
      city: "Bonn",
      country: "DE",
    };
    const res = await api("POST", path, {
      carrierRef: carrierId,
      sender,
      recipient: { ...consumer, firstName: "Grace" },
      status: "WAITING_FOR_INPUT",
      pickUpInformation: { startTime: "2026-11-26T08:00:00.000Z", endTime: "2026-11-26T12:00:00.000Z" },
    });
    expect(res.status, res.text).toBe(201);
    conformant("Parcel", res.body);
    expect(res.body).toMatchObject({
      sender,
      recipient: { firstName: "Grace" },
      status: "WAITING_FOR_INPUT",
    });
  });

  it("takes 50 parcels per item return and refuses the 51st with 400", async () => {
    const { job, ir, path } = await itemReturn();
    for (let i = 0; i < 50; i++) {
      const res = await api("POST", path, { carrierRef: carrierId });
      expect(res.status, res.text).toBe(201);
    }
    const over = await api("POST", path, { carrierRef: carrierId });
    expect(over.status, over.text).toBe(400);
    expect(over.body[0].description).toMatch(/at most 50 parcels/);
    const after = await api("GET", `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}`);
    expect(after.body.parcelRefs).toHaveLength(50);
  });

  it("keeps tenantParcelId unique among parcels that are not obsolete or canceled (409)", async () => {
    const a = await itemReturn();
    const b = await itemReturn();
    expect((await api("POST", a.path, { carrierRef: carrierId, tenantParcelId: "DUP" })).status).toBe(201);
    const dup = await api("POST", b.path, { carrierRef: carrierId, tenantParcelId: "DUP" });
    expect(dup.status, dup.text).toBe(409);
    expect(dup.body[0].description).toMatch(/tenantParcelId/);
    const canceled = await api("POST", b.path, {
      carrierRef: carrierId,
      tenantParcelId: "GONE",
      status: "CANCELED",
    });
    expect(canceled.status).toBe(201);
    expect((await api("POST", b.path, { carrierRef: carrierId, tenantParcelId: "GONE" })).status).toBe(201);
    // Another tenant may use the same tenantParcelId.
    const theirFacility = await other("POST", "/api/facilities", {
      name: "Theirs",
      address: facilityAddress,
    });
    const theirs = await itemReturn(other, theirFacility.body.id);
    const theirCarrier = (await other("POST", "/api/carriers", { key: "DHL_V2", name: "DHL" })).body.id;
    expect(
      (await other("POST", theirs.path, { carrierRef: theirCarrier, tenantParcelId: "DUP" })).status,
    ).toBe(201);
  });

  it.each([
    ["no carrierRef", {}, /carrierRef/],
    ["an unknown carrierRef", { carrierRef: UNKNOWN }, /no carrier with id/],
    ["an unknown field (the reference closes ParcelForCreation)", { carrierRef: "x", weight: 3 }, /weight/],
    ["a quantity below 1", { carrierRef: "x", items: [{ quantity: 0 }] }, /quantity/],
    ["an unknown status", { carrierRef: "x", status: "LOST" }, /status/],
    [
      "a pick-up window ending before it starts",
      {
        carrierRef: "CARRIER",
        pickUpInformation: { startTime: "2026-11-26T12:00:00.000Z", endTime: "2026-11-26T08:00:00.000Z" },
      },
      /startTime must be before/,
    ],
  ])("answers 400 for %s, and the item return keeps no parcel", async (_, body, message) => {
    const { job, ir, path } = await itemReturn();
    const sent = { ...(body as Record<string, unknown>) };
    if (sent.carrierRef === "CARRIER") sent.carrierRef = carrierId;
    const res = await api("POST", path, sent);
    expect(res.status, res.text).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(message);
    const after = await api("GET", `/api/itemreturnjobs/${job.id}`);
    expect(after.body.version).toBe(job.version);
    expect(after.body.itemReturns.find((r: any) => r.id === ir.id).parcelRefs).toBeUndefined();
  });

  it("answers 404 for an unknown job or item return, and for another tenant's", async () => {
    const { job, path } = await itemReturn();
    const body = { carrierRef: carrierId };
    expect(
      (await api("POST", `/api/itemreturnjobs/${UNKNOWN}/itemreturns/${UNKNOWN}/parcels`, body)).status,
    ).toBe(404);
    expect(
      (await api("POST", `/api/itemreturnjobs/${job.id}/itemreturns/${UNKNOWN}/parcels`, body)).status,
    ).toBe(404);
    expect((await other("POST", path, body)).status).toBe(404);
  });

  it("refuses a parcel for a canceled item return (422) and with another tenant's carrier (400)", async () => {
    const { job, ir, path } = await itemReturn();
    const theirCarrier = (await other("POST", "/api/carriers", { key: "UPS", name: "UPS" })).body.id;
    const foreign = await api("POST", path, { carrierRef: theirCarrier });
    expect(foreign.status, foreign.text).toBe(400);
    const cancel = await api("POST", `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}/actions`, {
      name: "CancelItemReturn",
      itemReturnJobVersion: job.version,
    });
    expect(cancel.status, cancel.text).toBe(200);
    const res = await api("POST", path, { carrierRef: carrierId });
    expect(res.status, res.text).toBe(422);
  });

  it("needs RETURN_WRITE", async () => {
    const { path } = await itemReturn();
    const reader = sys.as(await sys.token("acme", { permissions: ["RETURN_READ"] }));
    expect((await reader("POST", path, { carrierRef: carrierId })).status).toBe(403);
  });
});
