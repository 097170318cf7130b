import { create } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { EventEnvelopeSchema } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { describe, expect, it } from "vitest";
import { isPickJobEvent, newestPerJob, pickJobRefOf } from "./pickjobs.consumer.ts";

const event = (tenant: string, id: string, version: number, doc: object, type = "PICK_JOB_UPDATED") =>
  create(EventEnvelopeSchema, {
    id: `${id}-${version}`,
    type,
    tenant,
    payload: anyPack(
      PickJobSchema,
      create(PickJobSchema, {
        id,
        version: BigInt(version),
        status: "OPEN",
        documentJson: Buffer.from(JSON.stringify(doc)),
      }),
    ),
  });

describe("the pick job projection's events", () => {
  it("reads id, facility, status and version from a PICK_JOB_* event", () => {
    expect(pickJobRefOf(event("t", "j", 3, { id: "j", facilityRef: 'F "1"' }))).toEqual({
      tenant: "t",
      id: "j",
      facilityRef: 'F "1"',
      status: "OPEN",
      version: 3,
    });
  });
  it("an event without a job or a facility can never be applied", () => {
    expect(() => pickJobRefOf(create(EventEnvelopeSchema, { id: "e", type: "PICK_JOB_CREATED" }))).toThrow(
      /no pick job/,
    );
    expect(() => pickJobRefOf(event("t", "j", 1, { id: "j" }))).toThrow(/no facilityRef/);
  });
  it("keeps the newest state of each job of each tenant in a batch", () => {
    const rows = newestPerJob([
      event("t", "j", 2, { facilityRef: "B" }),
      event("t", "j", 1, { facilityRef: "A" }),
      event("u", "j", 1, { facilityRef: "C" }),
    ]);
    expect(rows.map((r) => [r.tenant, r.version, r.facilityRef])).toEqual([
      ["t", 2, "B"],
      ["u", 1, "C"],
    ]);
  });
  it("consumes PICK_JOB_* kinds only", () => {
    expect(isPickJobEvent("PICK_JOB_CLOSED")).toBe(true);
    expect(isPickJobEvent("PICK_RUN_CREATED")).toBe(false);
    expect(isPickJobEvent("LOAD_UNIT_CREATED")).toBe(false);
  });
});
