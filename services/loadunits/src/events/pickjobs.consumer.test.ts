import { create } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { EventEnvelopeSchema } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { describe, expect, it } from "vitest";
import { isPickJobEvent, newestPerJob, pickJobRefOf } from "./pickjobs.consumer.ts";

/** A PICK_JOB_* event; `facilityRef` undefined: one published before PickJob had the field. */
const event = (
  tenant: string,
  id: string,
  version: number,
  facilityRef: string | undefined,
  doc: object = {},
) =>
  create(EventEnvelopeSchema, {
    id: `${id}-${version}`,
    type: "PICK_JOB_UPDATED",
    tenant,
    payload: anyPack(
      PickJobSchema,
      create(PickJobSchema, {
        id,
        version: BigInt(version),
        status: "OPEN",
        facilityRef,
        documentJson: Buffer.from(JSON.stringify(doc)),
      }),
    ),
  });

describe("the pick job projection's events", () => {
  it("reads id, facility, status and version from the typed PickJob, never from its document", () => {
    expect(pickJobRefOf(event("t", "j", 3, 'F "1"', { id: "j", facilityRef: "not this one" }))).toEqual({
      tenant: "t",
      id: "j",
      facilityRef: 'F "1"',
      status: "OPEN",
      version: 3,
    });
  });
  it("an event from before facility_ref is read without a facility, whatever its document says", () => {
    expect(pickJobRefOf(event("t", "j", 2, undefined, { id: "j", facilityRef: "F" }))).toEqual({
      tenant: "t",
      id: "j",
      facilityRef: undefined,
      status: "OPEN",
      version: 2,
    });
  });
  it("an event without a job, or with an empty facility_ref, can never be applied", () => {
    expect(() => pickJobRefOf(create(EventEnvelopeSchema, { id: "e", type: "PICK_JOB_CREATED" }))).toThrow(
      /no pick job/,
    );
    expect(() => pickJobRefOf(event("t", "j", 1, ""))).toThrow(/facility_ref is empty/);
  });
  it("keeps the newest state of each job of each tenant in a batch", () => {
    const rows = newestPerJob([event("t", "j", 2, "B"), event("t", "j", 1, "A"), event("u", "j", 1, "C")]);
    expect(rows.map((r) => [r.tenant, r.version, r.facilityRef])).toEqual([
      ["t", 2, "B"],
      ["u", 1, "C"],
    ]);
  });
  it("a newest state without a facility takes the facility of an older event of the job in the batch", () => {
    const rows = (events: ReturnType<typeof event>[]) =>
      newestPerJob(events).map((r) => [r.id, r.version, r.facilityRef]);
    expect(rows([event("t", "j", 1, "A"), event("t", "j", 2, undefined)])).toEqual([["j", 2, "A"]]);
    expect(rows([event("t", "j", 2, undefined), event("t", "j", 1, "A")])).toEqual([["j", 2, "A"]]);
    expect(rows([event("t", "j", 2, undefined), event("t", "k", 1, undefined)])).toEqual([
      ["j", 2, undefined],
      ["k", 1, undefined],
    ]);
  });
  it("consumes PICK_JOB_* kinds only", () => {
    expect(isPickJobEvent("PICK_JOB_CLOSED")).toBe(true);
    expect(isPickJobEvent("PICK_RUN_CREATED")).toBe(false);
    expect(isPickJobEvent("LOAD_UNIT_CREATED")).toBe(false);
  });
});
