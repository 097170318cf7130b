import { expect, it } from "vitest";
import { createReason, MAX_REASON_LENGTH, modifyReason } from "./reason.ts";

const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "r1" };
const later = { now: new Date("2026-11-26T10:00:00.000Z"), newId: () => "r2" };
const input = { reason: "Damaged", reasonLocalized: { en_US: "Damaged", de_DE: "Beschädigt" } };

it("creates version 1 of its kind from reason and reasonLocalized", () => {
  expect(createReason("REROUTE", input, c)).toEqual({
    id: "r1",
    version: 1,
    created: "2026-11-25T10:00:00.000Z",
    lastModified: "2026-11-25T10:00:00.000Z",
    action: "REROUTE",
    ...input,
  });
});

it("counts characters, not UTF-16 units: 1024 emoji are a reason, 1025 are not", () => {
  const emoji = (n: number) => "😀".repeat(n);
  expect(createReason("CANCELATION", { ...input, reason: emoji(MAX_REASON_LENGTH) }, c).reason).toBe(
    emoji(1024),
  );
  expect(() => createReason("CANCELATION", { ...input, reason: emoji(MAX_REASON_LENGTH + 1) }, c)).toThrow(
    expect.objectContaining({ code: "REASON_REQUIRED" }),
  );
});

it("400 for a missing, empty or too long reason, a missing or bad reasonLocalized, any other field", () => {
  const bad: [Record<string, unknown>, string][] = [
    [{ reasonLocalized: input.reasonLocalized }, "REASON_REQUIRED"],
    [{ ...input, reason: " " }, "REASON_REQUIRED"],
    [{ ...input, reason: "x".repeat(MAX_REASON_LENGTH + 1) }, "REASON_REQUIRED"],
    [{ reason: "x" }, "REASON_LOCALIZED_REQUIRED"],
    [{ reason: "x", reasonLocalized: ["en_US"] }, "REASON_LOCALIZED_REQUIRED"],
    [{ reason: "x", reasonLocalized: { "en US": "x" } }, "INVALID_LOCALE"],
    [{ ...input, action: "CANCELATION" }, "UNKNOWN_FIELD"],
    [{ ...input, version: 1 }, "UNKNOWN_FIELD"],
  ];
  for (const [body, code] of bad) {
    expect(() => createReason("CANCELATION", body as never, c), JSON.stringify(body)).toThrow(
      expect.objectContaining({ kind: "invalid", code }),
    );
  }
  expect(
    createReason("CANCELATION", { ...input, reason: "x".repeat(MAX_REASON_LENGTH) }, c).reason,
  ).toHaveLength(MAX_REASON_LENGTH);
});

it("modifies on the current version only; id, action and created stay", () => {
  const r = createReason("CANCELATION", input, c);
  const next = modifyReason(r, { version: 1, reason: "Late", reasonLocalized: { en_US: "Late" } }, later);
  expect(next).toEqual({
    ...r,
    version: 2,
    lastModified: "2026-11-26T10:00:00.000Z",
    reason: "Late",
    reasonLocalized: { en_US: "Late" },
  });
  expect(() => modifyReason(next, { version: 1, ...input }, later)).toThrow(
    expect.objectContaining({ kind: "version_conflict", requestVersion: 1, version: 2 }),
  );
  expect(() => modifyReason(next, input, later)).toThrow(
    expect.objectContaining({ code: "VERSION_REQUIRED" }),
  );
  expect(() => modifyReason(next, { version: 2, reason: "x" }, later)).toThrow(
    expect.objectContaining({ code: "REASON_LOCALIZED_REQUIRED" }),
  );
});
