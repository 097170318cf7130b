import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { describe, expect, it } from "vitest";
import { EVENT_TEST_CONTEXT } from "../testing/events.ts";
import { buildEnvelope, decodeEnvelope, encodeEnvelope, entityEvent } from "./envelope.ts";

describe("entityEvent", () => {
  const created = "2026-01-02T03:04:05.678Z";

  it("names the entity, its version and creation, and builds the payload message", () => {
    const e = entityEvent(
      "THING_UPDATED",
      "THING",
      { id: "t1", version: 3, created },
      {
        schema: ErrorDetailSchema,
        message: { code: "C", field: "/f" },
      },
    );
    expect(e).toMatchObject({
      type: "THING_UPDATED",
      entityType: "THING",
      entityRef: "t1",
      entityVersion: 3,
    });
    expect(e.entityCreated).toEqual(new Date(created));
    expect(e.payload?.message).toMatchObject({
      $typeName: "fop.common.v1.ErrorDetail",
      code: "C",
      field: "/f",
    });
  });

  it("takes a Date or epoch millis as the creation; a deletion is the last version + 1; no payload is none", () => {
    const at = new Date(created);
    const e = entityEvent("THING_DELETED", "THING", { id: "t1", version: 3, created: at }, undefined, {
      deleted: true,
    });
    expect(e.entityVersion).toBe(4);
    expect(e.entityCreated).toBe(at);
    expect(e).not.toHaveProperty("payload");
    expect(entityEvent("X", "T", { id: "t", version: 1, created: at.getTime() }).entityCreated).toEqual(at);
  });

  it("travels in the envelope with its payload packed", () => {
    const e = entityEvent(
      "THING_CREATED",
      "THING",
      { id: "t1", version: 1, created },
      {
        schema: ErrorDetailSchema,
        message: { code: "C" },
      },
    );
    const envelope = decodeEnvelope(encodeEnvelope(buildEnvelope(EVENT_TEST_CONTEXT, e, "id-1", new Date())));
    expect(envelope).toMatchObject({ id: "id-1", type: "THING_CREATED", entityRef: "t1", entityVersion: 1n });
    expect(anyUnpack(envelope.payload!, ErrorDetailSchema)).toMatchObject({ code: "C" });
  });
});
