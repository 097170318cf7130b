import { expect, it } from "vitest";
import { putReturnConfiguration, REASON_IDENTIFIERS } from "./return-config.ts";

const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "x" };
const later = { ...c, now: new Date("2026-11-26T10:00:00.000Z") };
const reason = (text: string, identifier?: string) => ({
  reasonLocalized: { en_US: text },
  ...(identifier ? { identifier } : {}),
});

it("creates version 1 (any version named); identifiers fill 1-99 then A-Z around the given ones", () => {
  const { config, created } = putReturnConfiguration(
    undefined,
    { version: 42, active: true, availableReturnReasons: [reason("a"), reason("b", "2"), reason("c")] },
    c,
  );
  expect(created).toBe(true);
  expect(config).toMatchObject({
    version: 1,
    active: true,
    allowTriggerRefund: false,
    created: "2026-11-25T10:00:00.000Z",
  });
  expect(config.availableReturnReasons.map((r) => [r.identifier, r.reason])).toEqual([
    ["1", "a"],
    ["2", "b"],
    ["3", "c"],
  ]);
  expect(REASON_IDENTIFIERS.slice(97, 101)).toEqual(["98", "99", "A", "B"]);
  const many = putReturnConfiguration(
    undefined,
    {
      version: 0,
      active: true,
      availableReturnReasons: Array.from({ length: 125 }, (_, i) => reason(`r${i}`)),
    },
    c,
  ).config.availableReturnReasons;
  expect(many.at(-1)?.identifier).toBe("Z");
  expect(() =>
    putReturnConfiguration(
      undefined,
      { version: 0, active: true, availableReturnReasons: Array(126).fill(reason("r")) },
      c,
    ),
  ).toThrow(expect.objectContaining({ code: "LIMIT_EXCEEDED" }));
});

it("updates on the current version only; created stays; 400 for missing active, bad or duplicate identifiers", () => {
  const first = putReturnConfiguration(undefined, { version: 0, active: true }, c).config;
  const next = putReturnConfiguration(first, { version: 1, active: false }, later);
  expect(next).toMatchObject({
    created: false,
    config: { version: 2, active: false, created: first.created },
  });
  expect(() => putReturnConfiguration(next.config, { version: 1, active: true }, later)).toThrow(
    expect.objectContaining({ kind: "version_conflict" }),
  );
  expect(() => putReturnConfiguration(undefined, { version: 0 }, c)).toThrow(
    expect.objectContaining({ code: "ACTIVE_REQUIRED" }),
  );
  expect(() =>
    putReturnConfiguration(
      undefined,
      { version: 0, active: true, availableReturnReasons: [reason("a", "0")] },
      c,
    ),
  ).toThrow(expect.objectContaining({ code: "INVALID_IDENTIFIER" }));
  expect(() =>
    putReturnConfiguration(
      undefined,
      { version: 0, active: true, availableReturnReasons: [reason("a", "Q"), reason("b", "Q")] },
      c,
    ),
  ).toThrow(
    expect.objectContaining({ code: "DUPLICATE_IDENTIFIER", field: "/availableReturnReasons/1/identifier" }),
  );
});
