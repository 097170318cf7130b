/** One request is one trace: gateway -> Connect RPC -> Postgres -> outbox -> NATS -> consumer -> Postgres. */
import { testSpans } from "@fop/kit/testing/tracing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type System, startSystem } from "../../support/system.ts";
import { expectCategoryCreateTrace, fromReadableSpan } from "../../support/traces.ts";

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.close());

describe("tracing", () => {
  it("captures gateway, service, pg and NATS publish/consume spans in one trace", async () => {
    const api = sys.as(await sys.token("traced"));
    const res = await api("POST", "/api/categories", { nameLocalized: { en_US: "traced" } });
    expect(res.status).toBe(201);
    const traceId = res.headers.get("traceresponse")!.split("-")[1]!;

    await eventually(async () =>
      expectCategoryCreateTrace(
        testSpans()
          .getFinishedSpans()
          .filter((s) => s.spanContext().traceId === traceId)
          .map(fromReadableSpan),
      ),
    );
  });
});
