import { describe, expect, it } from "vitest";
import { MAX_REFUSED_REASONS, putHandoverConfiguration, refusedReasons } from "./handover-config.ts";

const now = new Date("2026-03-01T10:00:00.000Z");
const later = new Date("2026-03-02T10:00:00.000Z");
const reason = (text: string, active = true) => ({
  refusedReasonLocalized: { en_US: text, de_DE: `${text} (de)` },
  active,
});

describe("handover configuration", () => {
  it("has no refuse reasons before the first PUT", () => {
    expect(refusedReasons(undefined)).toEqual([]);
  });

  it("creates on the first PUT, then replaces on the current version; refusedReason is the first locale's", () => {
    const first = putHandoverConfiguration(
      undefined,
      { version: 7, refusedReasons: [reason("Broken")] },
      { now },
    );
    expect(first).toEqual({
      version: 1,
      created: now.toISOString(),
      lastModified: now.toISOString(),
      refusedReasons: [
        {
          refusedReasonLocalized: { en_US: "Broken", de_DE: "Broken (de)" },
          active: true,
          refusedReason: "Broken",
        },
      ],
    });
    const second = putHandoverConfiguration(
      first,
      { version: 1, refusedReasons: [reason("Late", false)] },
      { now: later },
    );
    expect(second).toMatchObject({
      version: 2,
      created: now.toISOString(),
      lastModified: later.toISOString(),
    });
    expect(refusedReasons(second)).toEqual([
      { refusedReasonLocalized: { en_US: "Late", de_DE: "Late (de)" }, active: false, refusedReason: "Late" },
    ]);
  });

  it.each([
    ["a stale version", { version: 2, refusedReasons: [] }, "VERSION_CONFLICT", undefined],
    ["no version", { refusedReasons: [] }, "VERSION_REQUIRED", "/version"],
    ["no list", { version: 1 }, "INVALID_VALUE", "/refusedReasons"],
    [
      "too many reasons",
      { version: 1, refusedReasons: Array.from({ length: MAX_REFUSED_REASONS + 1 }, () => reason("x")) },
      "LIMIT_EXCEEDED",
      "/refusedReasons",
    ],
    [
      "a reason without locale",
      { version: 1, refusedReasons: [{ refusedReasonLocalized: {}, active: true }] },
      "LOCALIZED_TEXT_REQUIRED",
      "/refusedReasons/0/refusedReasonLocalized",
    ],
    [
      "a reason without active",
      { version: 1, refusedReasons: [{ refusedReasonLocalized: { en_US: "x" } }] },
      "ACTIVE_REQUIRED",
      "/refusedReasons/0/active",
    ],
  ])("refuses %s", (_name, body, code, pointer) => {
    const current = putHandoverConfiguration(undefined, { version: 1, refusedReasons: [] }, { now });
    expect(() => putHandoverConfiguration(current, body as never, { now: later })).toThrow(
      expect.objectContaining(pointer ? { code, field: pointer } : { kind: "version_conflict", code }),
    );
  });
});
