import { describe, expect, it } from "vitest";
import { ttlCache } from "./cache.ts";

describe("ttlCache", () => {
  it("answers until the time to live has passed, then forgets", () => {
    let t = 1000;
    const c = ttlCache<boolean>({ ttlMs: 50, now: () => t });
    c.set("a", true);
    expect(c.get("a")).toBe(true);
    t += 49;
    expect(c.get("a")).toBe(true);
    t += 1;
    expect(c.get("a")).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it("setting again restarts the time to live", () => {
    let t = 0;
    const c = ttlCache<number>({ ttlMs: 10, now: () => t });
    c.set("a", 1);
    t = 8;
    c.set("a", 2);
    t = 15;
    expect(c.get("a")).toBe(2);
  });

  it("keeps at most `max` entries, dropping the oldest set", () => {
    const c = ttlCache<number>({ ttlMs: 1000, max: 2 });
    c.set("a", 1);
    c.set("b", 2);
    c.set("a", 3); // a is now the newest
    c.set("c", 4);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(3);
    expect(c.get("c")).toBe(4);
    expect(c.size).toBe(2);
  });

  it("is off with a time to live of 0; delete forgets one key", () => {
    const off = ttlCache<number>({ ttlMs: 0 });
    off.set("a", 1);
    expect(off.get("a")).toBeUndefined();
    const c = ttlCache<number>({ ttlMs: 1000 });
    c.set("a", 1);
    c.delete("a");
    expect(c.get("a")).toBeUndefined();
  });
});
