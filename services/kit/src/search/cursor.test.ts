import { describe, expect, it } from "vitest";
import { cursorCodec } from "./cursor.ts";
import { shiftByDuration } from "./duration.ts";

describe("cursor", () => {
  const codec = cursorCodec("a secret");
  const c = {
    sort: "created",
    dir: "DESC" as const,
    value: "2026-01-01T00:00:00.000Z",
    id: "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
  };
  const unsigned = (data: unknown) => Buffer.from(JSON.stringify(data)).toString("base64url");
  const rejects = (raw: string, by = codec) =>
    expect(() => by.decode(raw, "/after")).toThrow(
      expect.objectContaining({ code: "INVALID_CURSOR", field: "/after" }),
    );

  it("round-trips", () => {
    const odd = { ...c, sort: "customAttributes:size", value: { a: [1, "x"] } };
    expect(codec.decode(codec.encode(odd), "/after")).toEqual(odd);
  });

  it("accepts only cursors signed with its own secret", () => {
    const raw = codec.encode(c);
    expect(cursorCodec("a secret").decode(raw, "/after")).toEqual(c);
    rejects(raw, cursorCodec("another secret"));
    rejects(raw, cursorCodec());
  });

  it("rejects a cursor whose value was changed, even with the old signature", () => {
    const [, mac] = codec.encode(c).split(".");
    rejects(`${unsigned(["created", "DESC", "+275760-09-13T00:00:00.000Z", c.id])}.${mac}`);
    rejects(`${unsigned(["created", "ASC", c.value, c.id])}.${mac}`);
  });

  it.each([
    "",
    "!!!",
    unsigned(["created", "ASC", c.value, c.id]),
    `${unsigned("not json")}.AAAAAAAAAAAAAAAAAAAAAA`,
    `${unsigned(["created", "ASC", c.value, c.id])}.`,
    "a".repeat(5000),
  ])("rejects %j", (raw) => rejects(raw));
});

describe("shiftByDuration", () => {
  const now = new Date("2026-03-31T12:00:00.000Z");
  it.each([
    ["-P1D", "2026-03-30T12:00:00.000Z"],
    ["P1W", "2026-04-07T12:00:00.000Z"],
    ["PT1H30M", "2026-03-31T13:30:00.000Z"],
    ["-PT0.5S", "2026-03-31T11:59:59.500Z"],
    ["\u2013P1D", "2026-03-30T12:00:00.000Z"],
    ["P1Y", "2027-03-31T12:00:00.000Z"],
  ])("%s", (d, expected) => {
    expect(shiftByDuration(d, now, "/x").toISOString()).toBe(expected);
  });

  it.each(["P", "PT", "1D", "P1H", "-", "P1DT", "P99999999Y", "-P99999999Y", `P${"9".repeat(400)}D`])(
    "rejects %s",
    (d) => {
      expect(() => shiftByDuration(d, now, "/x")).toThrow(
        expect.objectContaining({ code: "INVALID_DURATION" }),
      );
    },
  );
});
