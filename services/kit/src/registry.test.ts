import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "./context.ts";
import { existenceCheck, found } from "./registry.ts";

const ctx = (tenant: string) => ({ tenant }) as RequestContext;

describe("existenceCheck", () => {
  it("answers NOT_FOUND as false, asks again next time, and remembers a confirmed id per tenant", async () => {
    const asked: string[] = [];
    const known = new Set(["t1/a"]);
    const exists = existenceCheck(async (c, id) => {
      asked.push(`${c.tenant}/${id}`);
      if (!known.has(`${c.tenant}/${id}`)) throw new ConnectError("no", Code.NotFound);
      return {};
    }, 60_000);
    expect(await exists(ctx("t1"), "a")).toBe(true);
    expect(await exists(ctx("t1"), "a")).toBe(true);
    expect(await exists(ctx("t2"), "a")).toBe(false);
    expect(await exists(ctx("t2"), "a")).toBe(false);
    expect(await exists(ctx("t1"), "")).toBe(false);
    expect(asked).toEqual(["t1/a", "t2/a", "t2/a"]);
  });

  it("passes other failures on (an unreachable registry is not 'no such entity')", async () => {
    const exists = existenceCheck(async () => {
      throw new ConnectError("down", Code.Unavailable);
    });
    await expect(exists(ctx("t"), "a")).rejects.toMatchObject({ code: Code.Unavailable });
    await expect(found(async () => 1)).resolves.toBe(1);
  });
});
