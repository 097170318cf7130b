import { describe, expect, it } from "vitest";
import { hostResolver, parseHosts } from "./resolve.ts";

describe("parseHosts", () => {
  it("reads name=address entries; a name given twice has both addresses", () => {
    const hosts = parseHosts(" Hooks.Internal.=10.20.0.5, hooks.internal=fd00::5,,other=8.8.8.8 ");
    expect([...hosts]).toEqual([
      [
        "hooks.internal",
        [
          { address: "10.20.0.5", family: 4 },
          { address: "fd00::5", family: 6 },
        ],
      ],
      ["other", [{ address: "8.8.8.8", family: 4 }]],
    ]);
    expect(parseHosts("").size).toBe(0);
  });

  it.each([
    "hooks",
    "hooks=",
    "=10.0.0.1",
    "hooks=10.0.0.1=x",
    "hooks=0x7f.1",
    "10.0.0.1=10.0.0.2",
    "a b=1.1.1.1",
  ])("throws naming the malformed entry %j", (spec) => {
    expect(() => parseHosts(spec)).toThrow(/not a name=address entry/);
  });
});

describe("hostResolver", () => {
  const asked: string[] = [];
  const resolve = hostResolver(parseHosts("hooks.test=127.0.0.1"), async (host) => {
    asked.push(host);
    return [{ address: "8.8.8.8", family: 4 }];
  });

  it("answers the fixed entries (any case, trailing dot), else asks DNS; .invalid never resolves", async () => {
    expect(await resolve("HOOKS.test.")).toEqual([{ address: "127.0.0.1", family: 4 }]);
    expect(asked).toEqual([]);
    expect(await resolve("example.com")).toEqual([{ address: "8.8.8.8", family: 4 }]);
    expect(asked).toEqual(["example.com"]);
    for (const name of ["does-not-exist.invalid", "x.INVALID.", "invalid"]) {
      await expect(resolve(name)).rejects.toMatchObject({ code: "ENOTFOUND" });
    }
    expect(asked).toEqual(["example.com"]);
  });
});
