/** GraphiQL: served from the installed packages when enabled (development), absent otherwise. */
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { describe, expect, it } from "vitest";
import { buildGateway } from "../app.ts";

const gateway = (graphiql: boolean) =>
  buildGateway({
    logger: createLogger({ service: "graphiql-test", level: "silent" }),
    metrics: createMetrics("graphiql-test"),
    clients: {} as never,
    verify: async () => {
      throw new Error("no token expected");
    },
    resolveUrn: async () => "",
    checkServices: async () => ({}),
    publicUrl: "",
    graphql: { graphiql },
  });

describe("GraphiQL", () => {
  it("serves the page and its scripts without a token, from local packages only", async () => {
    const app = await gateway(true);
    const page = await app.inject({ method: "GET", url: "/graphiql" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const scripts = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(5);
    for (const url of scripts) {
      expect(url.startsWith("/graphiql/assets/"), url).toBe(true);
      const asset = await app.inject({ method: "GET", url });
      expect(asset.statusCode, url).toBe(200);
      expect(asset.body.length, url).toBeGreaterThan(url.endsWith("start.js") ? 50 : 1000);
    }
    expect((await app.inject({ method: "GET", url: "/graphiql/assets/..%2Fpackage.json" })).statusCode).toBe(
      404,
    );
    await app.close();
  });

  it("is not there unless enabled", async () => {
    const app = await gateway(false);
    expect((await app.inject({ method: "GET", url: "/graphiql" })).statusCode).toBe(404);
    await app.close();
  });
});
