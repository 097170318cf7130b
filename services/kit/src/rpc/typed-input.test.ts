import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { EstimateDeliveryDatesRequestSchema } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { DeleteNotificationChannelRequestSchema } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { toConnectError } from "./errors.ts";
import { checkTypedInput } from "./typed-input.ts";

function refusal(check: () => void) {
  try {
    check();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { code: e.code, field: e.field };
  }
  return undefined;
}

describe("checkTypedInput (the typed fields of a request, any encoding)", () => {
  const channel = (init: Parameters<typeof create<typeof DeleteNotificationChannelRequestSchema>>[1]) => () =>
    checkTypedInput(
      DeleteNotificationChannelRequestSchema,
      create(DeleteNotificationChannelRequestSchema, init),
    );

  it("takes ordinary values", () => {
    expect(refusal(channel({ channelId: "c-1", version: 3n }))).toBeUndefined();
    expect(refusal(channel({ version: -9007199254740991n }))).toBeUndefined();
  });

  it("refuses a 64-bit integer past 2^53 and a string with NUL or a lone surrogate, naming the field", () => {
    expect(refusal(channel({ version: 9223372036854775807n }))).toEqual({
      code: "INVALID_NUMBER",
      field: "/version",
    });
    expect(refusal(channel({ channelId: "a\u0000b" }))).toEqual({
      code: "INVALID_CHARACTER",
      field: "/channelId",
    });
    expect(refusal(channel({ facilityRef: "\ud800" }))).toEqual({
      code: "INVALID_CHARACTER",
      field: "/facilityRef",
    });
  });

  it("walks nested messages", () => {
    const req = create(EstimateDeliveryDatesRequestSchema, {
      carrierId: "c",
      source: { countryCode: "DE", postalCode: "4\u00000" },
    });
    expect(refusal(() => checkTypedInput(EstimateDeliveryDatesRequestSchema, req))).toEqual({
      code: "INVALID_CHARACTER",
      field: "/source/postalCode",
    });
  });
});

describe("toConnectError", () => {
  it("leaves out a version an int64 cannot carry, so the refusal is still sent", () => {
    const err = toConnectError(
      new AppError("conflict", { code: "VERSION_CONFLICT", requestVersion: 2 ** 63, version: 4 }),
    );
    const [detail] = err.details as { value: Parameters<typeof create<typeof ErrorDetailSchema>>[1] }[];
    const bytes = toBinary(ErrorDetailSchema, create(ErrorDetailSchema, detail!.value));
    expect(fromBinary(ErrorDetailSchema, bytes)).toMatchObject({ code: "VERSION_CONFLICT", version: 4n });
  });
});
