import { describe, expect, it } from "vitest";
import { BATCH_MAX_IDS, batchIds } from "./batch.ts";
import { AppError } from "./errors.ts";
import { newId } from "./ids.ts";

describe("batchIds", () => {
  const a = newId();
  const b = newId();

  it("keeps well-formed ids once, lower case, in first-occurrence order", () => {
    expect(batchIds([b, "nope", a.toUpperCase(), "", b, a, `${a}x`])).toEqual([b, a]);
  });

  it("answers nothing for nothing", () => {
    expect(batchIds([])).toEqual([]);
    expect(batchIds(["x", "1"])).toEqual([]);
  });

  it(`takes ${BATCH_MAX_IDS} ids and rejects more (counted as sent), naming the field`, () => {
    expect(batchIds(Array.from({ length: BATCH_MAX_IDS }, () => a))).toEqual([a]);
    const err = (() => {
      try {
        batchIds(
          Array.from({ length: BATCH_MAX_IDS + 1 }, () => "x"),
          "carrier_ids",
        );
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      kind: "invalid",
      code: "TOO_MANY_IDS",
      description: "At most 500 ids per call.",
      field: "carrier_ids",
    });
  });
});
